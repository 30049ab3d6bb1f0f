// Package state records, per ARM resource, what kubectl-azure last applied
// (L), the live baseline read right after that write (B) and a journal of
// writes in flight, so the planner can diff three ways (see
// docs/architecture.md and docs/state.md).
//
// Two backends implement Store:
//   - local (default): one JSON file, replaced atomically, guarded by an
//     exclusive file lock; see Open with a path.
//   - kubernetes: one ConfigMap per resource and a coordination.k8s.io/v1
//     Lease as the lock; see Open with kubernetes://NAMESPACE/SETNAME.
//
// Secret values never reach a backend in clear: callers build records with
// pkg/record (secret.Hash with the key from Store.SecretKey), and the stores
// hash whatever the secret rule still finds (a value typed Secret, a
// credential name or container) before anything is written. A local file
// that is not a state file of this tool is refused (*FormatError).
//
// Write protocol for pkg/apply (what makes a crash repairable):
//
//	unlock, err := st.Lock(ctx, "", 0)          // once per run
//	Repair(ctx, st, RepairFuncs{...})           // finish what a crashed run left
//	st.BeginIntent(ctx, Intent{ID, Op, ..., Record: rec}) // durable before the write is sent
//	... ARM PUT/PATCH/DELETE, wait for the LRO, GET ...
//	st.Put(ctx, rec)          // rec from record.Build with that GET; clears the intent in the same durable change
//	// or st.Delete(ctx, id)  // after a confirmed delete; also clears the intent
//	// or st.CommitIntent(ctx, id) // when nothing is to be recorded (write rejected)
//	unlock()
//
// Writes outside Lock (one-off commands) wait while another run holds the
// lock, up to Options.LockTimeout, in both backends; reads never wait.
// Within one locked run, the local backend appends changes to a journal
// and concurrent changes share one fsync (group commit); the whole file is
// rewritten only when the journal has outgrown it (Options.CompactBytes,
// CompactFactor) and at unlock.
//
// Package statetest starts the real etcd + kube-apiserver that the
// Kubernetes backend's tests (and pkg/apply's crash tests) run against.
package state

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/user"
	"strings"
	"sync"
	"time"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// Record is what the state holds for one ARM resource.
type Record struct {
	ID         string `json:"id"`
	Type       string `json:"type"`
	APIVersion string `json:"apiVersion"`
	// Subscription is the lower-cased subscription the resource lies in;
	// stores fill it from ID when empty, so prune and delete can stay
	// within the target subscription.
	Subscription string         `json:"subscription,omitempty"`
	Origin       string         `json:"origin,omitempty"` // manifest file#doc
	Set          string         `json:"set,omitempty"`    // manifest set name (for --prune); the Kubernetes backend reports its SETNAME
	LastApplied  map[string]any `json:"lastApplied,omitempty"`
	Baseline     map[string]any `json:"baseline,omitempty"`
	Etag         string         `json:"etag,omitempty"`
	// PreventDestroy is the prevent-destroy annotation as last applied:
	// delete, prune and replace stay refused, and so does deleting a
	// parent that would take the resource along, until a manifest
	// without the annotation has been applied. Older records lack it
	// (false).
	PreventDestroy bool      `json:"preventDestroy,omitempty"`
	Updated        time.Time `json:"updated"`
	// Serial counts the writes of this record: the store sets it to the
	// previous record's Serial + 1 on every Put, whatever the caller passed.
	Serial int64 `json:"serial"`
}

// Intent is one journal entry: a write about to be sent to ARM.
type Intent struct {
	ID         string    `json:"id"`
	Op         string    `json:"op"` // OpPut, OpPatch or OpDelete
	Type       string    `json:"type"`
	APIVersion string    `json:"apiVersion"`
	Started    time.Time `json:"started"`
	// Record is what to record once the write is confirmed: L = D, and the
	// metadata. Its Baseline is ignored; repair recomputes it from a GET.
	Record *Record `json:"record,omitempty"`
}

