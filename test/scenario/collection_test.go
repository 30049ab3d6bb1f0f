package scenario

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
	"github.com/kubectl-azure/kubectl-azure/pkg/emulator/emulatortest"
	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

// collectionFixture applies groups × perGroup identities (plus the groups)
// and drifts one identity's tag.
func collectionFixture(t testing.TB, opts emulator.Options, groups, perGroup int) (a *harness.ARM, dir, state, drifted string) {
	t.Helper()
	tmp := t.TempDir()
	dir, state = filepath.Join(tmp, "infra"), filepath.Join(tmp, "state.json")
	a = harness.StartARM(t, opts)
	names := harness.ManagedGroups(t, dir, "cr", groups, perGroup)
	if r := harness.Run(a.URL, state, "apply", "-f", dir, "--yes", "-o", "json"); r.Code != 0 {
		t.Fatalf("building the fixture: apply exited %d:\n%s\n%s", r.Code, tail(r.Stdout), tail(r.Stderr))
	}
	drifted = fmt.Sprintf("/subscriptions/%s/resourceGroups/%s/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-cr-%02d-%04d",
		harness.Sub, names[groups-1], groups-1, perGroup/2)
	a.Drift(drifted, "env", "changed-outside")
	return a, dir, state, drifted
}

// planWith runs diff -o json and returns the decoded plan and the GETs it sent.
func planWith(t testing.TB, a *harness.ARM, dir, state string, collection bool, wantCode int) (map[string]any, int64) {
	t.Helper()
	before := a.Stats().Requests["GET"]
	r := harness.Run(a.URL, state, "diff", "-f", dir, "-o", "json", fmt.Sprintf("--collection-reads=%t", collection))
	if r.Code != wantCode {
		t.Fatalf("diff exited %d, want %d:\n%s\n%s", r.Code, wantCode, tail(r.Stdout), tail(r.Stderr))
	}
	var p map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &p); err != nil {
		t.Fatalf("diff -o json: %v\n%s", err, tail(r.Stdout))
	}
	return p, a.Stats().Requests["GET"] - before
}

// TestCollectionReadsSamePlan: the plan is the same document whether live
// state is read by collection or by one GET per resource, and collection
// reads need fewer requests.
func TestCollectionReadsSamePlan(t *testing.T) {
	a, dir, state, drifted := collectionFixture(t, harness.FastOptions(), 3, 20)
	byList, listGETs := planWith(t, a, dir, state, true, 1)
	byGet, singleGETs := planWith(t, a, dir, state, false, 1)
	if !reflect.DeepEqual(byList, byGet) {
		a, _ := json.MarshalIndent(byList, "", " ")
		b, _ := json.MarshalIndent(byGet, "", " ")
		t.Fatalf("plans differ:\nwith collection reads:\n%s\nwithout:\n%s", tail(string(a)), tail(string(b)))
	}
	if singleGETs != 63 {
		t.Errorf("without collection reads: %d GETs, want one per resource (63)", singleGETs)
	}
	if listGETs >= singleGETs/3 {
		t.Errorf("with collection reads: %d GETs, want far fewer than %d", listGETs, singleGETs)
	}
	changed := 0
	for _, r := range byList["resources"].([]any) {
		m := r.(map[string]any)
		if m["action"] != "no-op" {
			changed++
			if m["id"] != drifted {
				t.Errorf("%s planned %s; only %s drifted", m["id"], m["action"], drifted)
			}
		}
	}
	if changed != 1 {
		t.Errorf("%d resources change, want 1", changed)
	}
}

// BenchmarkPlan1010: a plan of 1,010 unchanged resources (10 groups × 100
// identities, plus the groups) with one drifted, under ARM's read bucket
// (250 burst, 25/s) with 20 ms per request. Targets with collection reads:
// at most 50 read requests and 3 s wall, 0 writes, 0 429s, exactly the
// drifted resource planned. Without them it is bound by the bucket.
func BenchmarkPlan1010(b *testing.B) {
	for _, mode := range []struct {
		name       string
		collection bool
	}{{"collection-reads", true}, {"per-resource-gets", false}} {
		b.Run(mode.name, func(b *testing.B) {
			a, dir, state, _ := collectionFixture(b, emulatortest.Unthrottled(), 10, 100)
			o := emulator.DefaultOptions()
			o.Seed = 42
			o.Latency = 20 * time.Millisecond
			a.Reconfigure(o)
			for i := 0; i < b.N; i++ {
				before := a.Stats()
				b.ResetTimer()
				start := time.Now()
				p, gets := planWith(b, a, dir, state, mode.collection, 1)
				wall := time.Since(start)
				b.StopTimer()
				after := a.Stats()
				writes := after.Requests["PUT"] + after.Requests["PATCH"] + after.Requests["DELETE"] -
					before.Requests["PUT"] - before.Requests["PATCH"] - before.Requests["DELETE"]
				planned := 0
				for _, r := range p["resources"].([]any) {
					if r.(map[string]any)["action"] != "no-op" {
						planned++
					}
				}
				b.ReportMetric(float64(gets), "GETs")
				b.ReportMetric(wall.Seconds(), "wall-s")
				b.ReportMetric(float64(writes), "writes")
				b.ReportMetric(float64(after.Throttled-before.Throttled), "429s")
				b.ReportMetric(float64(planned), "planned")
				if mode.collection && (gets > 50 || planned != 1 || writes != 0) {
					b.Errorf("%d read requests (target ≤ 50), %d planned (want 1), %d writes", gets, planned, writes)
				}
			}
		})
	}
}

// TestCollectionReadsSamePlanWithChildren: the same on a set with child
// resources (subnets referencing a security group) and parents, steady
// state and after one change outside the tool.
func TestCollectionReadsSamePlanWithChildren(t *testing.T) {
	a := harness.StartARM(t, harness.FastOptions())
	tmp := t.TempDir()
	dir, state := filepath.Join(tmp, "infra"), filepath.Join(tmp, "state.json")
	d := harness.DAG{Prefix: "cr", Groups: 2, Subnets: 4, Identities: 3}
	d.Write(t, dir)
	if r := harness.Run(a.URL, state, "apply", "-f", dir, "--yes"); r.Code != 0 {
		t.Fatalf("apply exited %d:\n%s\n%s", r.Code, tail(r.Stdout), tail(r.Stderr))
	}
	for _, wantCode := range []int{0, 1} {
		if wantCode == 1 {
			a.Drift(d.IDs()[len(d.IDs())-1], "env", "changed-outside")
		}
		byList, _ := planWith(t, a, dir, state, true, wantCode)
		byGet, _ := planWith(t, a, dir, state, false, wantCode)
		if !reflect.DeepEqual(byList, byGet) {
			x, _ := json.MarshalIndent(byList, "", " ")
			y, _ := json.MarshalIndent(byGet, "", " ")
			t.Fatalf("plans differ (exit %d):\nwith collection reads:\n%s\nwithout:\n%s", wantCode, tail(string(x)), tail(string(y)))
		}
	}
}
