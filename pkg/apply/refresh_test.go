package apply

import (
	"context"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// TestRefreshOnly: --refresh-only plans only drift, writes nothing to
// Azure, never creates, deletes or adopts, and records the live body as
// the new baseline so the next plan is silent about that drift while a
// manifest edit not yet applied is still planned (issue 33 item 9).
func TestRefreshOnly(t *testing.T) {
	for _, tc := range []struct {
		name     string
		live     map[string]any // idA in Azure; nil: absent
		rec      map[string]any // idA's record; nil: none
		desired  map[string]any // idA's manifest; nil: not declared
		prune    bool
		action   plan.Action // idA in the refresh plan
		before   any         // the refresh change's before/after at tags.env
		after    any
		next     plan.Action // idA in the plain plan after the refresh
		recorded bool        // idA has a record after the refresh
	}{
		{name: "drift is accepted", live: body("env", "prod"), rec: body("env", "dev"), desired: body("env", "dev"),
			action: plan.ActionUpdate, before: "dev", after: "prod", next: plan.ActionNoOp, recorded: true},
		{name: "no drift, nothing to do", live: body("env", "dev"), rec: body("env", "dev"), desired: body("env", "dev"),
			action: plan.ActionNoOp, next: plan.ActionNoOp, recorded: true},
		{name: "a manifest edit is not applied, and stays planned", live: body("env", "dev"), rec: body("env", "dev"), desired: body("env", "test"),
			action: plan.ActionNoOp, next: plan.ActionUpdate, recorded: true},
		{name: "drift plus a manifest edit elsewhere: the edit stays planned", live: map[string]any{"location": "westeurope", "tags": map[string]any{"env": "prod", "app": "x"}},
			rec: map[string]any{"location": "westeurope", "tags": map[string]any{"env": "dev", "app": "x"}}, desired: map[string]any{"location": "westeurope", "tags": map[string]any{"env": "dev", "app": "y"}},
			action: plan.ActionUpdate, before: "dev", after: "prod", next: plan.ActionUpdate, recorded: true},
		{name: "deleted outside: never created", rec: body("env", "dev"), desired: body("env", "dev"),
			action: plan.ActionNoOp, next: plan.ActionCreate, recorded: true},
		{name: "not in state: never adopted", live: body("env", "dev"), desired: body("env", "dev"),
			action: plan.ActionNoOp, next: plan.ActionAdopt},
		{name: "undeclared with --prune: never deleted", live: body("env", "dev"), rec: body("env", "dev"), prune: true,
			recorded: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			a := newFakeARM()
			a.seed(rg1, body())
			recs := []*state.Record{recordOf(rg1, body(), DefaultSet)}
			if tc.live != nil {
				a.seed(idA, tc.live)
			}
			if tc.rec != nil {
				recs = append(recs, recordOf(idA, tc.rec, DefaultSet))
			}
			st := newMemStore(recs...)
			set := &manifest.Set{Resources: []*manifest.Resource{res(rg1, body())}}
			if tc.desired != nil {
				set.Resources = append(set.Resources, res(idA, tc.desired, rg1))
			}
			o := DefaultOptions()
			o.Subscription = sub
			o.Mode, o.Prune = plan.ModeRefreshOnly, tc.prune
			e := newEngine(a, st, o)
			p, err := e.Plan(ctx, set)
			if err != nil {
				t.Fatal(err)
			}
			var got *plan.Resource
			for i, r := range p.Plan.Resources {
				if armid.Equal(r.ID, idA) {
					got = &p.Plan.Resources[i]
				} else if r.Action != plan.ActionNoOp {
					t.Errorf("%s: %s in a refresh plan", r.ID, r.Action)
				}
			}
			if tc.desired != nil || tc.prune && tc.action != "" {
				if got == nil || got.Action != tc.action {
					t.Fatalf("refresh plan of %s: %+v, want %s", idA, got, tc.action)
				}
			} else if got != nil && got.Action != plan.ActionNoOp {
				t.Fatalf("refresh plan of undeclared %s: %s", idA, got.Action)
			}
			if tc.before != nil {
				if len(got.Changes) != 1 || got.Changes[0].Path != "tags.env" || got.Changes[0].Before != tc.before || got.Changes[0].After != tc.after || got.Changes[0].Reason != plan.ReasonRefreshDrift.Text() {
					t.Fatalf("refresh changes = %+v; want tags.env %v -> %v, drift only", got.Changes, tc.before, tc.after)
				}
			}
			if err := e.Check(p); err != nil {
				t.Fatalf("Check: %v", err)
			}
			if _, err := e.Execute(ctx, p); err != nil {
				t.Fatal(err)
			}
			if n := len(a.Calls("DELETE")) + len(a.Calls("PUT")) + len(a.Calls("PATCH")) + len(a.Calls("POST")); n > 0 {
				t.Fatalf("a refresh wrote to Azure: %v", a.calls)
			}
			if st.has(idA) != tc.recorded {
				t.Fatalf("record of %s after refresh: %v, want %v", idA, st.has(idA), tc.recorded)
			}
			if tc.desired == nil {
				return
			}
			o.Mode, o.Prune = plan.ModeNormal, false
			p2, err := newEngine(a, st, o).Plan(ctx, set)
			if err != nil {
				t.Fatal(err)
			}
			if got := actions(p2.Plan)[armid.Key(idA)]; got != tc.next {
				t.Fatalf("plan after the refresh: %s is %s, want %s (%+v)", idA, got, tc.next, p2.Plan.Resources)
			}
		})
	}
}
