package apply

import (
	"context"

	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// ARM is what the engine needs from an ARM client. *arm.Client implements
// it; tests use an in-memory fake so the engine's decisions can be checked
// without HTTP.
type ARM interface {
	// ReadMany reads many resources at once, by collection where that is
	// cheaper; results are in the order of reqs.
	ReadMany(ctx context.Context, reqs []arm.ReadRequest, opt arm.ReadManyOptions) []arm.ReadResult
	// Get reads a resource; a 404 is an error for which arm.IsNotFound is true.
	Get(ctx context.Context, id, apiVersion string) (*arm.Response, error)
	Put(ctx context.Context, id, apiVersion string, body map[string]any, o *arm.RequestOptions) (*arm.Response, error)
	Patch(ctx context.Context, id, apiVersion string, body map[string]any, o *arm.RequestOptions) (*arm.Response, error)
	Delete(ctx context.Context, id, apiVersion string, o *arm.RequestOptions) (*arm.Response, error)
	// Post calls an action (id ends with its name, e.g. .../listKeys).
	Post(ctx context.Context, id, apiVersion string, body map[string]any, o *arm.RequestOptions) (*arm.Response, error)
	// ListResourceGroup lists what a resource group contains (ids and types),
	// which is what ARM deletes with it.
	ListResourceGroup(ctx context.Context, subscription, resourceGroup string) ([]map[string]any, error)
	// PatchUnsupported and MarkPatchUnsupported remember, per type, that a
	// PATCH answered 405 in this run.
	PatchUnsupported(resourceType string) bool
	MarkPatchUnsupported(resourceType string)
}

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
