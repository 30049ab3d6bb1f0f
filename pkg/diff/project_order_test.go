package diff

import (
	"reflect"
	"testing"
)

// Found by the import corpus run: firewall policy rule collection groups
// keep ruleCollections in the order the user gave, and a baseline that
// sorted them by name showed drift right after import.
func TestProjectKeepsLiveOrderOfKeyedItems(t *testing.T) {
	live := map[string]any{"properties": map[string]any{"ruleCollections": []any{
		map[string]any{"name": "zeta", "priority": 200.0},
		map[string]any{"name": "alpha", "priority": 100.0},
	}}}
	b := Project(live, Owned(live, nil))
	got := b["properties"].(map[string]any)["ruleCollections"].([]any)
	var names []any
	for _, it := range got {
		names = append(names, it.(map[string]any)["name"])
	}
	if !reflect.DeepEqual(names, []any{"zeta", "alpha"}) {
		t.Fatalf("projected order = %v, want live order [zeta alpha]", names)
	}
	if r := Compute(Input{Desired: live, LastApplied: live, Baseline: b, Live: live}); len(r.Changes) != 0 {
		t.Fatalf("quiet after apply broken: %+v", r.Changes)
	}
}
