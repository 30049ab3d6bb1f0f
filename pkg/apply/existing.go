package apply

import (
	"context"
	"fmt"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// readExisting reads every resource the set declares existing
// (azure.kubectl.io/existing) once, as the run's read-only items: others
// take live values and actions from them, the plan never writes, prints or
// records them. One that is absent refuses the plan before anything is
// written, as a deployment naming an existing resource that is not there
// fails.
func (e *Engine) readExisting(ctx context.Context, set *manifest.Set, byKey map[string]*item) (map[string]*item, error) {
	if len(set.Existing) == 0 {
		return nil, nil
	}
	out := make(map[string]*item, len(set.Existing))
	for _, r := range set.Existing {
		k := armid.Key(r.ID)
		if byKey[k] != nil {
			continue // also declared with a body: the managed one wins (the loader refuses duplicates)
		}
		t, err := e.readOnlyItem(ctx, r.ID, r.Type, r.APIVersion, r.Name)
		if err != nil {
			return nil, fmt.Errorf("%s, annotated %s: %w", existingDisplay(r), manifest.AnnotationExisting, err)
		}
		if t.live == nil {
			return nil, fmt.Errorf("%s is annotated %s: true, but it does not exist in Azure; nothing was written. Create it first, or remove the annotation and give it a spec.body so this set creates it", existingDisplay(r), manifest.AnnotationExisting)
		}
		byKey[k], out[k] = t, t
	}
	return out, nil
}

// readOnlyItem reads a resource the run takes values from but never plans
// or writes (an existing declaration, or one -l leaves out): a no-op item.
func (e *Engine) readOnlyItem(ctx context.Context, id, typ, ver, name string) (*item, error) {
	t := &item{id: id, key: armid.Key(id), typ: typ, ver: ver, name: name,
		planned: plan.Resource{Action: plan.ActionNoOp}, unselected: true}
	t.schema, t.plugin = e.lookup(t.typ, t.ver)
	if err := e.read(ctx, t); err != nil {
		return nil, err
	}
	t.read = true
	return t, nil
}

func existingDisplay(r *manifest.Resource) string {
	s := r.Type + "/" + r.Name
	if r.Origin.File != "" {
		s += " (" + r.Origin.String() + ")"
	}
	return s
}
