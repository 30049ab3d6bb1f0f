package state

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// Names and annotations of the Kubernetes backend. Object names carry the
// set so several sets share a namespace; a ConfigMap's name is a hash of the
// lower-cased ARM ID because IDs are longer than names may be and contain
// characters names may not.
const (
	kubePrefix = "azstate-"

	LabelSet       = "azure.kubectl.io/set"
	LabelManagedBy = "app.kubernetes.io/managed-by"
	managedByValue = "kubectl-azure"

	AnnID           = "azure.kubectl.io/id"
	AnnType         = "azure.kubectl.io/type"
	AnnAPIVersion   = "azure.kubectl.io/api-version"
	AnnOrigin       = "azure.kubectl.io/origin"
	AnnSubscription = "azure.kubectl.io/subscription"
	AnnEtag         = "azure.kubectl.io/etag"
	AnnUpdated      = "azure.kubectl.io/updated"
	AnnSerial       = "azure.kubectl.io/serial" // present exactly when a record is
	AnnLastApplied  = "azure.kubectl.io/last-applied"
	AnnBaseline     = "azure.kubectl.io/baseline"
	AnnIntent       = "azure.kubectl.io/intent"
	// AnnPreventDestroy is "true" on a record applied with the
	// prevent-destroy annotation; absent otherwise (and on older records).
	AnnPreventDestroy = "azure.kubectl.io/prevent-destroy"

	secretKeyField = "hmac-key"
	gzipPrefix     = "gzip+base64:"
	// Values whose compressed form is still larger than this move to the
	// ConfigMap's binaryData (1 MiB limit), so the three JSON annotations can
	// never exceed the 256 KiB annotation total together.
	annotationMax   = 64 << 10
	binaryRefPrefix = "binaryData:"
)

// conflictBackoff retries resourceVersion conflicts: enough steps for many
// parallel writers of one object, with jitter so they do not collide again.
var conflictBackoff = wait.Backoff{Steps: 30, Duration: 10 * time.Millisecond, Factor: 1.5, Jitter: 0.5, Cap: time.Second}

type kubeStore struct {
	ns, set string
	opts    Options
	cs      kubernetes.Interface

	mu       sync.Mutex
	identity string        // lease holder identity while held
	stop     chan struct{} // closes to stop the renewer
	renewed  chan struct{} // closed when the renewer has exited
	lost     atomic.Bool
	key      []byte

	conflicts atomic.Int64 // resourceVersion conflicts retried (observability, tests)
}

func openKube(ctx context.Context, ns, set string, opts Options) (Store, error) {
	getter := opts.KubeConfig
	if getter == nil {
		getter = genericclioptions.NewConfigFlags(true)
	}
	cfg, err := getter.ToRESTConfig()
	if err != nil {
		return nil, fmt.Errorf("kubernetes state %s/%s: cannot load kubeconfig: %w; check --kubeconfig/--context or KUBECONFIG", ns, set, err)
	}
	cfg.QPS, cfg.Burst = opts.QPS, opts.Burst
	cfg.UserAgent = "kubectl-azure-state"
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubernetes state %s/%s: %w", ns, set, err)
	}
	return newKubeStore(ctx, cs, ns, set, opts)
}

func newKubeStore(ctx context.Context, cs kubernetes.Interface, ns, set string, opts Options) (*kubeStore, error) {
	s := &kubeStore{ns: ns, set: set, opts: opts, cs: cs}
	// Fail at Open on a wrong context, a missing namespace or missing RBAC.
	if _, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{Limit: 1, LabelSelector: s.selector()}); err != nil {
		return nil, s.explain(err, "list", "configmaps")
	}
	return s, nil
}

func (s *kubeStore) String() string { return KubernetesScheme + s.ns + "/" + s.set }

func (s *kubeStore) selector() string { return LabelSet + "=" + s.set }

// ConfigMapName is the ConfigMap holding id's state in set.
func ConfigMapName(set, id string) string {
	h := sha256.Sum256([]byte(armid.Key(id)))
	return kubePrefix + set + "-" + hex.EncodeToString(h[:16])
}

func (s *kubeStore) leaseName() string  { return kubePrefix + s.set + "-lock" }
func (s *kubeStore) secretName() string { return kubePrefix + s.set + "-key" }

