package emulator

import (
	"fmt"
	"net/http"
	"testing"
)

// TestPageSizePerType pins the page each list answers without $top: the
// generic lists page at 1,000 (and refuse $top above it), storage accounts
// at 1,000, types without evidence at the default 100, and
// Options.PageSize forces one size on all.
func TestPageSizePerType(t *testing.T) {
	s := startTest(t, nil)
	sub := s.URL() + "/subscriptions/" + testSub
	seed := func(id string, body map[string]any) {
		t.Helper()
		if err := s.Seed("/subscriptions/"+testSub+id, "2023-01-31", body); err != nil {
			t.Fatal(err)
		}
	}
	for g := range 3 {
		seed(fmt.Sprintf("/resourceGroups/rg%d", g), map[string]any{"location": "westeurope"})
	}
	for i := range 1100 {
		seed(fmt.Sprintf("/resourceGroups/rg%d/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id%d", i%3, i), map[string]any{"location": "westeurope"})
	}
	for i := range 150 {
		seed(fmt.Sprintf("/resourceGroups/rg0/providers/Microsoft.Storage/storageAccounts/st%d", i),
			map[string]any{"location": "westeurope", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}})
	}
	for _, c := range []struct {
		path     string
		want     int
		nextLink bool
	}{
		{"/resources?api-version=2021-04-01", 1000, true},
		{"/resourceGroups/rg0/resources?api-version=2021-04-01", 367 + 150, false},
		{"/providers/Microsoft.ManagedIdentity/userAssignedIdentities?api-version=2023-01-31", 100, true},
		{"/resourceGroups/rg1/providers/Microsoft.ManagedIdentity/userAssignedIdentities?api-version=2023-01-31", 100, true},
		{"/providers/Microsoft.Storage/storageAccounts?api-version=2023-05-01", 150, false},
		{"/resources?api-version=2021-04-01&$top=10", 10, true},
	} {
		firstPage(t, sub, c.path, c.want, c.nextLink)
	}
	if r := do(t, http.MethodGet, sub+"/resources?api-version=2021-04-01&$top=1001", nil); r.Status != http.StatusBadRequest || errCode(r) != "InvalidTopInQueryString" {
		t.Errorf("$top=1001 on the generic list = %d %s, want 400 InvalidTopInQueryString", r.Status, r.Raw)
	}
	s.opts.PageSize = 7
	r := do(t, http.MethodGet, sub+"/providers/Microsoft.Storage/storageAccounts?api-version=2023-05-01", nil)
	if vals, _ := r.Body["value"].([]any); len(vals) != 7 || r.Body["nextLink"] == nil {
		t.Errorf("PageSize 7: page of %d, nextLink %v", len(vals), r.Body["nextLink"])
	}
}

// TestPageSizeUnpagedLists pins the lists ARM answers whole: the
// subscription's resource groups (returned all at once without $top, and
// a subscription holds at most 980) and Log Analytics workspaces (a list
// with no nextLink at all in its spec). $top still pages the groups.
func TestPageSizeUnpagedLists(t *testing.T) {
	s := startTest(t, nil)
	sub := s.URL() + "/subscriptions/" + testSub
	const n = 250
	for i := range n {
		ws := fmt.Sprintf("/subscriptions/%s/resourceGroups/rg%03d/providers/Microsoft.OperationalInsights/workspaces/ws%d", testSub, i, i)
		if err := s.Seed(ws, "2022-10-01", map[string]any{"location": "westeurope"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		path     string
		want     int
		nextLink bool
	}{
		{"/resourcegroups?api-version=2021-04-01", n, false},
		{"/providers/Microsoft.OperationalInsights/workspaces?api-version=2022-10-01", n, false},
		{"/resourceGroups/rg007/providers/Microsoft.OperationalInsights/workspaces?api-version=2022-10-01", 1, false},
		{"/resourcegroups?api-version=2021-04-01&$top=10", 10, true},
	} {
		firstPage(t, sub, c.path, c.want, c.nextLink)
	}
}

// firstPage checks that GET sub+path answers a first page of want items,
// with a nextLink exactly when nextLink is set.
func firstPage(t *testing.T, sub, path string, want int, nextLink bool) {
	t.Helper()
	r := do(t, http.MethodGet, sub+path, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("GET %s = %d %.300s", path, r.Status, r.Raw)
	}
	vals, _ := r.Body["value"].([]any)
	_, next := r.Body["nextLink"].(string)
	if len(vals) != want || next != nextLink {
		t.Errorf("GET %s: first page of %d (nextLink %v), want %d (%v)", path, len(vals), next, want, nextLink)
	}
}
