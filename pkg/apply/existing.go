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
		t := &item{id: r.ID, key: k, typ: r.Type, ver: r.APIVersion, name: r.Name,
			planned: plan.Resource{Action: plan.ActionNoOp}, unselected: true}
		t.schema, t.plugin = e.lookup(t.typ, t.ver)
		if err := e.read(ctx, t); err != nil {
			return nil, fmt.Errorf("%s, annotated %s: %w", existingDisplay(r), manifest.AnnotationExisting, err)
		}
		if t.live == nil {
			return nil, fmt.Errorf("%s is annotated %s: true, but it does not exist in Azure; nothing was written. Create it first, or remove the annotation and give it a spec.body so this set creates it", existingDisplay(r), manifest.AnnotationExisting)
		}
		t.read = true
		byKey[k], out[k] = t, t
	}
	return out, nil
}

func existingDisplay(r *manifest.Resource) string {
	s := r.Type + "/" + r.Name
	if r.Origin.File != "" {
		s += " (" + r.Origin.String() + ")"
	}
	return s
}
