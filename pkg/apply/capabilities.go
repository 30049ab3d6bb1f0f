package apply

import (
	"context"
	"fmt"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// DestroyClient is the Client that delete, replace and prune require: the
// cascade check lists child collections to find what ARM deletes with a
// parent, which a resource group's listing never holds.
type DestroyClient interface {
	Client
	Lister
}

// DestroySchemas is the schema source delete, replace and prune require:
// it names the child types whose collections the cascade check lists.
type DestroySchemas interface {
	SchemaSource
	ChildTypeSource
}

// CapabilityError says what an engine lacks to check what a delete or
// replace would destroy. Nothing was written.
type CapabilityError struct {
	// Missing names each capability lacking.
	Missing []string
}

func (e *CapabilityError) Error() string {
	return "cannot check what a delete or replace would also delete: " + strings.Join(e.Missing, "; ") + "; nothing was written"
}

// New builds an engine and refuses one whose options allow a delete, a
// prune or a replace while its client cannot list child resources or its
// schema source cannot name child types: the cascade check would see
// nothing and pass. schemas may be nil only for an engine that never
// destroys.
func New(c Client, st state.Store, schemas SchemaSource, o Options) (*Engine, error) {
	e := &Engine{Client: c, Store: st, Schemas: schemas, Options: o}
	if o.destroys() {
		if _, _, err := e.destroyTools(); err != nil {
			return nil, fmt.Errorf("building the engine: %w", err)
		}
	}
	return e, nil
}

// destroys reports whether the options consent to any delete or replace.
func (o Options) destroys() bool {
	return o.deletes() || o.prunes() || o.AllowReplace || len(o.Replace) > 0
}

// destroyTools returns what the cascade check lists with, or a
// *CapabilityError naming what is missing. Every plan that deletes or
// replaces asks it, however the engine was built, so a missing
// capability refuses the plan instead of passing it.
func (e *Engine) destroyTools() (Lister, ChildTypeSource, error) {
	lister, _ := e.client().(Lister)
	src, _ := e.Schemas.(ChildTypeSource)
	var missing []string
	if lister == nil {
		missing = append(missing, cannotList(e.client()))
	}
	if src == nil {
		missing = append(missing, fmt.Sprintf("the schema source (%T) cannot name child types (apply.ChildTypeSource)", e.Schemas))
	}
	if len(missing) > 0 {
		return nil, nil, &CapabilityError{Missing: missing}
	}
	return lister, src, nil
}

// ListThrough lists a child collection through c. A wrapper that embeds a
// Client (to fence or pace its writes) forwards List with it, so wrapping
// never takes the capability away; a c that cannot list answers a
// *CapabilityError.
func ListThrough(ctx context.Context, c Client, collectionID, apiVersion string) ([]map[string]any, error) {
	l, ok := c.(Lister)
	if !ok {
		return nil, &CapabilityError{Missing: []string{cannotList(c)}}
	}
	return l.List(ctx, collectionID, apiVersion)
}

func cannotList(c Client) string {
	return fmt.Sprintf("the ARM client (%T) cannot list child resources (apply.Lister)", c)
}
