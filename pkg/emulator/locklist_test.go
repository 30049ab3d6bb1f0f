package emulator

import (
	"net/http"
	"testing"
)

// TestLockListsCoverBelow: a lock list at the subscription holds every
// lock in it, at a group the group's and its resources', at a resource
// its own, those above it and those below (sources in locks.go).
func TestLockListsCoverBelow(t *testing.T) {
	s := startTest(t, func(o *Options) { o.LRODuration = 0 })
	u := s.URL()
	sub := "/subscriptions/" + testSub
	rg := sub + "/resourceGroups/locked"
	other := sub + "/resourceGroups/other"
	sa := rg + "/providers/Microsoft.Storage/storageAccounts/lockedsa1"
	const lockV = "?api-version=2020-05-01"
	for _, g := range []string{rg, other} {
		do(t, http.MethodPut, u+g+"?api-version=2021-04-01", map[string]any{"location": "westeurope"})
	}
	do(t, http.MethodPut, u+sa+"?api-version=2023-01-01", map[string]any{"location": "westeurope", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}})
	locks := map[string]string{"sa": sa, "rg": rg, "other": other}
	for name, scope := range locks {
		if r := do(t, http.MethodPut, u+scope+"/providers/Microsoft.Authorization/locks/"+name+lockV, map[string]any{"properties": map[string]any{"level": "CanNotDelete"}}); r.Status/100 != 2 {
			t.Fatalf("PUT lock %s: %d %s", name, r.Status, r.Raw)
		}
	}
	names := func(scope string) map[string]bool {
		t.Helper()
		r := do(t, http.MethodGet, u+scope+"/providers/Microsoft.Authorization/locks"+lockV, nil)
		if r.Status != 200 {
			t.Fatalf("list at %s: %d %s", scope, r.Status, r.Raw)
		}
		out := map[string]bool{}
		for _, it := range r.Body["value"].([]any) {
			out[asMap(it)["name"].(string)] = true
		}
		return out
	}
	for scope, want := range map[string][]string{sub: {"sa", "rg", "other"}, rg: {"sa", "rg"}, sa: {"sa", "rg"}, other: {"other"}} {
		got := names(scope)
		if len(got) != len(want) {
			t.Errorf("locks listed at %s: %v, want %v", scope, got, want)
		}
		for _, n := range want {
			if !got[n] {
				t.Errorf("locks listed at %s: %v, want %v", scope, got, want)
			}
		}
	}
}
