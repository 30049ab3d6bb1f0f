package state

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/flowcontrol"

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
	// AnnAccepted holds Record.Accepted as a JSON array.
	AnnAccepted = "azure.kubectl.io/accepted"
	// AnnHashedAs holds Record.HashedAs (a moved record's hash salt).
	AnnHashedAs = "azure.kubectl.io/hashed-as"

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

// kubeStore is the Kubernetes backend: one ConfigMap per record, a Lease
// as the run lock (kubelock.go), and while the lock is held a cache of the
// set's ConfigMaps (kuberecords.go) and a journal ConfigMap holding the
// intents (kubejournal.go).
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

	// While the lock is held (nil otherwise): the set's ConfigMaps as last
	// read or written, by name, so a write needs no read first and reads
	// need no request; and the intents journal.
	cacheMu sync.Mutex
	cache   map[string]*corev1.ConfigMap
	jnl     *kubeJournal

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
	// The client talks to one API server for one run: pace it with our own
	// token bucket (Options.QPS, Burst). client-go's limiter is switched off
	// (negative QPS) because it reports its waits through klog on stderr
	// ("client-side throttling"), noise in the middle of a plan.
	limiter := flowcontrol.NewTokenBucketRateLimiter(opts.QPS, opts.Burst)
	cfg.QPS, cfg.Burst, cfg.RateLimiter = -1, 0, nil
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return pacedTransport{rt, limiter} })
	cfg.UserAgent = "kubectl-azure-state"
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubernetes state %s/%s: %w", ns, set, err)
	}
	return newKubeStore(ctx, cs, ns, set, opts)
}

// pacedTransport waits for the token bucket before each request.
type pacedTransport struct {
	next    http.RoundTripper
	limiter flowcontrol.RateLimiter
}

func (p pacedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if err := p.limiter.Wait(r.Context()); err != nil {
		return nil, err
	}
	return p.next.RoundTrip(r)
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

// FixedSet implements SetBound.
func (s *kubeStore) FixedSet() string { return s.set }

func (s *kubeStore) selector() string { return LabelSet + "=" + s.set }

// ConfigMapName is the ConfigMap holding id's state in set.
func ConfigMapName(set, id string) string {
	return kubePrefix + set + "-" + idHash(id)
}

// idHash names id where names may hold only a few characters.
func idHash(id string) string {
	h := sha256.Sum256([]byte(armid.Key(id)))
	return hex.EncodeToString(h[:16])
}

func (s *kubeStore) leaseName() string   { return LockLeaseName(s.set) }
func (s *kubeStore) secretName() string  { return KeySecretName(s.set) }
func (s *kubeStore) journalName() string { return kubePrefix + s.set + "-journal" }

// objectMeta is the metadata of a new object of the set.
func (s *kubeStore) objectMeta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: s.ns,
		Labels: map[string]string{LabelSet: s.set, LabelManagedBy: managedByValue}}
}

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
		if s.opts.ReadOnly {
			return nil, ErrReadOnly
		}
		k, err := newSecretKey()
		if err != nil {
			return nil, err
		}
		_, err = secrets.Create(ctx, &corev1.Secret{
			ObjectMeta: s.objectMeta(s.secretName()),
			Type:       corev1.SecretTypeOpaque,
			Data:       map[string][]byte{secretKeyField: k},
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
