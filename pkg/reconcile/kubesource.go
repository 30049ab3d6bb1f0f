package reconcile

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-azure/kubectl-azure/config/crd"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
)

// ResourceGVR is the API config/crd serves.
var ResourceGVR = schema.GroupVersionResource{Group: crd.Group, Version: crd.Version, Resource: crd.Resource}

// KubeScheme prefixes a kubernetes:// source and the origin of its objects.
const KubeScheme = "kubernetes://"

// lastAppliedAnnotation is kubectl's copy of the applied object: no
// manifest input, and as large as the object.
const lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// KubeSource is kubernetes://NAMESPACE[?selector=LABELS]: the Resource
// objects of a namespace, kept current by an informer. Each object is a
// manifest document: Load writes its apiVersion, kind, metadata (name,
// labels, annotations) and spec under Dir as NAME.yaml, so the loader
// checks it as it checks a file, and renames what it reports
// kubernetes://NAMESPACE/NAME. No selector is needed: objects of this
// kind are only ever manifests.
type KubeSource struct {
	Client    dynamic.Interface
	Namespace string
	Selector  string
	// Dir is a private directory Load may empty and fill.
	Dir string
	// LoadDir reads the manifests under a directory.
	LoadDir func(ctx context.Context, dir string) (*manifest.Set, error)

	lister cache.GenericNamespaceLister

	mu sync.Mutex
	// loaded is the generation of each object as the last Load read it.
	loaded map[string]int64
	// good holds the generations of the last two sets Load returned
	// without error: the reflector publishes a set only after Load
	// returns it, and until then the set before is the current one.
	good [2]goodSet
	// ids are the ARM IDs of the objects, from the last good set that
	// held each; deletion reads them once the object is left out.
	ids map[string]string
	// leftOut are the objects being deleted that the last Load left out
	// of the set, and loadErr that Load's error (nil when nothing is left
	// that could still need them).
	leftOut map[string]bool
	loadErr error
}

func (k *KubeSource) String() string {
	s := KubeScheme + k.Namespace
	if k.Selector != "" {
		s += "?selector=" + k.Selector
	}
	return s
}

// Start runs the informer until ctx ends and waits for its first list.
func (k *KubeSource) Start(ctx context.Context) error {
	if _, err := labels.Parse(k.Selector); err != nil {
		return fmt.Errorf("selector %q: %w", k.Selector, err)
	}
	f := dynamicinformer.NewFilteredDynamicSharedInformerFactory(k.Client, 10*time.Minute, k.Namespace,
		func(o *metav1.ListOptions) { o.LabelSelector = k.Selector })
	inf := f.ForResource(ResourceGVR)
	k.lister = inf.Lister().ByNamespace(k.Namespace)
	f.Start(ctx.Done())
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if !cache.WaitForCacheSync(wctx.Done(), inf.Informer().HasSynced) {
		return fmt.Errorf("listing %s in %s did not finish within a minute: check that the CRD is installed (controller install prints it) and that the service account may list and watch them there", ResourceGVR.GroupResource(), k.Namespace)
	}
	return nil
}

// Objects are the objects the informer holds, by name. The names are
// read once: GetName walks the object's map, and a sort comparing
// 10,000 objects by it took a fifth of the controller's CPU (the
// reflector and the status pass list every second or two).
func (k *KubeSource) Objects() ([]*unstructured.Unstructured, error) {
	objs, err := k.lister.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	type named struct {
		name string
		obj  *unstructured.Unstructured
	}
	byName := make([]named, 0, len(objs))
	for _, o := range objs {
		if u, ok := o.(*unstructured.Unstructured); ok {
			byName = append(byName, named{u.GetName(), u})
		}
	}
	sort.Slice(byName, func(i, j int) bool { return byName[i].name < byName[j].name })
	out := make([]*unstructured.Unstructured, len(byName))
	for i, n := range byName {
		out[i] = n.obj
	}
	return out, nil
}