// explain turns API errors into what the user should do.
func (s *kubeStore) explain(err error, verb, resource string) error {
	switch {
	case apierrors.IsForbidden(err):
		return fmt.Errorf("kubernetes state %s: not allowed to %s %s in namespace %s: %w; the state needs get/list/create/update/delete on configmaps, get/create on secrets and get/create/update on leases (coordination.k8s.io)",
			s, verb, resource, s.ns, err)
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("kubernetes state %s: the cluster rejected the credentials: %w; refresh your kubeconfig credentials", s, err)
	case isNamespaceNotFound(err, s.ns):
		return fmt.Errorf("kubernetes state %s: namespace %s does not exist: create it (kubectl create namespace %s) or choose another in --state", s, s.ns, s.ns)
	}
	return fmt.Errorf("kubernetes state %s: %s %s: %w", s, verb, resource, err)
}

func isNamespaceNotFound(err error, ns string) bool {
	var st apierrors.APIStatus
	if !errors.As(err, &st) {
		return false
	}
	d := st.Status().Details
	return apierrors.IsNotFound(err) && d != nil && d.Kind == "namespaces" && d.Name == ns
}

// ---- encoding ----

func encodeValue(v any, compressAbove int) (string, []byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", nil, err
	}
	if len(b) <= compressAbove {
		return string(b), nil, nil
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(b)
	zw.Close()
	enc := gzipPrefix + base64.StdEncoding.EncodeToString(buf.Bytes())
	if len(enc) <= annotationMax {
		return enc, nil, nil
	}
	return "", buf.Bytes(), nil
}

func decodeValue(s string, cm *corev1.ConfigMap, into any) error {
	var b []byte
	switch {
	case len(s) > len(binaryRefPrefix) && s[:len(binaryRefPrefix)] == binaryRefPrefix:
		z, ok := cm.BinaryData[s[len(binaryRefPrefix):]]
		if !ok {
			return fmt.Errorf("binaryData %q missing", s[len(binaryRefPrefix):])
		}
		r, err := gzip.NewReader(bytes.NewReader(z))
		if err != nil {
			return err
		}
		if b, err = io.ReadAll(r); err != nil {
			return err
		}
	case len(s) > len(gzipPrefix) && s[:len(gzipPrefix)] == gzipPrefix:
		z, err := base64.StdEncoding.DecodeString(s[len(gzipPrefix):])
		if err != nil {
			return err
		}
		r, err := gzip.NewReader(bytes.NewReader(z))
		if err != nil {
			return err
		}
		if b, err = io.ReadAll(r); err != nil {
			return err
		}
	default:
		b = []byte(s)
	}
	return unmarshalNumbers(b, into)
}

// setValue stores v under annotation ann (or binaryData when too big);
// nil removes it.
func (s *kubeStore) setValue(cm *corev1.ConfigMap, ann string, v any, isNil bool) error {
	bin := ann[len("azure.kubectl.io/"):] + ".json.gz"
	delete(cm.Annotations, ann)
	delete(cm.BinaryData, bin)
	if isNil {
		return nil
	}
	enc, big, err := encodeValue(v, s.opts.CompressAbove)
	if err != nil {
		return err
	}
	if big != nil {
		if cm.BinaryData == nil {
			cm.BinaryData = map[string][]byte{}
		}
		cm.BinaryData[bin] = big
		enc = binaryRefPrefix + bin
	}
	cm.Annotations[ann] = enc
	return nil
}

func (s *kubeStore) recordFrom(cm *corev1.ConfigMap) (*Record, error) {
	a := cm.Annotations
	serialS, ok := a[AnnSerial]
	if !ok {
		return nil, ErrNotFound
	}
	r := &Record{ID: a[AnnID], Type: a[AnnType], APIVersion: a[AnnAPIVersion], Origin: a[AnnOrigin], Etag: a[AnnEtag], Set: s.set,
		Subscription: a[AnnSubscription]}
	r.fillSubscription()
	r.PreventDestroy = a[AnnPreventDestroy] == "true"
	r.Serial, _ = strconv.ParseInt(serialS, 10, 64)
	r.Updated, _ = time.Parse(time.RFC3339Nano, a[AnnUpdated])
	for ann, into := range map[string]*map[string]any{AnnLastApplied: &r.LastApplied, AnnBaseline: &r.Baseline} {
		if v, ok := a[ann]; ok {
			if err := decodeValue(v, cm, into); err != nil {
				return nil, fmt.Errorf("kubernetes state %s: ConfigMap %s annotation %s is unreadable (%v); delete the ConfigMap and re-import the resource", s, cm.Name, ann, err)
			}
		}
	}
	return r, nil
}

