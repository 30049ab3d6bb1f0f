package state

import (
	"context"
	"fmt"
	"os"
	"os/user"
	"strings"
	"time"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// Defaults every command seeds its flags with, kept here so apply, delete,
// import and the state subcommands cannot disagree.
const (
	// DefaultPath is the local state file used when --state is not given.
	DefaultPath = ".kubectl-azure/state.json"
	// DefaultLockTimeout is how long a run waits for another run's lock
	// (--lock-timeout).
	DefaultLockTimeout = time.Minute
	// DefaultSet is the manifest set records are filed under when no --set
	// is given; prune and delete only consider records of one set.
	DefaultSet = "default"
)

// KubernetesScheme prefixes a Kubernetes state reference.
const KubernetesScheme = "kubernetes://"

// Options holds every tunable of the state backends, with their defaults
// in DefaultOptions.
type Options struct {
	// KubeConfig supplies the standard kubeconfig flags (--kubeconfig,
	// --context, ...); nil means genericclioptions.NewConfigFlags defaults.
	KubeConfig genericclioptions.RESTClientGetter
	// LockTimeout is how long Lock waits for another holder (--lock-timeout).
	LockTimeout time.Duration
	// Holder identifies this run in lock messages; "" = user@host pid N.
	Holder string
	// LeaseDuration: a Lease not renewed for this long is taken over.
	LeaseDuration time.Duration
	// LockPoll is how often a waiting Lock retries.
	LockPoll time.Duration
	// QPS and Burst pace the Kubernetes backend's requests to its one API
	// server (our own token bucket; client-go's default of 5 would make a
	// 1,000-resource run crawl, and its limiter logs its waits to stderr).
	QPS   float32
	Burst int
	// CompressAbove: JSON annotations larger than this are gzip-compressed.
	CompressAbove int
	// SnapshotInterval: within a locked run the local backend rewrites the
	// whole state file at most this often (and once at unlock); changes in
	// between are made durable by appending to its journal.
	SnapshotInterval time.Duration
	// CompactBytes and CompactFactor: within a locked run the whole file is
	// rewritten only once the journal holds at least CompactBytes and
	// CompactFactor times the size of the file it extends, so a run writes
	// about 2.5 times the final state's size (journal, then the final
	// file) rather than the whole file every SnapshotInterval.
	CompactBytes  int64
	CompactFactor int
	// ReadOnly opens the store for reading only (shell completion): Open
	// creates no directory or file, and Lock, every write and creating the
	// secret key fail with ErrReadOnly.
	ReadOnly bool
	// Secrets is the run's registry: a string that is one of its values
	// is hashed wherever it stands in a record, and origin and etag are
	// scrubbed of them. Nil: an empty registry (only the one rule and
	// typed Secret values are hashed). The controller passes a registry
	// that includes its reconciles' registries while they run.
	Secrets *secret.Registry
	// SecretRule returns the secret rule a record is stored by: the one
	// the caller built from the schema of the record's type and
	// api-version (diff.SecretRule), so a property the schema marks
	// secret is hashed whatever its name. Nil, or a nil rule: the rule
	// without a schema (the record's type paths, credential names and
	// containers).
	SecretRule func(r *Record) *secret.Rule
}

// DefaultOptions returns the defaults; zero fields of a caller's Options
// are filled from here.
func DefaultOptions() Options {
	return Options{
		LockTimeout:   DefaultLockTimeout,
		LeaseDuration: 30 * time.Second,
		LockPoll:      250 * time.Millisecond,
		// An apply costs about 1.1 requests per resource; the API server's
		// priority and fairness protects it beyond this.
		QPS:           200,
		Burst:         400,
		CompressAbove: 16 << 10,
		// A few full rewrites a second: a 1,000-resource state is ~0.3 MB.
		SnapshotInterval: 300 * time.Millisecond,
		CompactBytes:     8 << 20,
		CompactFactor:    8,
	}
}

func (o Options) withDefaults() Options {
	d := DefaultOptions()
	orDefault(&o.LockTimeout, d.LockTimeout)
	orDefault(&o.LeaseDuration, d.LeaseDuration)
	orDefault(&o.LockPoll, d.LockPoll)
	orDefault(&o.SnapshotInterval, d.SnapshotInterval)
	orDefault(&o.QPS, d.QPS)
	orDefault(&o.Burst, d.Burst)
	orDefault(&o.CompressAbove, d.CompressAbove)
	orDefault(&o.CompactBytes, d.CompactBytes)
	orDefault(&o.CompactFactor, d.CompactFactor)
	if o.Holder == "" {
		o.Holder = defaultHolder()
	}
	if o.Secrets == nil {
		o.Secrets = secret.NewRegistry()
	}
	return o
}

// orDefault sets a zero *v to d.
func orDefault[T comparable](v *T, d T) {
	var zero T
	if *v == zero {
		*v = d
	}
}

func defaultHolder() string {
	name := "unknown"
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	host, _ := os.Hostname()
	return fmt.Sprintf("%s@%s pid %d", name, host, os.Getpid())
}

// Open opens the store named by ref: "" (DefaultPath), a file path, or
// kubernetes://NAMESPACE/SETNAME. A ref that looks like a URL of another
// scheme (kubernetes:ns/set, s3://...) is refused with a *RefError rather
// than taken as a file name, which would quietly keep state on this disk.
func Open(ctx context.Context, ref string, opts Options) (Store, error) {
	opts = opts.withDefaults()
	if strings.HasPrefix(ref, KubernetesScheme) {
		ns, set, err := ParseKubernetesRef(ref)
		if err != nil {
			return nil, err
		}
		return openKube(ctx, ns, set, opts)
	}
	if err := checkNotURL(ref); err != nil {
		return nil, err
	}
	if ref == "" {
		ref = DefaultPath
	}
	return openLocal(ref, opts)
}

// RefError is a --state value that names no store: bad input, refused
// before anything is read or written (the CLI exits 2).
type RefError struct {
	Ref string
	Msg string
}

func (e *RefError) Error() string { return fmt.Sprintf("--state %q: %s", e.Ref, e.Msg) }

// checkNotURL refuses a ref that starts like a URL (a scheme of two or more
// letters, then ':') other than kubernetes://. One-letter schemes are
// Windows drive letters; ./NAME keeps a file name holding a colon usable.
func checkNotURL(ref string) error {
	scheme, rest, ok := strings.Cut(ref, ":")
	if !ok || len(scheme) < 2 || !isScheme(scheme) {
		return nil
	}
	if strings.EqualFold(scheme, strings.TrimSuffix(KubernetesScheme, "://")) {
		ns, set, _ := strings.Cut(strings.TrimLeft(rest, "/"), "/")
		return &RefError{Ref: ref, Msg: fmt.Sprintf("a Kubernetes state is written %s%s/%s (lower-case, with //)", KubernetesScheme, orPlaceholder(strings.ToLower(ns), "NAMESPACE"), orPlaceholder(strings.ToLower(set), "SETNAME"))}
	}
	msg := fmt.Sprintf("unknown scheme %q; use a file path or %sNAMESPACE/SETNAME", scheme, KubernetesScheme)
	if !strings.HasPrefix(rest, "//") {
		msg += " (for a file whose name holds a colon, write ./" + ref + ")"
	}
	return &RefError{Ref: ref, Msg: msg}
}

// isScheme reports a URL scheme as RFC 3986 spells it.
func isScheme(s string) bool {
	for i, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return true
}

func orPlaceholder(s, p string) string {
	if s == "" {
		return p
	}
	return s
}

// ParseKubernetesRef splits kubernetes://NAMESPACE/SETNAME; errors are
// *RefError.
func ParseKubernetesRef(ref string) (namespace, set string, err error) {
	rest := strings.TrimPrefix(ref, KubernetesScheme)
	ns, set, ok := strings.Cut(rest, "/")
	if !ok || ns == "" || set == "" || strings.Contains(set, "/") {
		return "", "", &RefError{Ref: ref, Msg: fmt.Sprintf("expected %sNAMESPACE/SETNAME, e.g. %sinfra/prod", KubernetesScheme, KubernetesScheme)}
	}
	if !isDNSLabel(ns) {
		return "", "", &RefError{Ref: ref, Msg: fmt.Sprintf("namespace %q must be a DNS label (lower-case letters, digits, '-', at most 63)", ns)}
	}
	// The set name is a label value and part of the Lease name.
	if !isDNSLabel(set) {
		return "", "", &RefError{Ref: ref, Msg: fmt.Sprintf("set name %q must be lower-case letters, digits and '-', at most 63 characters", set)}
	}
	return ns, set, nil
}

func isDNSLabel(s string) bool {
	if len(s) == 0 || len(s) > 63 {
		return false
	}
	for i, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-' && i > 0 && i < len(s)-1:
		default:
			return false
		}
	}
	return true
}
