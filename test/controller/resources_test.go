package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-azure/kubectl-azure/config/crd"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/reconcile"
	"github.com/kubectl-azure/kubectl-azure/pkg/state/statetest"
	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

var crdOnce sync.Mutex

// dynClient is a dynamic client on the shared test cluster.
func dynClient(t testing.TB, env *statetest.Env) dynamic.Interface {
	t.Helper()
	cfg, err := env.ConfigFlags().ToRESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = reconcile.KubeQPS, reconcile.KubeBurst // as the controller's
	return dynamic.NewForConfigOrDie(cfg)
}

// installCRD creates config/crd/resources.yaml on the cluster, as
// `kubectl apply -f config/crd` would, and waits until it is served.
func installCRD(t testing.TB, env *statetest.Env) dynamic.Interface {
	t.Helper()
	dc := dynClient(t, env)
	crdOnce.Lock()
	defer crdOnce.Unlock()
	var obj map[string]any
	if err := yaml.Unmarshal(crd.YAML, &obj); err != nil {
		t.Fatal(err)
	}
	_, err := dc.Resource(crdGVR).Create(t.Context(), &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("the API server refused the CRD: %v", err)
	}
	waitFor(t, func() bool {
		got, err := dc.Resource(crdGVR).Get(t.Context(), "resources.azure.kubectl.io", metav1.GetOptions{})
		if err != nil {
			return false
		}
		conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
		for _, c := range conds {
			m, _ := c.(map[string]any)
			if m["type"] == "Established" && m["status"] == "True" {
				_, err := dc.Resource(reconcile.ResourceGVR).Namespace("default").List(t.Context(), metav1.ListOptions{})
				return err == nil
			}
		}
		return false
	})
	return dc
}

// landingZoneDocs are the manifests of testdata/landing-zone, by file.
func landingZoneDocs(t *testing.T) map[string]map[string]any {
	t.Helper()
	dir := filepath.Join("..", "..", "testdata", "landing-zone")
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]map[string]any{}
	for _, f := range files {
		if filepath.Base(f) == "kustomization.yaml" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, part := range strings.Split("\n"+string(b), "\n---\n") {
			var m map[string]any
			if err := yaml.Unmarshal([]byte(part), &m); err != nil {
				t.Fatal(err)
			}
			if m != nil {
				docs[fmt.Sprintf("%s#%d", filepath.Base(f), i)] = m
			}
		}
	}
	return docs
}

// createObjects creates each manifest as an object in ns, as kubectl
// apply -f would, and returns them by name.
func createObjects(t *testing.T, dc dynamic.Interface, ns string, docs map[string]map[string]any) {
	t.Helper()
	for f, d := range docs {
		u := &unstructured.Unstructured{Object: deepCopy(d)}
		u.SetNamespace(ns)
		if _, err := dc.Resource(reconcile.ResourceGVR).Namespace(ns).Create(t.Context(), u, metav1.CreateOptions{}); err != nil {
			t.Fatalf("%s as an object: %v", f, err)
		}
	}
}

func deepCopy(m map[string]any) map[string]any {
	return (&unstructured.Unstructured{Object: m}).DeepCopy().Object
}

// kubeSource starts a kubernetes:// source on ns.
func kubeSource(t testing.TB, dc dynamic.Interface, ns string) *reconcile.KubeSource {
	t.Helper()
	src := &reconcile.KubeSource{Client: dc, Namespace: ns, Dir: t.TempDir(),
		LoadDir: func(ctx context.Context, dir string) (*manifest.Set, error) {
			lo := manifest.NewLoadOptions()
			lo.Filenames, lo.Recursive, lo.Subscription = []string{dir}, true, harness.Sub
			return manifest.Load(ctx, lo)
		}}
	if err := src.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	return src
}

// TestLandingZoneAppliesAsObjectsUnchanged: the real kube-apiserver
// accepts the CRD, and every landing-zone manifest as an object, with its
// spec stored as written (no field pruned); the kubernetes:// source
// reads them back as the same resources the files are.
func TestLandingZoneAppliesAsObjectsUnchanged(t *testing.T) {
	env := statetest.Shared(t)
	dc := installCRD(t, env)
	ns := env.NewNamespace(t)
	docs := landingZoneDocs(t)
	createObjects(t, dc, ns, docs)
	for f, d := range docs {
		name := d["metadata"].(map[string]any)["name"].(string)
		got, err := dc.Resource(reconcile.ResourceGVR).Namespace(ns).Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if a, b := asJSON(t, got.Object["spec"]), asJSON(t, d["spec"]); a != b {
			t.Errorf("%s: the stored spec differs from the manifest's:\n got %s\nwant %s", f, a, b)
		}
		if a, b := asJSON(t, reconcile.Document(got)), asJSON(t, d); a != b {
			t.Errorf("%s: the object's manifest differs from the file:\n got %s\nwant %s", f, a, b)
		}
	}

	src := kubeSource(t, dc, ns)
	fromObjects, err := src.Load(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	lo := manifest.NewLoadOptions()
	lo.Filenames, lo.Subscription = []string{filepath.Join("..", "..", "testdata", "landing-zone")}, harness.Sub
	fromFiles, err := manifest.Load(t.Context(), lo)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := ids(fromObjects), ids(fromFiles); !reflect.DeepEqual(a, b) {
		t.Fatalf("the objects load as\n%v\nthe files as\n%v", a, b)
	}
	for _, r := range fromObjects.Resources {
		if !strings.HasPrefix(r.Origin.File, "kubernetes://"+ns+"/") {
			t.Errorf("%s: origin %s does not name the object", r.ID, r.Origin)
		}
	}
}

// asJSON renders v as canonical JSON (sorted keys, one number type).
func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var x any
	_ = json.Unmarshal(b, &x)
	b, _ = json.Marshal(x)
	return string(b)
}