// mutate applies fn to id's ConfigMap (a fresh one when absent) and writes
// it back, retrying resourceVersion conflicts on a freshly read copy. fn
// returning remove=true deletes the ConfigMap (under the same precondition).
func (s *kubeStore) mutate(ctx context.Context, id string, fn func(cm *corev1.ConfigMap) (remove bool, err error)) error {
	if s.lost.Load() {
		return ErrLockLost
	}
	if err := s.waitUnlessHolder(ctx); err != nil {
		return err
	}
	cms := s.cs.CoreV1().ConfigMaps(s.ns)
	name := ConfigMapName(s.set, id)
	attempt := 0
	err := wait.ExponentialBackoffWithContext(ctx, conflictBackoff, func(ctx context.Context) (bool, error) {
		if attempt++; attempt > 1 {
			s.conflicts.Add(1)
		}
		cm, err := cms.Get(ctx, name, metav1.GetOptions{})
		exists := err == nil
		if apierrors.IsNotFound(err) {
			cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
				Name: name, Namespace: s.ns,
				Labels: map[string]string{LabelSet: s.set, LabelManagedBy: managedByValue},
			}}
		} else if err != nil {
			return false, s.explain(err, "get", "configmaps")
		}
		if cm.Annotations == nil {
			cm.Annotations = map[string]string{}
		}
		if prev, ok := cm.Annotations[AnnID]; ok && armid.Key(prev) != armid.Key(id) {
			return false, fmt.Errorf("kubernetes state %s: ConfigMap %s belongs to %s, not %s (hash collision or hand edit); delete it", s, name, prev, id)
		}
		remove, err := fn(cm)
		if err != nil {
			return false, err
		}
		switch {
		case remove && !exists:
			return true, nil
		case remove:
			err = cms.Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &cm.ResourceVersion}})
			if apierrors.IsNotFound(err) {
				return true, nil
			}
		case exists:
			_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
		default:
			_, err = cms.Create(ctx, cm, metav1.CreateOptions{})
		}
		if apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) {
			return false, nil // someone wrote in between: reread and redo
		}
		if err != nil {
			return false, s.explain(err, "write", "configmaps")
		}
		return true, nil
	})
	if wait.Interrupted(err) {
		return fmt.Errorf("kubernetes state %s: %s kept changing under us (%d attempts); another run is writing the same resource without the lock — rerun", s, name, attempt)
	}
	return err
}

// ---- records ----

func (s *kubeStore) Get(ctx context.Context, id string) (*Record, error) {
	cm, err := s.cs.CoreV1().ConfigMaps(s.ns).Get(ctx, ConfigMapName(s.set, id), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, s.explain(err, "get", "configmaps")
	}
	return s.recordFrom(cm)
}

func (s *kubeStore) Put(ctx context.Context, r *Record) error {
	if err := validateRecord(r); err != nil {
		return err
	}
	c, err := sanitizedRecord(func() ([]byte, error) { return s.SecretKey(ctx) }, r)
	if err != nil {
		return err
	}
	if c.Updated.IsZero() {
		c.Updated = time.Now().UTC()
	}
	err = s.mutate(ctx, r.ID, func(cm *corev1.ConfigMap) (bool, error) {
		a := cm.Annotations
		c.Serial = 1
		if prev, err := strconv.ParseInt(a[AnnSerial], 10, 64); err == nil {
			c.Serial = prev + 1
		}
		a[AnnID], a[AnnType], a[AnnAPIVersion] = c.ID, c.Type, c.APIVersion
		a[AnnSerial], a[AnnUpdated] = strconv.FormatInt(c.Serial, 10), c.Updated.UTC().Format(time.RFC3339Nano)
		setOrDelete(a, AnnOrigin, c.Origin)
		setOrDelete(a, AnnSubscription, c.Subscription)
		setOrDelete(a, AnnEtag, c.Etag)
		pd := ""
		if c.PreventDestroy {
			pd = "true"
		}
		setOrDelete(a, AnnPreventDestroy, pd)
		if err := s.setValue(cm, AnnLastApplied, c.LastApplied, c.LastApplied == nil); err != nil {
			return false, err
		}
		if err := s.setValue(cm, AnnBaseline, c.Baseline, c.Baseline == nil); err != nil {
			return false, err
		}
		return false, s.setValue(cm, AnnIntent, nil, true)
	})
	if err == nil {
		r.Serial, r.Updated, r.Subscription = c.Serial, c.Updated, c.Subscription
	}
	return err
}

func setOrDelete(a map[string]string, k, v string) {
	if v == "" {
		delete(a, k)
	} else {
		a[k] = v
	}
}

func (s *kubeStore) Delete(ctx context.Context, id string) error {
	return s.mutate(ctx, id, func(*corev1.ConfigMap) (bool, error) { return true, nil })
}

