package apply

import (
	"context"
	"errors"
	"fmt"

	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/record"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// Repair settles writes a crashed run journaled but never recorded: it GETs
// each such resource and records it, so nothing ARM accepted is ever lost
// from state and nothing is created twice. Call it with the lock held.
func (e *Engine) Repair(ctx context.Context) ([]state.RepairAction, error) {
	key, err := e.Store.SecretKey(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the state's secret key: %w", err)
	}
	actions, err := state.Repair(ctx, e.Store, state.RepairFuncs{
		Get: func(ctx context.Context, id, apiVersion string) (map[string]any, string, bool, error) {
			resp, err := e.client().Get(ctx, id, apiVersion)
			if errors.Is(err, ErrNotFound) {
				return nil, "", false, nil
			}
			if err == nil && (resp == nil || resp.Body == nil) {
				err = errNoBody
			}
			if err != nil {
				return nil, "", false, err
			}
			return resp.Body, resp.ETag, true, nil
		},
		// B through the one record builder, so secrets Azure returns are
		// hashed as after any write.
		Project: func(rec *state.Record, owned, live map[string]any) map[string]any {
			s, p := e.lookup(rec.Type, rec.APIVersion)
			r, err := record.Build(record.Input{ID: rec.ID, Type: rec.Type, APIVersion: rec.APIVersion,
				Desired: owned, Live: live, Schema: s, Plugin: p, Key: key})
			if err != nil {
				return nil
			}
			return r.Baseline
		},
		// The intended L landed when live, compared with it the way a first
		// plan compares a manifest with Azure, shows no change, and its
		// provisioning did not fail: a Failed or Canceled resource may carry
		// every intended value and still not be what was asked for, so its
		// write is kept for the next plan to send again (as in the run
		// itself, see settleWrite).
		Landed: func(in state.Intent, live map[string]any) bool {
			if in.Record == nil || failedState(live) {
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
