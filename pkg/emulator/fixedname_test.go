package emulator

import (
	"net/http"
	"testing"
)

// Singleton children take only their fixed name: Storage answers any other
// with 404 HttpResourceNotFound, other RPs refuse it.
func TestFixedNameChildren(t *testing.T) {
	_, base := armStart(t, nil)
	acct := base + "/providers/Microsoft.Storage/storageAccounts/stfixed01"
	if r := do(t, http.MethodPut, acct+"?api-version=2023-05-01", map[string]any{"location": "westeurope", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}}); r.Status >= 300 {
		t.Fatalf("account: %d %s", r.Status, r.Raw)
	}
	sql := base + "/providers/Microsoft.Sql/servers/sqlfixed01"
	if r := do(t, http.MethodPut, sql+"?api-version=2023-05-01-preview", map[string]any{"location": "westeurope", "properties": map[string]any{"administratorLogin": "a", "administratorLoginPassword": "P@ssw0rd-123"}}); r.Status >= 300 {
		t.Fatalf("sql server: %d %s", r.Status, r.Raw)
	}
	empty := map[string]any{"properties": map[string]any{}}
	policy := map[string]any{"properties": map[string]any{"policy": map[string]any{"rules": []any{}}}}
	for _, c := range []struct {
		name, url string
		body      any
		status    int
		code      string
	}{
		{"blobServices other than default", acct + "/blobServices/default-prod?api-version=2023-05-01", empty, 404, "HttpResourceNotFound"},
		{"fileServices other than default", acct + "/fileServices/files?api-version=2023-05-01", empty, 404, "HttpResourceNotFound"},
		{"queueServices other than default", acct + "/queueServices/q1?api-version=2023-05-01", empty, 404, "HttpResourceNotFound"},
		{"tableServices other than default", acct + "/tableServices/t1?api-version=2023-05-01", empty, 404, "HttpResourceNotFound"},
		{"managementPolicies other than default (open enum in the spec)", acct + "/managementPolicies/notDefault?api-version=2023-05-01", policy, 404, "HttpResourceNotFound"},
		{"blobServices/default", acct + "/blobServices/default?api-version=2023-05-01", empty, 200, ""},
		{"blobServices/Default (case-insensitive)", acct + "/blobServices/Default?api-version=2023-05-01", empty, 200, ""},
		{"managementPolicies/default", acct + "/managementPolicies/default?api-version=2023-05-01", policy, 200, ""},
		{"encryptionScopes are not singletons", acct + "/encryptionScopes/scope1?api-version=2023-05-01", map[string]any{"properties": map[string]any{"source": "Microsoft.Storage"}}, 201, ""},
		{"a SQL server's automaticTuning other than current", sql + "/automaticTuning/mine?api-version=2023-05-01-preview", empty, 400, "InvalidResourceName"},
		{"a SQL server's automaticTuning/current", sql + "/automaticTuning/current?api-version=2023-05-01-preview", empty, 201, ""},
	} {
		r := do(t, http.MethodPut, c.url, c.body)
		if r.Status != c.status || errCode(r) != c.code {
			t.Errorf("%s: %d %q (%s), want %d %q", c.name, r.Status, errCode(r), r.Raw, c.status, c.code)
			continue
		}
		if c.code != "" {
			if g := do(t, http.MethodGet, c.url, nil); g.Status != 404 {
				t.Errorf("%s: refused resource was stored: GET %d", c.name, g.Status)
			}
		}
	}
}
