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
// CompactFactor) and at unlock. The Kubernetes backend, within a locked
// run, writes each record with the resourceVersion it cached at Lock and
// group-commits intents in one journal ConfigMap; there the intent a Put,
// Delete or CommitIntent clears leaves the journal with its next batch or
// at unlock, so a crash in between leaves an intent that Repair settles by
// reading the resource.
//
// Package statetest starts the real etcd + kube-apiserver that the
// Kubernetes backend's tests (and pkg/apply's crash tests) run against.
package state

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
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
	PreventDestroy bool `json:"preventDestroy,omitempty"`
	// Accepted lists the body paths where apply --refresh-only accepted
	// Azure's value over the manifest's and the two still differ: plans
	// say so instead of claiming that Azure matches the manifests.
	Accepted []string `json:"accepted,omitempty"`
	// HashedAs is the ARM ID the record's secret hashes were salted with
	// (secret.ResourceKey) when that is not ID: state mv moves a record
	// without the clear values to hash again, so the hashes keep their
	// salt and compare through SecretKeyFor. Empty: ID. A record built
	// afresh (every write) is salted with its own ID again.
	HashedAs string    `json:"hashedAs,omitempty"`
	Updated  time.Time `json:"updated"`
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

// SetBound is implemented by stores that hold exactly one manifest set:
// a Kubernetes state names its set (kubernetes://NAMESPACE/SET), and its
// ConfigMaps, Lease and secret-hashing key are that set's own, so a record
// cannot be filed under another set by changing Record.Set.
type SetBound interface {
	// FixedSet is the set every record of the store belongs to.
	FixedSet() string
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
	ErrReadOnly = errors.New("state: opened read-only (bug in the caller: this command must not write state)")
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

func validateRecord(r *Record) error {
	if r == nil || r.ID == "" {
		return errors.New("state: record has no ARM ID (bug in the caller)")
	}
	r.fillSubscription()
	return nil
}

// prepareIntent checks an intent and hashes any clear secret in its record,
// so both backends journal the same, safe thing.
func prepareIntent(in Intent, key func() ([]byte, error), o Options) (Intent, error) {
	if in.ID == "" {
		return in, errors.New("state: intent has no ARM ID (bug in the caller)")
	}
	rec, err := sanitizedRecord(key, in.Record, o)
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

// SecretKeyFor is the key to compare r's secret hashes with, given the
// state's key (Store.SecretKey): for a moved record, the resource key of
// the ID its hashes were made under, which secret.ResourceKey then keeps
// as it is; otherwise the state key itself. A nil r gives the state key.
func SecretKeyFor(stateKey []byte, r *Record) []byte {
	if r == nil || r.HashedAs == "" || armid.Equal(r.HashedAs, r.ID) {
		return stateKey
	}
	return secret.ResourceKey(stateKey, r.HashedAs)
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
