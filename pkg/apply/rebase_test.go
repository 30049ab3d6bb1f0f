package apply

import (
	"context"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// A tag drifted (recorded as the baseline) and was then set back outside
// to the manifest's value: nothing is written, but the apply records the
// baseline again, so a later return to the drifted value is drift again.
func TestValueSetBackOutsideRecordsTheBaseline(t *testing.T) {
	ctx := context.Background()
	a := newFakeARM()
	a.seed(rg1, body())
	a.seed(idA, body("env", "prod"))
	rec := recordOf(idA, body("env", "prod"), DefaultSet)
	rec.Baseline = body("env", "dev") // the drift a refresh accepted
	st := newMemStore(recordOf(rg1, body(), DefaultSet), rec)
	e := newEngine(a, st, DefaultOptions())
	set := func() *manifest.Set {
		return &manifest.Set{Resources: []*manifest.Resource{res(rg1, body()), res(idA, body("env", "prod"))}}
	}
	p, err := e.Plan(ctx, set())
	if err != nil {
		t.Fatal(err)
	}
	if p.Plan.HasChanges() {
		t.Fatalf("live already holds the manifest's value; the plan writes: %+v", p.Plan.Resources)
	}
	if len(p.StateOnly()) != 1 {
		t.Fatalf("state-only notes = %q, want one for the baseline", p.StateOnly())
	}
	if _, err := e.Execute(ctx, p); err != nil {
		t.Fatal(err)
	}
	if w := len(a.Calls("PUT")) + len(a.Calls("PATCH")); w != 0 {
		t.Fatalf("%d writes to Azure, want none", w)
	}
	got, _ := st.Get(ctx, idA)
	if tags, _ := got.Baseline["tags"].(map[string]any); tags["env"] != "prod" {
		t.Fatalf("baseline after the apply = %v, want env=prod", got.Baseline)
	}
	// Someone sets it to dev again: that is drift, not silence.
	a.seed(idA, body("env", "dev"))
	p, err = e.Plan(ctx, set())
	if err != nil {
		t.Fatal(err)
	}
	drift := false
	for _, r := range p.Plan.Resources {
		for _, c := range r.Changes {
			drift = drift || (r.ID == idA && c.Cause == plan.CauseDrift)
		}
	}
	if !drift {
		t.Errorf("the tag moved back to dev and the plan shows no drift: %+v", p.Plan.Resources)
	}
}

// A property removed from the manifest that the service keeps ("no longer
// managed") is not written: the apply records the smaller ownership and
// sends nothing, and the next plan is silent.
func TestUnmanagedPathIsRecordedNotWritten(t *testing.T) {
	ctx := context.Background()
	withMode := func() map[string]any {
		b := body()
		b["properties"] = map[string]any{"mode": "strict"}
		return b
	}
	a := newFakeARM()
	a.seed(rg1, body())
	a.seed(idA, withMode())
	st := newMemStore(recordOf(rg1, body(), DefaultSet), recordOf(idA, withMode(), DefaultSet))
	e := newEngine(a, st, DefaultOptions())
	set := func() *manifest.Set {
		return &manifest.Set{Resources: []*manifest.Resource{res(rg1, body()), res(idA, body())}}
	}
	p, err := e.Plan(ctx, set())
	if err != nil {
		t.Fatal(err)
	}
	var r plan.Resource
	for _, x := range p.Plan.Resources {
		if x.ID == idA {
			r = x
		}
	}
	if len(r.Changes) != 1 || r.Changes[0].Cause != plan.CauseRemoval || r.Method != "" {
		t.Fatalf("planned %s %q %+v, want one removal with no method", r.Action, r.Method, r.Changes)
	}
	if _, err := e.Execute(ctx, p); err != nil {
		t.Fatal(err)
	}
	if w := len(a.Calls("PUT")) + len(a.Calls("PATCH")); w != 0 {
		t.Fatalf("%d writes to Azure, want none", w)
	}
	got, _ := st.Get(ctx, idA)
	if _, owned := got.LastApplied["properties"]; owned {
		t.Errorf("the record still owns properties: %v", got.LastApplied)
	}
	p, err = e.Plan(ctx, set())
	if err != nil {
		t.Fatal(err)
	}
	if p.Plan.HasChanges() {
		t.Errorf("the plan after recording is not silent: %+v", p.Plan.Resources)
	}
}
