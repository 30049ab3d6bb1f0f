package emulator

import (
	"net/http"
	"strings"
	"testing"
)

// TestDeleteDisallowedWithoutOperation: a Key Vault secret or key has no
// DELETE in ARM: the emulator answers 400 DisallowedResourceOperation in
// ARM's words and keeps the resource; the vault itself deletes, taking
// them with it (issue 44 item 3).
func TestDeleteDisallowedWithoutOperation(t *testing.T) {
	s := startTest(t, func(o *Options) { o.LRODuration = 0 })
	u := s.URL()
	g := "/subscriptions/" + testSub + "/resourceGroups/nd"
	kv := g + "/providers/Microsoft.KeyVault/vaults/kv-nodelete"
	const v = "?api-version=2023-07-01"
	do(t, http.MethodPut, u+g+"?api-version=2021-04-01", map[string]any{"location": "westeurope"})
	if r := do(t, http.MethodPut, u+kv+v, map[string]any{"location": "westeurope", "properties": map[string]any{
		"tenantId": "00000000-0000-0000-0000-0000000000aa", "sku": map[string]any{"family": "A", "name": "standard"}, "enableRbacAuthorization": true}}); r.Status >= 300 {
		t.Fatalf("PUT vault: %d %s", r.Status, r.Raw)
	}
	for _, c := range []struct{ id, body, segs string }{
		{kv + "/secrets/db-password", `{"properties":{"value":"not-a-real-one"}}`, "vaults/secrets"},
		{kv + "/keys/signing", `{"properties":{"kty":"RSA"}}`, "vaults/keys"},
	} {
		if r := do(t, http.MethodPut, u+c.id+v, c.body); r.Status >= 300 {
			t.Fatalf("PUT %s: %d %s", c.id, r.Status, r.Raw)
		}
		r := do(t, http.MethodDelete, u+c.id+v, nil)
		inner, _ := r.Body["error"].(map[string]any)
		msg, _ := inner["message"].(string)
		if r.Status != 400 || errCode(r) != "DisallowedResourceOperation" || msg != "The operation 'delete' on resource type '"+c.segs+"' is disallowed." {
			t.Errorf("DELETE %s: %d %s", c.id, r.Status, r.Raw)
		}
		if r := do(t, http.MethodGet, u+c.id+v, nil); r.Status != 200 {
			t.Errorf("GET %s after the refused DELETE: %d", c.id, r.Status)
		}
	}
	if r := do(t, http.MethodDelete, u+kv+v, nil); r.Status/100 != 2 {
		t.Fatalf("DELETE vault: %d %s", r.Status, r.Raw)
	}
	if r := do(t, http.MethodGet, u+kv+"/secrets/db-password"+v, nil); r.Status != 404 || !strings.Contains(r.Raw, "NotFound") {
		t.Errorf("the secret outlived its vault: %d %s", r.Status, r.Raw)
	}
}
