package emulator

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// TestScriptedSession walks what an apply does against ARM: group, LRO
// create, GET with quirks, PATCH (tags-only type), a PATCH-less type (405),
// a stale etag (412), DELETE with children, lists. Types and their facts
// come from the corpus profile and, so that the test does not move with
// the embedded schema, from networkSchema: the facts the 2023-09-01
// network spec states.
func TestScriptedSession(t *testing.T) {
	s := startTest(t, func(o *Options) { o.Schema = networkSchema{} })
	base := s.URL() + "/subscriptions/" + testSub
	av := "?api-version=2023-09-01"

	// Missing api-version.
	r := do(t, http.MethodGet, base+"/resourceGroups/rg1", nil)
	if r.Status != 400 || errCode(r) != "MissingApiVersionParameter" {
		t.Fatalf("no api-version: %d %s", r.Status, r.Raw)
	}
	// A resource in a group that does not exist.
	vnetPath := "/resourceGroups/rg1/providers/Microsoft.Network/virtualNetworks/vnet1"
	r = do(t, http.MethodPut, base+vnetPath+av, map[string]any{"location": "westus2"})
	if r.Status != 404 || errCode(r) != "ResourceGroupNotFound" {
		t.Fatalf("PUT into missing group: %d %s", r.Status, r.Raw)
	}

	// Resource group, addressed with ARM's lower-case spelling.
	r = do(t, http.MethodPut, base+"/resourcegroups/rg1?api-version=2021-04-01", map[string]any{"location": "westus2"})
	if r.Status != 201 || str(r.Body, "id") != "/subscriptions/"+testSub+"/resourceGroups/rg1" {
		t.Fatalf("PUT group: %d %s", r.Status, r.Raw)
	}
	if got := str(r.Body, "properties", "provisioningState"); got != "Succeeded" {
		t.Fatalf("group provisioningState = %q", got)
	}

	// A child whose parent is missing.
	r = do(t, http.MethodPut, base+vnetPath+"/subnets/s1"+av, map[string]any{"properties": map[string]any{"addressPrefix": "10.0.0.0/24"}})
	if r.Status != 404 || errCode(r) != "ParentResourceNotFound" {
		t.Fatalf("PUT orphan subnet: %d %s", r.Status, r.Raw)
	}

	// LRO create: 201 + Azure-AsyncOperation + Location + Retry-After.
	vnet := map[string]any{
		"location": "westus2",
		"properties": map[string]any{
			"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}},
			"subnets":      []any{map[string]any{"name": "s1", "properties": map[string]any{"addressPrefix": "10.0.0.0/24"}}},
		},
	}
	r = do(t, http.MethodPut, base+vnetPath+av, vnet)
	if r.Status != 201 {
		t.Fatalf("PUT vnet: %d %s", r.Status, r.Raw)
	}
	async := r.Header.Get("Azure-AsyncOperation")
	if async == "" || r.Header.Get("Location") == "" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("PUT vnet: LRO headers missing: %v", r.Header)
	}
	if got := str(r.Body, "properties", "provisioningState"); got != "Creating" {
		t.Fatalf("PUT vnet response provisioningState = %q, want Creating", got)
	}
	g := do(t, http.MethodGet, base+vnetPath+av, nil)
	if got := str(g.Body, "properties", "provisioningState"); got != "Creating" {
		t.Fatalf("GET during LRO: provisioningState = %q, want Creating", got)
	}
	if st := pollAsync(t, async); st != "Succeeded" {
		t.Fatalf("LRO ended %s", st)
	}
	g = do(t, http.MethodGet, base+vnetPath+av, nil)
	if g.Status != 200 || str(g.Body, "properties", "provisioningState") != "Succeeded" {
		t.Fatalf("GET after LRO: %d %s", g.Status, g.Raw)
	}
	// Quirks from the corpus: network RPs add a weak etag, a resourceGuid,
	// and per-subnet server fields.
	etag := str(g.Body, "etag")
	if !strings.HasPrefix(etag, `W/"`) || g.Header.Get("ETag") != etag {
		t.Errorf("vnet etag = %q (header %q), want a weak etag in both", etag, g.Header.Get("ETag"))
	}
	if str(g.Body, "properties", "resourceGuid") == "" {
		t.Errorf("vnet: server-added properties.resourceGuid missing: %s", g.Raw)
	}
	subnets, _ := g.Body["properties"].(map[string]any)["subnets"].([]any)
	if len(subnets) != 1 || str(subnets[0], "etag") == "" {
		t.Errorf("vnet subnets: want one subnet with a server-added etag: %v", subnets)
	}
	if str(g.Body, "type") != "Microsoft.Network/virtualNetworks" || str(g.Body, "name") != "vnet1" {
		t.Errorf("vnet envelope: %s", g.Raw)
	}

	// Child resource, synchronous per the profile or LRO per the schema.
	subnetPath := vnetPath + "/subnets/s2"
	r = do(t, http.MethodPut, base+subnetPath+av, map[string]any{"properties": map[string]any{"addressPrefix": "10.0.1.0/24"}})
	if r.Status != 201 {
		t.Fatalf("PUT subnet: %d %s", r.Status, r.Raw)
	}
	if a := r.Header.Get("Azure-AsyncOperation"); a != "" {
		pollAsync(t, a)
	}

	// PATCH on a tags-only type: tags apply, properties are ignored.
	r = do(t, http.MethodPatch, base+vnetPath+av, map[string]any{
		"tags":       map[string]any{"env": "dev"},
		"properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"10.9.0.0/16"}}},
	})
	if r.Status != 200 {
		t.Fatalf("PATCH vnet: %d %s", r.Status, r.Raw)
	}
	if a := r.Header.Get("Azure-AsyncOperation"); a != "" {
		pollAsync(t, a)
	}
	g = do(t, http.MethodGet, base+vnetPath+av, nil)
	if str(g.Body, "tags", "env") != "dev" {
		t.Errorf("PATCH tags not applied: %s", g.Raw)
	}
	if !strings.Contains(g.Raw, "10.0.0.0/16") || strings.Contains(g.Raw, "10.9.0.0/16") {
		t.Errorf("tags-only PATCH changed properties: %s", g.Raw)
	}
	if str(g.Body, "etag") == etag {
		t.Errorf("etag did not change on PATCH")
	}

	// PATCH on a type without PATCH.
	r = do(t, http.MethodPatch, base+subnetPath+av, map[string]any{"properties": map[string]any{}})
	if r.Status != 405 || errCode(r) != "MethodNotAllowed" {
		t.Errorf("PATCH subnet: %d %s, want 405 MethodNotAllowed", r.Status, r.Raw)
	}

	// Stale etag.
	r = do(t, http.MethodPut, base+vnetPath+av, vnet, "If-Match", etag)
	if r.Status != 412 || errCode(r) != "PreconditionFailed" {
		t.Errorf("PUT with stale If-Match: %d %s, want 412", r.Status, r.Raw)
	}
	r = do(t, http.MethodPut, base+vnetPath+av, vnet, "If-None-Match", "*")
	if r.Status != 412 {
		t.Errorf("PUT with If-None-Match * on existing: %d, want 412", r.Status)
	}

	// Lists.
	l := do(t, http.MethodGet, base+vnetPath+"/subnets"+av, nil)
	if items, _ := l.Body["value"].([]any); l.Status != 200 || len(items) != 1 || str(items[0], "name") != "s2" {
		t.Errorf("list subnets: %d %s", l.Status, l.Raw)
	}
	l = do(t, http.MethodGet, base+"/resourceGroups/RG1/resources"+av, nil)
	if items, _ := l.Body["value"].([]any); l.Status != 200 || len(items) != 1 || str(items[0], "name") != "vnet1" {
		t.Errorf("list group resources (top-level only): %d %s", l.Status, l.Raw)
	}
	l = do(t, http.MethodGet, base+"/resourceGroups"+av, nil)
	if items, _ := l.Body["value"].([]any); len(items) != 1 {
		t.Errorf("list groups: %s", l.Raw)
	}

	// DELETE: 202 + Location, then the vnet and its subnet are gone.
	r = do(t, http.MethodDelete, base+vnetPath+av, nil)
	if r.Status != 202 || r.Header.Get("Location") == "" {
		t.Fatalf("DELETE vnet: %d %v", r.Status, r.Header)
	}
	loc := r.Header.Get("Location")
	for i := 0; ; i++ {
		p := do(t, http.MethodGet, loc, nil)
		if p.Status == 202 {
			if i > 200 {
				t.Fatal("delete never finished")
			}
			time.Sleep(5 * time.Millisecond)
			continue
		}
		if p.Status != 204 && p.Status != 200 {
			t.Fatalf("delete poll: %d %s", p.Status, p.Raw)
		}
		break
	}
	for _, path := range []string{vnetPath, subnetPath} {
		if g := do(t, http.MethodGet, base+path+av, nil); g.Status != 404 {
			t.Errorf("GET %s after delete: %d", path, g.Status)
		}
	}
	if g := do(t, http.MethodGet, base+subnetPath+av, nil); errCode(g) != "ParentResourceNotFound" && errCode(g) != "ResourceNotFound" {
		t.Errorf("GET subnet after delete: %s", g.Raw)
	}

	st := s.Stats()
	if st.Requests["POLL"] == 0 || st.Requests["PATCH"] != 2 || st.Requests["DELETE"] != 1 {
		t.Errorf("stats = %+v", st)
	}
}

// networkSchema answers as pkg/schema does for Microsoft.Network 2023-09-01:
// virtual networks are long-running with a tags-only PATCH; subnets are
// long-running and have no PATCH.
type networkSchema struct{}

func (networkSchema) Lookup(typ, v string) (*schema.Type, schema.Resolution) {
	found := schema.Resolution{Found: true, APIVersion: v}
	switch strings.ToLower(typ) {
	case "microsoft.network/virtualnetworks":
		return &schema.Type{Name: typ, APIVersion: v, PatchSupported: true, PatchPaths: []string{"tags", "tags.*"}, HasEtag: true, PutLRO: true, DeleteLRO: true}, found
	case "microsoft.network/virtualnetworks/subnets":
		return &schema.Type{Name: typ, APIVersion: v, HasEtag: true, PutLRO: true, DeleteLRO: true}, found
	}
	return nil, schema.Resolution{}
}
