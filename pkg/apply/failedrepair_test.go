package apply

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// TestRepairKeepsTheIntentOfAFailedResource: a create whose long-running
// operation ended Failed leaves its intent; the next run's repair finds
// the resource with the intended values but provisioningState Failed. It
// must not record it as applied (every later plan said "No changes" over a
// failed resource): the next plan writes it again, and that write
// converges.
func TestRepairKeepsTheIntentOfAFailedResource(t *testing.T) {
	ctx := context.Background()
	rt := idOf("rg1", "Microsoft.Network/routeTables", "rt-failed")
	const ver = "2023-09-01"
	body := map[string]any{"location": "westeurope", "tags": map[string]any{"env": "test"}}
	r := res(rt, body)
	r.APIVersion = ver
	st, err := state.Open(ctx, filepath.Join(t.TempDir(), "state.json"), state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })

	// Run 1: every long-running operation ends Failed.
	srv1, c1 := emulatedWith(t, func(o *emulator.Options) { o.Faults.LROFailure = 1 })
	if err := srv1.Seed(rgID("rg1"), "2021-04-01", map[string]any{"id": rgID("rg1"), "name": "rg1", "location": "westeurope"}); err != nil {
		t.Fatal(err)
	}
	e := &Engine{Client: FromARM(c1), Store: st, Schemas: schema.Default(), Options: DefaultOptions()}
	if _, err := e.Execute(ctx, mustPlan(t, e, r)); err == nil {
		t.Fatal("run 1: Execute succeeded, want the operation to end Failed")
	}
	if ins, _ := st.Intents(ctx); len(ins) != 1 {
		t.Fatalf("run 1 left intents %v, want the create's", ins)
	}
	live, err := c1.Get(ctx, rt, ver)
	if err != nil {
		t.Fatal(err)
	}
	if !failedState(live.Body) {
		t.Fatalf("run 1 left %v, want provisioningState Failed", live.Body["properties"])
	}

	// Run 2 against the same Azure, now without faults.
	srv2, c2 := emulatedWith(t, nil)
	for _, s := range []struct {
		id, ver string
		b       map[string]any
	}{{rgID("rg1"), "2021-04-01", map[string]any{"id": rgID("rg1"), "name": "rg1", "location": "westeurope"}}, {rt, ver, live.Body}} {
		if err := srv2.Seed(s.id, s.ver, s.b); err != nil {
			t.Fatal(err)
		}
	}
	e = &Engine{Client: FromARM(c2), Store: st, Schemas: schema.Default(), Options: DefaultOptions()}
	acts, err := e.Repair(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range acts {
		if a.Outcome == "recorded" {
			t.Errorf("repair recorded %s as applied although it is provisioningState Failed", a.Intent.ID)
		}
	}
	p := mustPlan(t, e, r)
	if a := actions(p.Plan)[armid.Key(rt)]; a == plan.ActionNoOp {
		t.Fatalf("the plan after repair leaves the failed resource alone (%s), want a write", a)
	}
	if _, err := e.Execute(ctx, p); err != nil {
		t.Fatalf("run 2: %v", err)
	}
	live, err = c2.Get(ctx, rt, ver)
	if err != nil {
		t.Fatal(err)
	}
	if failedState(live.Body) {
		t.Fatalf("run 2 left the resource Failed: %v", live.Body["properties"])
	}
	if a := actions(mustPlan(t, e, r).Plan)[armid.Key(rt)]; a != plan.ActionNoOp {
		t.Errorf("run 3 plans %s, want no change after the write converged", a)
	}
}

// TestFailedStateAndEnvelopeReads: a failed provisioning is seen in a full
// body and in a generic-list envelope expanded with provisioningState, and
// a record whose write was never confirmed (no last-applied body) is never
// judged from an envelope.
func TestFailedStateAndEnvelopeReads(t *testing.T) {
	for _, tc := range []struct {
		live map[string]any
		want bool
	}{
		{map[string]any{"properties": map[string]any{"provisioningState": "Failed"}}, true},
		{map[string]any{"properties": map[string]any{"provisioningState": "canceled"}}, true},
		{map[string]any{"provisioningState": "Failed", "location": "westeurope"}, true},
		{map[string]any{"properties": map[string]any{"provisioningState": "Succeeded"}, "provisioningState": "Failed"}, false},
		{map[string]any{"properties": map[string]any{"provisioningState": "Succeeded"}}, false},
		{map[string]any{"location": "westeurope"}, false},
	} {
		if got := failedState(tc.live); got != tc.want {
			t.Errorf("failedState(%v) = %v, want %v", tc.live, got, tc.want)
		}
	}
	rt := idOf("rg1", "Microsoft.Network/routeTables", "rt")
	body := map[string]any{"location": "westeurope"}
	e := &Engine{Options: DefaultOptions()}
	rec := recordOf(rt, body, DefaultSet)
	it := &item{res: res(rt, body), id: rt, record: rec}
	if !e.envelopeReadable(it) {
		t.Fatal("a confirmed record of envelope members is not envelope-readable; the test no longer tests anything")
	}
	rec.LastApplied = nil
	if e.envelopeReadable(it) {
		t.Error("a record without a last-applied body is judged from an envelope")
	}
	// The list's provisioningState is today's, the baseline's the last
	// write's: an envelope over a Succeeded baseline shows Failed.
	baseline := map[string]any{"location": "westeurope", "properties": map[string]any{"provisioningState": "Succeeded", "x": 1}}
	live := envelopeOver(baseline, map[string]any{"location": "westeurope", "provisioningState": "Failed"})
	if !failedState(live) || baseline["properties"].(map[string]any)["provisioningState"] != "Succeeded" {
		t.Errorf("envelope over a Succeeded baseline: %v (baseline now %v); want Failed, the baseline untouched", live, baseline)
	}
}