// Fingerprint is each object's name, generation, labels and annotations:
// what a manifest is made of. Not the resource version, which every
// status write moves: the set is read again only when a manifest changed.
func (k *KubeSource) Fingerprint(context.Context) (string, error) {
	objs, err := k.Objects()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, o := range objs {
		fmt.Fprintf(h, "%s\x00%d\x00%s\x00%s\x00%t\n", o.GetName(), o.GetGeneration(), flat(o.GetLabels()), flat(manifestAnnotations(o)), deleting(o))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func flat(m map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(&b, "%s=%s\x01", k, m[k])
	}
	return b.String()
}

func manifestAnnotations(o *unstructured.Unstructured) map[string]string {
	a := o.GetAnnotations()
	_, applied := a[lastAppliedAnnotation]
	_, policy := a[AnnotationDeletionPolicy]
	if applied || policy {
		a = maps.Clone(a)
		delete(a, lastAppliedAnnotation)
		delete(a, AnnotationDeletionPolicy) // the object's, not the manifest's
	}
	return a
}

// deleting: the object has been deleted and waits for its finalizers.
func deleting(o *unstructured.Unstructured) bool { return o.GetDeletionTimestamp() != nil }

// Document is the manifest an object holds: the fields a manifest file
// has, none of those the API server adds (uid, managedFields, status).
func Document(o *unstructured.Unstructured) map[string]any {
	meta := map[string]any{"name": o.GetName()}
	if l := o.GetLabels(); len(l) > 0 {
		meta["labels"] = l
	}
	if a := manifestAnnotations(o); len(a) > 0 {
		meta["annotations"] = a
	}
	doc := map[string]any{"apiVersion": o.GetAPIVersion(), "kind": o.GetKind(), "metadata": meta}
	if spec, ok := o.Object["spec"]; ok {
		doc["spec"] = spec
	}
	return doc
}

// Load writes every object under Dir as a manifest file and reads them.
func (k *KubeSource) Load(ctx context.Context) (*manifest.Set, error) {
	objs, err := k.Objects()
	if err != nil {
		return nil, err
	}
	if err := os.RemoveAll(k.Dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(k.Dir, 0o700); err != nil {
		return nil, err
	}
	gens := make(map[string]int64, len(objs))
	leftOut := map[string]bool{}
	var bad []manifest.Problem
	for _, o := range objs {
		if deleting(o) {
			// A deleted object is no manifest: the loop stops applying
			// it, and its finalizer decides what happens in Azure.
			leftOut[o.GetName()] = true
			continue
		}
		if p := k.policyProblem(o); p != nil {
			bad = append(bad, *p)
		}
		b, err := yaml.Marshal(Document(o))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k.Origin(o.GetName()), err)
		}
		if err := os.WriteFile(filepath.Join(k.Dir, o.GetName()+".yaml"), b, 0o600); err != nil {
			return nil, err
		}
		gens[o.GetName()] = o.GetGeneration()
	}
	set, err := k.LoadDir(ctx, k.Dir)
	if len(bad) > 0 {
		set, err = nil, withProblems(err, bad)
	}
	var ve *manifest.ValidationError
	if errors.As(err, &ve) {
		for i := range ve.Problems {
			ve.Problems[i].File = k.name(ve.Problems[i].File)
		}
	}
	if set != nil {
		for _, r := range set.Resources {
			r.Origin.File = k.name(r.Origin.File)
		}
		for _, r := range set.Existing {
			r.Origin.File = k.name(r.Origin.File)
		}
	}
	k.mu.Lock()
	k.loaded, k.leftOut, k.loadErr = gens, leftOut, err
	if len(gens) == 0 {
		k.loadErr = nil // nothing left that could need a deleted object
	}
	if err == nil && set != nil {
		k.good[1], k.good[0] = k.good[0], goodSet{set: set, gens: gens}
		k.rememberIDs(set)
	}
	k.mu.Unlock()
	return set, err
}