// listAll pages through the set's ConfigMaps; pages keep memory and the
// API server's load bounded for sets of thousands.
func (s *kubeStore) listAll(ctx context.Context) ([]corev1.ConfigMap, error) {
	var out []corev1.ConfigMap
	opts := metav1.ListOptions{LabelSelector: s.selector(), Limit: 500}
	for {
		l, err := s.cs.CoreV1().ConfigMaps(s.ns).List(ctx, opts)
		if err != nil {
			return nil, s.explain(err, "list", "configmaps")
		}
		out = append(out, l.Items...)
		if l.Continue == "" {
			return out, nil
		}
		opts.Continue = l.Continue
	}
}

func (s *kubeStore) List(ctx context.Context) ([]*Record, error) {
	cms, err := s.listAll(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*Record, 0, len(cms))
	for i := range cms {
		r, err := s.recordFrom(&cms[i])
		if errors.Is(err, ErrNotFound) {
			continue // an intent alone
		}
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return armid.Key(out[i].ID) < armid.Key(out[j].ID) })
	return out, nil
}

// ---- journal ----

func (s *kubeStore) BeginIntent(ctx context.Context, in Intent) error {
	in, err := prepareIntent(in, func() ([]byte, error) { return s.SecretKey(ctx) })
	if err != nil {
		return err
	}
	return s.mutate(ctx, in.ID, func(cm *corev1.ConfigMap) (bool, error) {
		if _, ok := cm.Annotations[AnnID]; !ok {
			cm.Annotations[AnnID] = in.ID
		}
		return false, s.setValue(cm, AnnIntent, in, false)
	})
}

func (s *kubeStore) CommitIntent(ctx context.Context, id string) error {
	return s.mutate(ctx, id, func(cm *corev1.ConfigMap) (bool, error) {
		if _, ok := cm.Annotations[AnnSerial]; !ok {
			return true, nil // nothing but the intent: drop the ConfigMap
		}
		return false, s.setValue(cm, AnnIntent, nil, true)
	})
}

func (s *kubeStore) Intents(ctx context.Context) ([]Intent, error) {
	cms, err := s.listAll(ctx)
	if err != nil {
		return nil, err
	}
	var out []Intent
	for i := range cms {
		v, ok := cms[i].Annotations[AnnIntent]
		if !ok {
			continue
		}
		var in Intent
		if err := decodeValue(v, &cms[i], &in); err != nil {
			return nil, fmt.Errorf("kubernetes state %s: ConfigMap %s has an unreadable journal entry (%v); remove its %s annotation after checking the resource in Azure", s, cms[i].Name, err, AnnIntent)
		}
		out = append(out, in)
	}
	sortIntents(out)
	return out, nil
}

// ---- secret key ----

// SecretKey lives in a Secret, not beside the hashes, so people who may
// read the ConfigMaps cannot brute-force short secrets.
func (s *kubeStore) SecretKey(ctx context.Context) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.key != nil {
		return s.key, nil
	}
	secrets := s.cs.CoreV1().Secrets(s.ns)
	for range 3 {
		sec, err := secrets.Get(ctx, s.secretName(), metav1.GetOptions{})
		if err == nil {
			k := sec.Data[secretKeyField]
			if len(k) < 16 {
				return nil, fmt.Errorf("kubernetes state %s: Secret %s has no usable %s; delete it (stored secret hashes then show as changed once)", s, s.secretName(), secretKeyField)
			}
			s.key = k
			return k, nil
		}
		if !apierrors.IsNotFound(err) {
			return nil, s.explain(err, "get", "secrets")
		}
		k, err := newSecretKey()
		if err != nil {
			return nil, err
		}
		_, err = secrets.Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: s.secretName(), Namespace: s.ns,
				Labels: map[string]string{LabelSet: s.set, LabelManagedBy: managedByValue}},
			Type: corev1.SecretTypeOpaque,
			Data: map[string][]byte{secretKeyField: k},
		}, metav1.CreateOptions{})
		if err == nil {
			s.key = k
			return k, nil
		}
		if !apierrors.IsAlreadyExists(err) { // lost the race: read the winner's key
			return nil, s.explain(err, "create", "secrets")
		}
	}
	return nil, fmt.Errorf("kubernetes state %s: could not read or create Secret %s; rerun", s, s.secretName())
}

func (s *kubeStore) Close() error {
	s.mu.Lock()
	held := s.identity != ""
	s.mu.Unlock()
	if held {
		return s.release(context.Background(), false)
	}
	return nil
}
