package diff

import (
	"fmt"
	"testing"
)

// bigCollection is a body with one keyed array of n items, as a large NSG
// or firewall policy returns, live order reversed from the manifest's.
func bigCollection(n int, reverse bool) map[string]any {
	items := make([]any, n)
	for i := range items {
		j := i
		if reverse {
			j = n - 1 - i
		}
		items[i] = map[string]any{"name": fmt.Sprintf("rule-%05d", j), "properties": map[string]any{"priority": j, "access": "Allow"}}
	}
	return map[string]any{"properties": map[string]any{"securityRules": items}}
}

// BenchmarkProject20000 projects a 20,000-item array (issue 15: the
// reordering used to be quadratic and took minutes).
//
//	go test ./pkg/diff -run XXX -bench Project20000 -benchmem
func BenchmarkProject20000(b *testing.B) {
	d, live := bigCollection(20000, false), bigCollection(20000, true)
	owned := Owned(d, nil)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Project(live, owned)
	}
}

// BenchmarkComputeAfterApply20000 is the steady-state plan of the same
// resource: D vs L, S vs B and the collection drift check.
func BenchmarkComputeAfterApply20000(b *testing.B) {
	d, live := bigCollection(20000, false), bigCollection(20000, true)
	in := Input{Desired: d, LastApplied: d, Baseline: Project(live, Owned(d, nil)), Live: live}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r := Compute(in); r.Action != ActionNoOp {
			b.Fatalf("not quiet: %v", paths(r.Changes)[:3])
		}
	}
}

func TestProjectLargeArrayKeepsLiveOrder(t *testing.T) {
	d, live := bigCollection(2000, false), bigCollection(2000, true)
	b := Project(live, Owned(d, nil))
	got := b["properties"].(map[string]any)["securityRules"].([]any)
	if len(got) != 2000 || got[0].(map[string]any)["name"] != "rule-01999" || got[1999].(map[string]any)["name"] != "rule-00000" {
		t.Fatalf("projected %d items, first %v", len(got), got[0])
	}
}
