package apply

import (
	"context"
	"errors"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// Client is what the engine needs from Azure Resource Manager, in the
// engine's own terms: the engine decides from these types and error
// kinds, never from an HTTP client's. pkg/apply/armclient adapts the ARM
// client to it; tests use in-memory fakes.
type Client interface {
	// ReadMany reads many resources at once, by collection where that is
	// cheaper; results are in the order of reqs.
	ReadMany(ctx context.Context, reqs []ReadRequest, opt ReadOptions) []ReadResult
	// NewReadSession starts one read-only pass (a plan): list pages read
	// by one ReadMany call serve the next. expect are every read the pass
	// will make (ID and APIVersion), so that each call plans its lists
	// for the pass. Never carry it across a write.
	NewReadSession(expect []ReadRequest) ReadSession
	// Get reads a resource; a 404 is an error for which
	// errors.Is(err, ErrNotFound) holds.
	Get(ctx context.Context, id, apiVersion string) (*Response, error)
	// Put and Patch write a resource, following a long-running operation
	// to its end.
	Put(ctx context.Context, id, apiVersion string, body map[string]any, o WriteOptions) (*Response, error)
	Patch(ctx context.Context, id, apiVersion string, body map[string]any, o WriteOptions) (*Response, error)
	Delete(ctx context.Context, id, apiVersion string) (*Response, error)
	// Post calls an action (id ends with its name, e.g. .../listKeys).
	Post(ctx context.Context, id, apiVersion string, body map[string]any) (*Response, error)
	// ListResourceGroup lists what a resource group contains (ids and
	// types), which is what ARM deletes with it.
	ListResourceGroup(ctx context.Context, subscription, resourceGroup string) ([]map[string]any, error)
	// PatchUnsupported and MarkPatchUnsupported remember, per type, that a
	// PATCH answered 405 in this run.
	PatchUnsupported(resourceType string) bool
	MarkPatchUnsupported(resourceType string)
}

// ReadRequest is one resource to read.
type ReadRequest struct {
	ID         string
	APIVersion string
	// Need are the owned body paths the diff compares (pkg/diff's display
	// syntax); a collection item lacking one is read with a GET instead.
	Need []string
	// Envelope lets ARM's generic resource list (envelopes, no
	// properties) serve the read when every Need path is in the envelope;
	// WrittenAt (the record's last write) keeps it from doing so while
	// ARM's cache may not show that write yet.
	Envelope  bool
	WrittenAt time.Time
}

// ReadResult is the live state of one requested resource.
type ReadResult struct {
	// Body is the resource as ARM returned it; nil when it does not exist
	// or the read failed.
	Body map[string]any
	Etag string
	// Exists is false when the resource is absent (then Err is nil).
	Exists bool
	Err    error
	// Envelope marks a Body that is only the resource's envelope (from the
	// generic list): the rest of the resource was not read.
	Envelope bool
}

// ReadOptions tunes ReadMany.
type ReadOptions struct {
	// Disable reads every resource with its own GET (no collection reads).
	Disable bool
	// Session, from Client.NewReadSession, carries list pages between the
	// calls of one read-only pass; nil for none.
	Session ReadSession
	// CacheLag is how long ARM's generic list may lag a write (0: the ARM
	// client's default; negative: no lag).
	CacheLag time.Duration
}

// ReadSession is a Client's memory of one read-only pass; only the Client
// that made it looks inside.
type ReadSession any

// WriteOptions are per-call options of PUT and PATCH.
type WriteOptions struct {
	// IfMatch sends If-Match (an etag): a mismatch is an error for which
	// errors.Is(err, ErrPreconditionFailed) holds. "" sends none.
	IfMatch string
}

// Response is ARM's answer to a call. For writes followed as long-running
// operations it is the final answer.
type Response struct {
	StatusCode int
	// Body is the answer's JSON object (nil when empty or not an object);
	// ETag the ETag header, else the body's "etag".
	Body map[string]any
	ETag string
	// LRO is set when the write was followed as a long-running operation.
	LRO bool
	// ReadBack is set when Body is the resource as a GET returned it after
	// the operation succeeded: it can be recorded as the post-write live
	// state without another read.
	ReadBack bool
}

// The kinds of error a Client reports; test them with errors.Is. The
// errors keep the Client's own message.
var (
	// ErrNotFound: the resource (or its resource group) does not exist.
	ErrNotFound = errors.New("not found")
	// ErrPreconditionFailed: If-Match did not match (a 412).
	ErrPreconditionFailed = errors.New("precondition failed")
	// ErrMethodNotAllowed: the type does not take this method (a 405).
	ErrMethodNotAllowed = errors.New("method not allowed")
	// ErrOperationEnded: the write's long-running operation ended Failed
	// or Canceled, an answer rather than a lost one.
	ErrOperationEnded = errors.New("the long-running operation ended without success")
)

// Status is where one resource is in an apply (plan's vocabulary).
type Status = plan.Status

// Statuses reported to Progress: for writing the detail is the method, for
// failed the error scrubbed of secrets, for skipped why.
const (
	StatusWaiting = plan.StatusWaiting
	StatusWriting = plan.StatusWriting
	StatusPolling = plan.StatusPolling
	StatusDone    = plan.StatusDone
	StatusFailed  = plan.StatusFailed
	StatusSkipped = plan.StatusSkipped
)

// Progress receives per-resource events while a plan executes. Execute
// calls it from many goroutines: implementations must be safe for
// concurrent use. name is the manifest name, "" when there is none.
type Progress interface {
	Event(id, name string, status Status, detail string)
}