// Journal operations.
const (
	OpPut    = "put"
	OpPatch  = "patch"
	OpDelete = "delete"
)

// Store is a state backend. All methods are safe for concurrent use by the
// goroutines of one process; across processes, Lock serialises runs.
type Store interface {
	// Lock takes the run lock, waiting up to timeout (0: Options.LockTimeout)
	// and failing with a *LockedError naming the holder. holder "" means
	// Options.Holder. While held, the Kubernetes backend renews its Lease.
	Lock(ctx context.Context, holder string, timeout time.Duration) (unlock func() error, err error)
	// Get returns ErrNotFound when there is no record; IDs are case-insensitive.
	// Get and List return records the caller owns and may change.
	Get(ctx context.Context, id string) (*Record, error)
	// Put stores r (sanitising any Secret value), sets r.Serial and r.Updated
	// if zero, and clears an open intent for the same ID in the same write.
	Put(ctx context.Context, r *Record) error
	// Delete removes the record and any open intent for it; a missing record
	// is not an error.
	Delete(ctx context.Context, id string) error
	// List returns every record, sorted by lower-cased ID.
	List(ctx context.Context) ([]*Record, error)
	// BeginIntent journals a write before it is sent; durable on return.
	BeginIntent(ctx context.Context, in Intent) error
	// CommitIntent drops the intent for id; dropping a missing one is not an error.
	CommitIntent(ctx context.Context, id string) error
	// Intents lists uncommitted intents, oldest first; see Repair.
	Intents(ctx context.Context) ([]Intent, error)
	// SecretKey returns the store's random HMAC key, creating it once.
	SecretKey(ctx context.Context) ([]byte, error)
	Close() error
}

// BodyLoader is implemented by stores that can list records without their
// bodies (LastApplied and Baseline) and fill those in later, a few records
// at a time: a plan of many resources then holds the bodies of the ones it
// is deciding rather than of all of them.
type BodyLoader interface {
	// ListHeads returns what List returns, with LastApplied and Baseline
	// nil, and the function that fills them in from the same reading of
	// the store. What that reading holds goes once the function does.
	ListHeads(ctx context.Context) ([]*Record, LoadBodies, error)
}

// LoadBodies fills LastApplied and Baseline of records ListHeads returned,
// once each; any other record is an error.
type LoadBodies func(ctx context.Context, recs []*Record) error

// LockInspector is implemented by every backend: who holds the lock now.
type LockInspector interface {
	// LockHolder returns the current holder, or nil when nobody holds it.
	LockHolder(ctx context.Context) (*LockInfo, error)
}

// ForceUnlocker is implemented by backends whose lock can outlive its holder
// (a Kubernetes Lease does until it expires; a file lock never does).
type ForceUnlocker interface {
	// ForceUnlock releases the lock whoever holds it and returns who did.
	ForceUnlock(ctx context.Context) (*LockInfo, error)
}

// LockInfo describes a lock holder.
type LockInfo struct {
	Holder string    `json:"holder"`
	PID    int       `json:"pid,omitempty"`
	Host   string    `json:"host,omitempty"`
	Since  time.Time `json:"since"`
	// Renewed and Duration are set for leases.
	Renewed  time.Time     `json:"renewed,omitzero"`
	Duration time.Duration `json:"duration,omitempty"`
}

func (li *LockInfo) String() string {
	if li == nil {
		return "nobody"
	}
	s := fmt.Sprintf("%q", li.Holder)
	if !li.Since.IsZero() {
		s += " since " + li.Since.UTC().Format(time.RFC3339)
	}
	return s
}

// Errors. Compare with errors.Is.
var (
	ErrNotFound = errors.New("no state recorded for this resource")
	// ErrLockLost means another run took over an expired lease while this
	// run still thought it held it; nothing more is written.
	ErrLockLost = errors.New("state lock lost: another run took it over after our lease expired; rerun to reconcile")
)

