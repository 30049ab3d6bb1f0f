package manifest

import (
	"strings"
	"testing"
)

func TestTopoSortCycle(t *testing.T) {
	a := &Resource{Origin: Origin{"f.yaml", 0}, ID: "/subscriptions/s/resourceGroups/a", DependsOn: []string{"/subscriptions/s/resourceGroups/B"}}
	b := &Resource{Origin: Origin{"f.yaml", 1}, ID: "/subscriptions/s/resourceGroups/b", DependsOn: []string{"/subscriptions/s/resourceGroups/a", "/elsewhere"}}
	if _, err := TopoSort([]*Resource{a, b}); err == nil || !strings.Contains(err.Error(), "dependency cycle") {
		t.Fatalf("want cycle error, got %v", err)
	}
	b.DependsOn = []string{"/elsewhere"}
	out, err := TopoSort([]*Resource{a, b})
	if err != nil || out[0] != b || out[1] != a {
		t.Fatalf("want b before a, got %v %v", out, err)
	}
}
