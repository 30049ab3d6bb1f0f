package apply

import (
	"context"

	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// Repair settles writes a crashed run journaled but never recorded (DESIGN
// §5): it GETs each such resource and records it, so nothing ARM accepted is
// ever lost from state and nothing is created twice. Call it with the lock held.
func (e *Engine) Repair(ctx context.Context) ([]state.RepairAction, error) {
	actions, err := state.Repair(ctx, e.Store, state.RepairFuncs{
		Get: func(ctx context.Context, id, apiVersion string) (map[string]any, string, bool, error) {
			resp, err := e.ARM.Get(ctx, id, apiVersion)
			if arm.IsNotFound(err) {
				return nil, "", false, nil
			}
			if err != nil {
				return nil, "", false, err
			}
			return resp.Body, resp.ETag, true, nil
		},
		Project: func(_ *state.Record, owned, live map[string]any) map[string]any {
			return diff.Project(live, diff.Owned(owned, nil))
		},
		// The intended L landed when live, compared with it the way a first
		// plan compares a manifest with Azure, shows no change.
		Landed: func(in state.Intent, live map[string]any) bool {
			if in.Record == nil {
				return false
			}
			s, p := e.lookup(in.Type, in.APIVersion)
			r := diff.Compute(diff.Input{Desired: in.Record.LastApplied, Live: live, Schema: s, Plugin: p})
			return len(r.Changes) == 0
		},
	})
	for _, a := range actions {
		e.warnf("repaired an interrupted %s of %s: %s", a.Intent.Op, a.Intent.ID, a.Outcome)
	}
	return actions, err
}