// LockedError is returned when Lock times out.
type LockedError struct {
	Ref    string
	Holder *LockInfo
	Waited time.Duration
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("state %s is locked by %s (waited %s); wait for that run to finish and retry, raise --lock-timeout, "+
		"or if that run is dead and its lock has not expired, run 'kubectl azure state unlock'",
		e.Ref, e.Holder, e.Waited.Round(time.Millisecond))
}

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
	if o.LockTimeout == 0 {
		o.LockTimeout = d.LockTimeout
	}
	if o.LeaseDuration == 0 {
		o.LeaseDuration = d.LeaseDuration
	}
	if o.LockPoll == 0 {
		o.LockPoll = d.LockPoll
	}
	if o.QPS == 0 {
		o.QPS = d.QPS
	}
	if o.Burst == 0 {
		o.Burst = d.Burst
	}
	if o.CompressAbove == 0 {
		o.CompressAbove = d.CompressAbove
	}
	if o.SnapshotInterval == 0 {
		o.SnapshotInterval = d.SnapshotInterval
	}
	if o.CompactBytes == 0 {
		o.CompactBytes = d.CompactBytes
	}
	if o.CompactFactor == 0 {
		o.CompactFactor = d.CompactFactor
	}
	if o.Holder == "" {
		o.Holder = defaultHolder()
	}
	return o
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
// kubernetes://NAMESPACE/SETNAME.
func Open(ctx context.Context, ref string, opts Options) (Store, error) {
	opts = opts.withDefaults()
	if strings.HasPrefix(ref, KubernetesScheme) {
		ns, set, err := ParseKubernetesRef(ref)
		if err != nil {
			return nil, err
		}
		return openKube(ctx, ns, set, opts)
	}
	if strings.Contains(ref, "://") {
		return nil, fmt.Errorf("--state %q: unknown scheme; use a file path or %sNAMESPACE/SETNAME", ref, KubernetesScheme)
	}
	if ref == "" {
		ref = DefaultPath
	}
	return openLocal(ref, opts)
}

