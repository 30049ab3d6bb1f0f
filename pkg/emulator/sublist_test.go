package emulator

import (
	"net/http"
	"strings"
	"testing"
)

// GET /subscriptions/{s}/providers/{ns}/{type} lists the type's resources
// in every resource group, full bodies, paged (ARM REST "User Assigned
// Identities - List By Subscription", "Virtual Networks - List All").
func TestSubscriptionWideListCoversEveryGroup(t *testing.T) {
	s, _ := armStart(t, func(o *Options) { o.PageSize = 2 })
	sub := s.URL() + "/subscriptions/" + testSub
	for _, g := range []string{"rg1", "rg2", "rg3"} {
		do(t, http.MethodPut, sub+"/resourceGroups/"+g+"?api-version=2021-04-01", map[string]any{"location": "westeurope"})
		for _, n := range []string{"a", "b"} {
			r := do(t, http.MethodPut, sub+"/resourceGroups/"+g+"/providers/Microsoft.ManagedIdentity/userAssignedIdentities/"+g+n+"?api-version=2023-01-31",
				map[string]any{"location": "westeurope", "tags": map[string]any{"env": g}})
			if r.Status >= 300 {
				t.Fatalf("put: %d %s", r.Status, r.Raw)
			}
		}
	}
	// Another type in the same groups must not leak into the list.
	do(t, http.MethodPut, sub+"/resourceGroups/rg1/providers/Microsoft.Network/networkSecurityGroups/nsg?api-version=2023-09-01", map[string]any{"location": "westeurope"})

	list := func(query string) ([]string, int) {
		next := sub + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities?api-version=2023-01-31" + query
		var names []string
		pages := 0
		for next != "" {
			r := do(t, http.MethodGet, next, nil)
			if r.Status != 200 {
				t.Fatalf("list: %d %s", r.Status, r.Raw)
			}
			pages++
			vals, _ := r.Body["value"].([]any)
			for _, v := range vals {
				if str(v, "properties", "principalId") == "" {
					t.Errorf("%s: list item lacks the full body: %v", str(v, "name"), v)
				}
				names = append(names, str(v, "name"))
			}
			next, _ = r.Body["nextLink"].(string)
		}
		return names, pages
	}
	names, pages := list("")
	if got := strings.Join(names, ","); got != "rg1a,rg1b,rg2a,rg2b,rg3a,rg3b" || pages != 3 {
		t.Errorf("subscription-wide list: %s in %d pages, want every group's identities in 3 pages of 2", got, pages)
	}
	names, _ = list("&$filter=" + "tagName%20eq%20'env'%20and%20tagValue%20eq%20'rg2'")
	if got := strings.Join(names, ","); got != "rg2a,rg2b" {
		t.Errorf("filtered list: %s", got)
	}
	// A group's own list stays the group's.
	r := do(t, http.MethodGet, sub+"/resourceGroups/rg2/providers/Microsoft.ManagedIdentity/userAssignedIdentities?api-version=2023-01-31", nil)
	if vals, _ := r.Body["value"].([]any); len(vals) != 2 {
		t.Errorf("group list: %s", r.Raw)
	}
}