func ids(s *manifest.Set) []string {
	var out []string
	for _, r := range s.Resources {
		out = append(out, strings.ToLower(r.ID))
	}
	sort.Strings(out)
	return out
}

// TestKubeSourceNamesTheInvalidObject: an invalid edit keeps the last good
// set, and the problem names kubernetes://NAMESPACE/NAME with its line and
// field; a status write alone does not make the source read again.
func TestKubeSourceNamesTheInvalidObject(t *testing.T) {
	env := statetest.Shared(t)
	dc := installCRD(t, env)
	ns := env.NewNamespace(t)
	createObjects(t, dc, ns, map[string]map[string]any{"rg": yamlDoc(t, groupYAML("rg-ks"))})
	src := kubeSource(t, dc, ns)
	r := reconcile.NewReflector(src)
	if changed, err := r.Sync(t.Context()); !changed || err != nil {
		t.Fatalf("first sync: %v %v", changed, err)
	}
	set, _, _ := r.Current()
	fp, _ := src.Fingerprint(t.Context())

	res := dc.Resource(reconcile.ResourceGVR).Namespace(ns)
	if _, err := res.Patch(t.Context(), "rg-ks", "application/merge-patch+json", []byte(`{"status":{"id":"x"}}`), metav1.PatchOptions{}, "status"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		objs, _ := src.Objects()
		return len(objs) == 1 && objs[0].Object["status"] != nil
	})
	if fp2, _ := src.Fingerprint(t.Context()); fp2 != fp {
		t.Fatal("a status write changed the source's fingerprint: every status write would reload the set")
	}

	if _, err := res.Patch(t.Context(), "rg-ks", "application/merge-patch+json", []byte(`{"spec":{"type":"Microsoft.Resources/resourceGroups"}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	var syncErr error
	waitFor(t, func() bool {
		_, syncErr = r.Sync(t.Context())
		return syncErr != nil
	})
	ps := reconcile.Problems(syncErr)
	if len(ps) == 0 || ps[0].File != "kubernetes://"+ns+"/rg-ks" || ps[0].Line == 0 || ps[0].Path != "spec.type" {
		t.Fatalf("problems = %+v", ps)
	}
	if now, _, _ := r.Current(); now != set {
		t.Fatal("the invalid edit replaced the last good set")
	}
}

func groupYAML(name string) string {
	return "apiVersion: azure.kubectl.io/v1alpha1\nkind: Resource\nmetadata:\n  name: " + name + "\nspec:\n  type: Microsoft.Resources/resourceGroups@2021-04-01\n  body:\n    location: westeurope\n"
}

func yamlDoc(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// waitReady is `kubectl wait --for=condition=Ready`: every object of ns
// has Ready=True for its current generation, and observedGeneration is
// that generation.
func waitReady(t *testing.T, dc dynamic.Interface, ns string, within time.Duration) []unstructured.Unstructured {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		l, err := dc.Resource(reconcile.ResourceGVR).Namespace(ns).List(t.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var notReady []string
		for _, o := range l.Items {
			if !readyNow(&o) {
				st, _, _ := unstructured.NestedMap(o.Object, "status")
				notReady = append(notReady, o.GetName()+": "+strings.ReplaceAll(toYAML(st), "\n", " "))
			}
		}
		if len(notReady) == 0 && len(l.Items) > 0 {
			return l.Items
		}
		if time.Now().After(deadline) {
			t.Fatalf("not Ready within %s:\n%s", within, strings.Join(notReady, "\n"))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func readyNow(o *unstructured.Unstructured) bool {
	og, _, _ := unstructured.NestedInt64(o.Object, "status", "observedGeneration")
	if og != o.GetGeneration() {
		return false
	}
	return condition(o, "Ready") == "True"
}

// condition is the status of the condition typ, "" when absent.
func condition(o *unstructured.Unstructured, typ string) string {
	c := conditionOf(o, typ)
	s, _ := c["status"].(string)
	return s
}

func conditionOf(o *unstructured.Unstructured, typ string) map[string]any {
	conds, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == typ {
			return m
		}
	}
	return nil
}

func toYAML(v any) string {
	b, _ := yaml.Marshal(v)
	return string(b)
}
