package apply

import (
	"context"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// protectedRes is a manifest resource annotated prevent-destroy.
func protectedRes(id string, b map[string]any, deps ...string) *manifest.Resource {
	r := res(id, b, deps...)
	r.Annotations = map[string]string{AnnotationPreventDestroy: "true"}
	return r
}

func protectedRecord(id string, b map[string]any, set string) *state.Record {
	r := recordOf(id, b, set)
	r.PreventDestroy = true
	return r
}

// TestPreventDestroyByAnyRoute: a plan that destroys a protected resource
// by any route — its parent deleted or replaced, its document dropped and
// pruned, its manifest moved to a new name — is refused before any write,
// whatever consent flags are given (issue 27 items 1 and 2).
func TestPreventDestroyByAnyRoute(t *testing.T) {
	all := func(o *Options) {
		o.AllowReplace, o.AllowCascade, o.AllowDeleteUnmanaged, o.AllowPruneAll, o.Adopt = true, true, true, true, true
	}
	for _, tc := range []struct {
		name    string
		records []*state.Record
		set     []*manifest.Resource
		opts    func(*Options)
		schema  bool // location is create-only per the schema
	}{
		{
			name:    "group replaced with --allow-replace takes an annotated child",
			records: []*state.Record{recordOf(rg1, body(), DefaultSet), recordOf(idA, body(), DefaultSet)},
			set:     []*manifest.Resource{res(rg1, map[string]any{"location": "northeurope"}), protectedRes(idA, body(), rg1)},
			schema:  true,
		},
		{
			name:    "group deleted takes a child protected in state",
			records: []*state.Record{recordOf(rg1, body(), DefaultSet), protectedRecord(idA, body(), DefaultSet)},
			set:     []*manifest.Resource{res(rg1, body())},
			opts:    func(o *Options) { o.Mode = plan.ModeDelete },
		},
		{
			name:    "group deleted takes a child protected in another set's state",
			records: []*state.Record{recordOf(rg1, body(), DefaultSet), protectedRecord(idA, body(), "other")},
			set:     []*manifest.Resource{res(rg1, body())},
			opts:    func(o *Options) { o.Mode = plan.ModeDelete },
		},
		{
			name:    "document dropped, then --prune",
			records: []*state.Record{recordOf(rg1, body(), DefaultSet), protectedRecord(idA, body(), DefaultSet)},
			set:     []*manifest.Resource{res(rg1, body())},
			opts:    func(o *Options) { o.Prune = true },
		},
		{
			name:    "renamed, then --prune",
			records: []*state.Record{recordOf(rg1, body(), DefaultSet), protectedRecord(idA, body(), DefaultSet)},
			set:     []*manifest.Resource{res(rg1, body()), protectedRes(idB, body(), rg1)},
			opts:    func(o *Options) { o.Prune = true },
		},
		{
			name:    "annotation removed and deleted in the same run",
			records: []*state.Record{recordOf(rg1, body(), DefaultSet), protectedRecord(idA, body(), DefaultSet)},
			set:     []*manifest.Resource{res(idA, body())},
			opts:    func(o *Options) { o.Mode = plan.ModeDelete },
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newFakeARM()
			for _, r := range tc.records {
				a.seed(r.ID, body())
			}
			o := DefaultOptions()
			o.Subscription = sub
			all(&o)
			if tc.opts != nil {
				tc.opts(&o)
			}
			e := newEngine(a, newMemStore(tc.records...), o)
			if tc.schema {
				e.Schemas = schema.Default()
			}
			p := mustPlan(t, e, tc.set...)
			err := e.Check(p)
			if err == nil || !strings.Contains(err.Error(), "prevent-destroy") || !strings.Contains(err.Error(), "userAssignedIdentities/a") {
				t.Fatalf("Check = %v, want a prevent-destroy refusal naming %s", err, idA)
			}
			if _, err := e.Execute(context.Background(), p); err == nil {
				t.Fatal("Execute ran a refused plan")
			}
			if n := len(a.Calls("DELETE")) + len(a.Calls("PUT")) + len(a.Calls("PATCH")); n > 0 {
				t.Fatalf("a refused plan wrote: %v", a.calls)
			}
		})
	}
}

