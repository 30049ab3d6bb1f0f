package emulator

import (
	"encoding/json"
	"net/http"
	"testing"
)

// accessPolicies/add|replace|remove merge into the vault's own
// accessPolicies (source in keyvault.go) and create no child.
func TestKeyVaultAccessPolicyOperations(t *testing.T) {
	u, g := startWithGroup(t, "kvap")
	vault := g + "/providers/Microsoft.KeyVault/vaults/kv-ap-1"
	const v = "?api-version=2023-07-01"
	const tenant = "72f988bf-86f1-41af-91ab-2d7cd011db47"
	entry := func(obj string, secrets ...any) map[string]any {
		return map[string]any{"tenantId": tenant, "objectId": obj, "permissions": map[string]any{"secrets": secrets}}
	}
	if r := do(t, http.MethodPut, u+vault+v, map[string]any{"location": "westeurope", "properties": map[string]any{
		"tenantId": tenant, "sku": map[string]any{"family": "A", "name": "standard"},
		"accessPolicies": []any{entry("aaaa", "get")},
	}}); r.Status >= 300 {
		t.Fatalf("vault: %d %s", r.Status, r.Raw)
	}
	op := func(kind string, entries ...any) {
		t.Helper()
		r := do(t, http.MethodPut, u+vault+"/accessPolicies/"+kind+v, map[string]any{"properties": map[string]any{"accessPolicies": entries}})
		if r.Status != 200 || str(r.Body, "type") != "Microsoft.KeyVault/vaults/accessPolicies" {
			t.Fatalf("%s: %d %s", kind, r.Status, r.Raw)
		}
	}
	policies := func() string {
		g := do(t, http.MethodGet, u+vault+v, nil)
		b, _ := json.Marshal(asMap(g.Body["properties"])["accessPolicies"])
		return string(b)
	}
	op("add", entry("aaaa", "list"), entry("bbbb", "get"))
	want := `[{"objectId":"aaaa","permissions":{"secrets":["get","list"]},"tenantId":"` + tenant + `"},{"objectId":"bbbb","permissions":{"secrets":["get"]},"tenantId":"` + tenant + `"}]`
	if got := policies(); got != want {
		t.Fatalf("after add:\n got %s\nwant %s", got, want)
	}
	op("replace", entry("bbbb", "set"))
	op("remove", entry("aaaa", "get", "list"))
	want = `[{"objectId":"bbbb","permissions":{"secrets":["set"]},"tenantId":"` + tenant + `"}]`
	if got := policies(); got != want {
		t.Fatalf("after replace and remove:\n got %s\nwant %s", got, want)
	}
	// No child resource was made of the operations.
	if r := do(t, http.MethodGet, u+vault+"/accessPolicies/add"+v, nil); r.Status != 404 {
		t.Errorf("GET accessPolicies/add: %d %s, want 404", r.Status, r.Raw)
	}
}