// ParseKubernetesRef splits kubernetes://NAMESPACE/SETNAME.
func ParseKubernetesRef(ref string) (namespace, set string, err error) {
	rest := strings.TrimPrefix(ref, KubernetesScheme)
	ns, set, ok := strings.Cut(rest, "/")
	if !ok || ns == "" || set == "" || strings.Contains(set, "/") {
		return "", "", fmt.Errorf("--state %q: expected %sNAMESPACE/SETNAME, e.g. %sinfra/prod", ref, KubernetesScheme, KubernetesScheme)
	}
	if !isDNSLabel(ns) {
		return "", "", fmt.Errorf("--state %q: namespace %q must be a DNS label (lower-case letters, digits, '-', at most 63)", ref, ns)
	}
	// The set name is a label value and part of the Lease name.
	if !isDNSLabel(set) {
		return "", "", fmt.Errorf("--state %q: set name %q must be lower-case letters, digits and '-', at most 63 characters", ref, set)
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

func validateRecord(r *Record) error {
	if r == nil || r.ID == "" {
		return errors.New("state: record has no ARM ID (bug in the caller)")
	}
	r.fillSubscription()
	return nil
}

// prepareIntent checks an intent and hashes any clear secret in its record,
// so both backends journal the same, safe thing.
func prepareIntent(in Intent, key func() ([]byte, error)) (Intent, error) {
	if in.ID == "" {
		return in, errors.New("state: intent has no ARM ID (bug in the caller)")
	}
	rec, err := sanitizedRecord(key, in.Record)
	if err != nil {
		return in, err
	}
	if rec != nil {
		rec.fillSubscription()
	}
	in.Record = rec
	if in.Started.IsZero() {
		in.Started = time.Now().UTC()
	}
	return in, nil
}

// FormatError is returned by Open for a local state file that is not a
// state file of this tool (or one it cannot read): the file, its backup and
// its journal are left untouched. The CLI exits 2 on it.
type FormatError struct {
	Path  string
	Found string // what the file holds instead
	Hint  string // what to do; "" for the generic advice
}

func (e *FormatError) Error() string {
	hint := e.Hint
	if hint == "" {
		hint = "it was left untouched; pass --state with the path of a kubectl-azure state file, or of a file that does not exist yet"
	}
	return fmt.Sprintf("--state %s is not a kubectl-azure state file: found %s (a state file starts with {\"format\": %q}); %s",
		e.Path, e.Found, FileFormat, hint)
}

// fillSubscription derives Subscription from ID for records written before
// the field existed (and by callers that left it empty).
func (r *Record) fillSubscription() {
	if r.Subscription == "" {
		r.Subscription = armid.SubscriptionOf(r.ID)
	}
}

// InScope reports whether r belongs to the given subscription and set:
// prune and delete consider only such records. An empty subscription
// matches every record; an empty set means DefaultSet. Records of
// tenant-level resources (no subscription) match only an empty
// subscription.
func (r *Record) InScope(subscription, set string) bool {
	if set == "" {
		set = DefaultSet
	}
	rs := r.Set
	if rs == "" {
		rs = DefaultSet
	}
	if rs != set {
		return false
	}
	if subscription == "" {
		return true
	}
	sub := r.Subscription
	if sub == "" {
		sub = armid.SubscriptionOf(r.ID)
	}
	return strings.EqualFold(sub, subscription)
}

// decodeRecord reads a stored record with exact numbers (json.Number).
func decodeRecord(b []byte) (*Record, error) {
	r := new(Record)
	if err := unmarshalNumbers(b, r); err != nil {
		return nil, err
	}
	r.fillSubscription()
	return r, nil
}

// recordHead decodes a stored record with its bodies left encoded: a
// plan decodes those when it gets to the record, and keeps only a few
// hundred bytes per record until then instead of their maps.
type recordHead struct {
	*Record
	LastApplied json.RawMessage `json:"lastApplied"`
	Baseline    json.RawMessage `json:"baseline"`
}

// skipped is a JSON value read past without being kept.
type skipped struct{}

func (*skipped) UnmarshalJSON([]byte) error { return nil }

func decodeHead(b []byte) (recordHead, error) {
	h := recordHead{Record: new(Record)}
	if err := json.Unmarshal(b, &h); err != nil {
		return h, err
	}
	h.fillSubscription()
	return h, nil
}

// decodeBodies fills the record's bodies from their encoded form, numbers
// exact.
func (h recordHead) decodeBodies() error {
	for _, b := range []struct {
		raw json.RawMessage
		to  *map[string]any
	}{{h.LastApplied, &h.Record.LastApplied}, {h.Baseline, &h.Record.Baseline}} {
		if len(b.raw) == 0 {
			continue
		}
		if err := unmarshalNumbers(b.raw, b.to); err != nil {
			return err
		}
	}
	return nil
}

// unmarshalNumbers is json.Unmarshal keeping numbers as json.Number, so
// big integers in L and B round-trip exactly.
func unmarshalNumbers(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}

// headsAndLoader hands out the heads, keeping each one's encoded bodies
// until they are loaded.
func headsAndLoader(where string, heads []recordHead) ([]*Record, LoadBodies, error) {
	out := make([]*Record, len(heads))
	pending := make(map[*Record]recordHead, len(heads))
	for i, h := range heads {
		out[i] = h.Record
		pending[h.Record] = h
	}
	var mu sync.Mutex
	load := func(_ context.Context, recs []*Record) error {
		mu.Lock()
		defer mu.Unlock()
		for _, r := range recs {
			h, ok := pending[r]
			if !ok {
				return fmt.Errorf("state %s: record %s was not listed by this reading (or its bodies were loaded already)", where, r.ID)
			}
			delete(pending, r)
			if err := h.decodeBodies(); err != nil {
				return fmt.Errorf("state %s: record %s is unreadable (%v); restore the state from its backup, or forget the record with `kubectl azure state rm %s` and import it again", where, r.ID, err, r.ID)
			}
		}
		return nil
	}
	return out, load, nil
}
