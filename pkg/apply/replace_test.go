package apply

import (
	"context"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// TestReplaceRequested: --replace forces the named resource's replacement
// (delete, then create) with no other consent flag, and leaves the rest of
// the plan alone; prevent-destroy and the cascade check still refuse it
// (issue 33 item 9).
func TestReplaceRequested(t *testing.T) {
	unmanagedChild := idOf("rg1", "Microsoft.Storage/storageAccounts", "stray")
	for _, tc := range []struct {
		name    string
		records []*state.Record
		extra   []string // live in Azure, in no manifest or record
		set     []*manifest.Resource
		replace []string
		refuse  string // "" when Check must pass
	}{
		{
			name:    "named resource is replaced without --allow-replace",
			records: []*state.Record{recordOf(rg1, body(), DefaultSet), recordOf(idA, body(), DefaultSet), recordOf(idB, body(), DefaultSet)},
			set:     []*manifest.Resource{res(rg1, body()), res(idA, body(), rg1), res(idB, body(), rg1)},
			replace: []string{idA},
		},
		{
			name:    "ID compares without case",
			records: []*state.Record{recordOf(rg1, body(), DefaultSet), recordOf(idA, body(), DefaultSet), recordOf(idB, body(), DefaultSet)},
			set:     []*manifest.Resource{res(rg1, body()), res(idA, body(), rg1), res(idB, body(), rg1)},
			replace: []string{strings.ToUpper(idA)},
		},
		{
			name:    "annotated prevent-destroy refuses",
			records: []*state.Record{recordOf(rg1, body(), DefaultSet), recordOf(idA, body(), DefaultSet), recordOf(idB, body(), DefaultSet)},
			set:     []*manifest.Resource{res(rg1, body()), protectedRes(idA, body(), rg1), res(idB, body(), rg1)},
			replace: []string{idA},
			refuse:  "prevent-destroy",
		},
		{
			name:    "prevent-destroy recorded in state refuses",
			records: []*state.Record{recordOf(rg1, body(), DefaultSet), protectedRecord(idA, body(), DefaultSet), recordOf(idB, body(), DefaultSet)},
			set:     []*manifest.Resource{res(rg1, body()), res(idA, body(), rg1), res(idB, body(), rg1)},
			replace: []string{idA},
			refuse:  "prevent-destroy",
		},
		{
			name:    "a parent holding unmanaged children refuses",
			records: []*state.Record{recordOf(rg1, body(), DefaultSet), recordOf(idA, body(), DefaultSet), recordOf(idB, body(), DefaultSet)},
			extra:   []string{unmanagedChild},
			set:     []*manifest.Resource{res(rg1, body()), res(idA, body(), rg1), res(idB, body(), rg1)},
			replace: []string{rg1},
			refuse:  "--allow-cascade",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			a := newFakeARM()
			for _, r := range tc.records {
				a.seed(r.ID, body())
			}
			for _, id := range tc.extra {
				a.seed(id, body())
			}
			o := DefaultOptions()
			o.Subscription = sub
			o.Replace = tc.replace
			e := newEngine(a, newMemStore(tc.records...), o)
			p, err := e.Plan(ctx, &manifest.Set{Resources: tc.set})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range p.Plan.Resources {
				named := false
				for _, id := range tc.replace {
					named = named || strings.EqualFold(id, r.ID)
				}
				switch {
				case named && (r.Action != plan.ActionReplace || !strings.Contains(r.Reason, plan.ReasonReplaceRequested.Text()) || len(r.Changes) == 0):
					t.Errorf("%s: action %s, reason %q, %d changes; want replace, %q, changes", r.ID, r.Action, r.Reason, len(r.Changes), plan.ReasonReplaceRequested.Text())
				case !named && r.Action != plan.ActionNoOp:
					t.Errorf("%s: action %s; want no-op (not named by --replace)", r.ID, r.Action)
				}
			}
			err = e.Check(p)
			if tc.refuse != "" {
				if err == nil || !strings.Contains(err.Error(), tc.refuse) {
					t.Fatalf("Check = %v, want a refusal mentioning %q", err, tc.refuse)
				}
				if _, err := e.Execute(ctx, p); err == nil {
					t.Fatal("Execute ran a refused plan")
				}
				if n := len(a.Calls("DELETE")) + len(a.Calls("PUT")) + len(a.Calls("PATCH")); n > 0 {
					t.Fatalf("a refused plan wrote: %v", a.calls)
				}
				return
			}
			if err != nil {
				t.Fatalf("Check = %v; --replace is the consent", err)
			}
			if _, err := e.Execute(ctx, p); err != nil {
				t.Fatal(err)
			}
			if d, pu := a.Calls("DELETE"), a.Calls("PUT"); len(d) != 1 || len(pu) != 1 || !strings.EqualFold(d[0], "DELETE "+idA) && !strings.Contains(strings.ToLower(d[0]), strings.ToLower(idA)) {
				t.Fatalf("calls DELETE %v PUT %v; want one delete and one put of %s", d, pu, idA)
			}
		})
	}
}