// TestPreventDestroyIsRecordedUntilLifted: applying the annotation stores
// it in state even when Azure needs no write; applying the manifest
// without it lifts it, and only then may the resource be pruned.
func TestPreventDestroyIsRecordedUntilLifted(t *testing.T) {
	ctx := context.Background()
	a := newFakeARM()
	a.seed(rg1, body())
	a.seed(idA, body())
	st := newMemStore(recordOf(rg1, body(), DefaultSet), recordOf(idA, body(), DefaultSet))
	o := DefaultOptions()
	o.Subscription = sub
	run := func(o Options, set ...*manifest.Resource) error {
		t.Helper()
		e := newEngine(a, st, o)
		p, err := e.Plan(ctx, &manifest.Set{Resources: set})
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.Execute(ctx, p)
		return err
	}
	e := newEngine(a, st, o)
	p, err := e.Plan(ctx, &manifest.Set{Resources: []*manifest.Resource{res(rg1, body()), protectedRes(idA, body(), rg1)}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Plan.HasChanges() || len(p.StateOnly()) != 1 {
		t.Fatalf("adding the annotation: changes %v, state-only %q; want none and one", p.Plan.HasChanges(), p.StateOnly())
	}
	if err := run(o, res(rg1, body()), protectedRes(idA, body(), rg1)); err != nil {
		t.Fatal(err)
	}
	if r, _ := st.Get(ctx, idA); r == nil || !r.PreventDestroy {
		t.Fatalf("applying the annotation on an unchanged resource did not record it: %+v", r)
	}
	if len(a.Calls("PUT"))+len(a.Calls("PATCH")) > 0 {
		t.Fatalf("recording protection wrote to Azure: %v", a.calls)
	}
	prune := o
	prune.Prune = true
	if err := run(prune, res(rg1, body())); err == nil || !strings.Contains(err.Error(), "prevent-destroy") {
		t.Fatalf("prune of a resource protected in state: err = %v", err)
	}
	if err := run(o, res(rg1, body()), res(idA, body(), rg1)); err != nil {
		t.Fatal(err)
	}
	if r, _ := st.Get(ctx, idA); r == nil || r.PreventDestroy {
		t.Fatalf("applying the manifest without the annotation did not lift it: %+v", r)
	}
	if err := run(prune, res(rg1, body())); err != nil {
		t.Fatalf("prune after lifting: %v", err)
	}
	if st.has(idA) {
		t.Error("the pruned resource is still recorded")
	}
}

// TestCheckRefusesUnidentifiedCascade: a listing entry the check cannot
// identify is never taken as nothing.
func TestCheckRefusesUnidentifiedCascade(t *testing.T) {
	a := &garbledList{fakeARM: newFakeARM()}
	a.seed(rg1, body())
	o := DefaultOptions()
	o.Mode = plan.ModeDelete
	e := newEngine(a, newMemStore(recordOf(rg1, body(), DefaultSet)), o)
	p := mustPlan(t, e, res(rg1, body()))
	if err := e.Check(p); err == nil || !strings.Contains(err.Error(), "--allow-cascade") {
		t.Fatalf("Check = %v, want a cascade refusal", err)
	}
}

type garbledList struct{ *fakeARM }

func (g *garbledList) ListResourceGroup(ctx context.Context, s, rg string) ([]map[string]any, error) {
	out, err := g.fakeARM.ListResourceGroup(ctx, s, rg)
	return append(out, map[string]any{"name": "something", "type": "Microsoft.Web/sites"}), err
}

// TestOneSetDoesNotTakeOverAnother: a manifest of set "b" declaring a
// resource recorded under set "a" is refused without --adopt; with it the
// record moves to "b"; and a prune of "b" never deletes "a"'s records
// (issue 27 item 4).
func TestOneSetDoesNotTakeOverAnother(t *testing.T) {
	ctx := context.Background()
	a := newFakeARM()
	a.seed(rg1, body())
	a.seed(idA, body("team", "a"))
	st := newMemStore(recordOf(rg1, body(), "a"), recordOf(idA, body("team", "a"), "a"))
	o := DefaultOptions()
	o.Subscription, o.Set = sub, "b"
	e := newEngine(a, st, o)
	p, err := e.Plan(ctx, &manifest.Set{Resources: []*manifest.Resource{res(idA, body("team", "b"))}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Check(p); err == nil || !strings.Contains(err.Error(), "under another set") || !strings.Contains(err.Error(), "--adopt") {
		t.Fatalf("Check = %v, want a refusal naming the other set and --adopt", err)
	}
	if _, err := e.Execute(ctx, p); err == nil || len(a.Calls("PUT"))+len(a.Calls("PATCH")) > 0 {
		t.Fatalf("a takeover ran without --adopt: %v, calls %v", err, a.calls)
	}
	if r, _ := st.Get(ctx, idA); r.Set != "a" {
		t.Fatalf("record moved to set %q", r.Set)
	}

	// Deleting another set's resource needs the unmanaged consent.
	del := o
	del.Mode = plan.ModeDelete
	e = newEngine(a, st, del)
	p, err = e.Plan(ctx, &manifest.Set{Resources: []*manifest.Resource{res(idA, body())}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Check(p); err == nil || !strings.Contains(err.Error(), "--allow-delete-unmanaged") {
		t.Fatalf("delete of another set's resource: Check = %v", err)
	}

	// A prune of set b with a manifest for something else leaves a's records alone.
	pr := o
	pr.Prune, pr.AllowPruneAll = true, true
	e = newEngine(a, st, pr)
	p, err = e.Plan(ctx, &manifest.Set{Resources: []*manifest.Resource{res(idB, body())}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Execute(ctx, p); err != nil {
		t.Fatal(err)
	}
	if len(a.Calls("DELETE")) > 0 || !st.has(idA) {
		t.Fatalf("prune of set b deleted set a's resources: %v", a.calls)
	}

	// With --adopt the record moves, and says so in its set.
	ad := o
	ad.Adopt = true
	e = newEngine(a, st, ad)
	p, err = e.Plan(ctx, &manifest.Set{Resources: []*manifest.Resource{res(idA, body("team", "b"))}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Execute(ctx, p); err != nil {
		t.Fatal(err)
	}
	if r, _ := st.Get(ctx, idA); r.Set != "b" {
		t.Fatalf("after --adopt the record is in set %q, want b", r.Set)
	}
}

// TestPruneOfAGroupKeepingDeclaredResourcesIsRefused: dropping a resource
// group's document while resources in it are still declared would have
// the group's prune delete them too.
func TestPruneOfAGroupKeepingDeclaredResourcesIsRefused(t *testing.T) {
	a := newFakeARM()
	a.seed(rg1, body())
	a.seed(idA, body())
	st := newMemStore(recordOf(rg1, body(), DefaultSet), recordOf(idA, body(), DefaultSet))
	o := DefaultOptions()
	o.Prune, o.AllowCascade = true, true
	e := newEngine(a, st, o)
	p := mustPlan(t, e, res(idA, body()))
	if err := e.Check(p); err == nil || !strings.Contains(err.Error(), "still declare") {
		t.Fatalf("Check = %v, want a refusal: the prune of the group would delete a declared resource", err)
	}
}

// TestDeleteOfAGroupWithADeclaredAbsentResource: `delete -f` of a set
// whose group holds a declared resource that does not exist (its create
// failed earlier) deletes the group: delete keeps nothing the manifests
// declare, so the prune refusal above does not apply.
func TestDeleteOfAGroupWithADeclaredAbsentResource(t *testing.T) {
	a := newFakeARM()
	a.seed(rg1, body())
	// The state may still hold a record of it (deleted outside the tool).
	st := newMemStore(recordOf(rg1, body(), DefaultSet), recordOf(idA, body(), DefaultSet))
	o := DefaultOptions()
	o.Mode, o.AllowCascade = plan.ModeDelete, true
	e := newEngine(a, st, o)
	p := mustPlan(t, e, res(rg1, body()), res(idA, body()))
	if err := e.Check(p); err != nil {
		t.Fatalf("Check = %v, want the delete allowed", err)
	}
	// The identity does not exist, so ARM deletes nothing of it with the
	// group: the plan must not show it among what goes with the group.
	for _, r := range p.Plan.Resources {
		for _, c := range r.Cascade {
			if armid.Key(c.ID) == armid.Key(idA) {
				t.Errorf("%s lists %s as deleted with it, but it does not exist", r.ID, c.ID)
			}
		}
	}
	// The delete leaves no record behind: neither the group's nor the
	// stale one of the absent identity.
	if _, err := e.Execute(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{rg1, idA} {
		if st.has(id) {
			t.Errorf("state still holds %s after the delete", id)
		}
	}
}