// rememberIDs keeps the ARM ID of each object of set; call with k.mu held.
func (k *KubeSource) rememberIDs(set *manifest.Set) {
	if k.ids == nil {
		k.ids = map[string]string{}
	}
	prefix := k.Origin("")
	for _, r := range set.Resources {
		if name, ok := strings.CutPrefix(r.Origin.File, prefix); ok && r.ID != "" {
			k.ids[name] = r.ID
		}
	}
}

// Deletable says whether the object name, being deleted, was left out of
// the last Load (so the loop no longer applies it), the ARM ID it had,
// and the error that Load met (the other objects may still need it).
func (k *KubeSource) Deletable(name string) (leftOut bool, id string, loadErr error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.leftOut[name], k.ids[name], k.loadErr
}

// Forgotten drops what the source remembers of an object whose deletion
// completed.
func (k *KubeSource) Forgotten(name string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.ids, name)
}

// policyProblem checks the object's deletion policy, as the loader checks
// the manifest's annotations.
func (k *KubeSource) policyProblem(o *unstructured.Unstructured) *manifest.Problem {
	v, ok := o.GetAnnotations()[AnnotationDeletionPolicy]
	if !ok {
		return nil
	}
	err := ValidateDeletionPolicy(v)
	if err == nil {
		return nil
	}
	return &manifest.Problem{File: filepath.Join(k.Dir, o.GetName()+".yaml"), Index: 0, Line: annotationLine(o),
		Path: "metadata.annotations." + AnnotationDeletionPolicy, Message: err.Error()}
}

// annotationLine is the line of the deletion policy in the object's
// document as kubectl shows it (Document plus the annotation, sorted keys).
func annotationLine(o *unstructured.Unstructured) int {
	doc := Document(o)
	meta := doc["metadata"].(map[string]any)
	a := map[string]string{}
	if m, ok := meta["annotations"].(map[string]string); ok {
		maps.Copy(a, m)
	}
	a[AnnotationDeletionPolicy] = o.GetAnnotations()[AnnotationDeletionPolicy]
	meta["annotations"] = a
	b, err := yaml.Marshal(doc)
	if err != nil {
		return 0
	}
	for i, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, AnnotationDeletionPolicy+":") {
			return i + 1
		}
	}
	return 0
}

// withProblems adds the source's own problems to a load's outcome.
func withProblems(err error, bad []manifest.Problem) error {
	var ve *manifest.ValidationError
	if errors.As(err, &ve) {
		ve.Problems = append(ve.Problems, bad...)
		return err
	}
	if err != nil {
		return err
	}
	return &manifest.ValidationError{Problems: bad}
}

// LoadedGeneration is the generation of the object name as the last Load
// read it (valid or not), and whether it read the object at all.
func (k *KubeSource) LoadedGeneration(name string) (int64, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	g, ok := k.loaded[name]
	return g, ok
}

// GoodGeneration is the generation of the object name in set, when set
// is the last one Load returned without error.
func (k *KubeSource) GoodGeneration(set *manifest.Set, name string) (int64, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if set == nil {
		return 0, false
	}
	for _, gs := range k.good {
		if gs.set == set {
			g, ok := gs.gens[name]
			return g, ok
		}
	}
	return 0, false
}

// goodSet is a set Load returned without error and the generation of
// each object it read.
type goodSet struct {
	set  *manifest.Set
	gens map[string]int64
}

// Origin is how problems and resources name the object name.
func (k *KubeSource) Origin(name string) string { return KubeScheme + k.Namespace + "/" + name }

// name turns a file under Dir into kubernetes://NAMESPACE/NAME.
func (k *KubeSource) name(file string) string {
	rel, err := filepath.Rel(k.Dir, file)
	if err != nil || strings.HasPrefix(rel, "..") || strings.Contains(rel, string(filepath.Separator)) {
		return file
	}
	return k.Origin(strings.TrimSuffix(rel, ".yaml"))
}
