package emulator

import (
	"net/http"
	"strings"
	"testing"
)

// Rules of armrules.go, one table row per rule: the request, then ARM's
// status and code.
func TestARMRules(t *testing.T) {
	s := startTest(t, func(o *Options) { o.LRODuration = 0 })
	u := s.URL()
	sub := "/subscriptions/" + testSub
	other := "/subscriptions/00000000-0000-0000-0000-0000000000bb"
	for _, g := range []string{sub + "/resourceGroups/a", sub + "/resourceGroups/b", other + "/resourceGroups/c"} {
		if r := do(t, http.MethodPut, u+g+"?api-version=2021-04-01", map[string]any{"location": "westeurope"}); r.Status != 201 {
			t.Fatalf("group %s: %d %s", g, r.Status, r.Raw)
		}
	}
	sa := func(g, n string) string {
		return g + "/providers/Microsoft.Storage/storageAccounts/" + n + "?api-version=2023-01-01"
	}
	saBody := map[string]any{"location": "westeurope", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}}
	kv := func(g, n string) string {
		return g + "/providers/Microsoft.KeyVault/vaults/" + n + "?api-version=2023-07-01"
	}
	kvBody := func(mode string) map[string]any {
		props := map[string]any{"tenantId": "72f988bf-86f1-41af-91ab-2d7cd011db47", "sku": map[string]any{"family": "A", "name": "standard"}, "accessPolicies": []any{}}
		if mode != "" {
			props["createMode"] = mode
		}
		return map[string]any{"location": "westeurope", "properties": props}
	}
	role := func(g string) string {
		return g + "/providers/Microsoft.Authorization/roleAssignments/"
	}
	raBody := func(principal, rd string) map[string]any {
		return map[string]any{"properties": map[string]any{"principalId": principal, "roleDefinitionId": rd}}
	}
	const reader = "acdd72a7-3385-48ef-bd42-f606fba81ae7"
	manyTags := map[string]any{}
	for i := 0; i < 51; i++ {
		manyTags["t"+itoa(i)] = "v"
	}
	steps := []struct {
		name         string
		method, path string
		body         any
		status       int
		code         string
	}{
		{"storage account created", "PUT", sa(sub+"/resourceGroups/a", "stglobal1"), saBody, 202, ""},
		{"same account name in another group", "PUT", sa(sub+"/resourceGroups/b", "stglobal1"), saBody, 409, "StorageAccountAlreadyExists"},
		{"same account name in another subscription", "PUT", sa(other+"/resourceGroups/c", "stglobal1"), saBody, 409, "StorageAccountAlreadyTaken"},
		{"updating the account itself is fine", "PUT", sa(sub+"/resourceGroups/a", "stglobal1"), saBody, 200, ""},
		{"vault created", "PUT", kv(sub+"/resourceGroups/a", "kv-global-1"), kvBody(""), 200, ""},
		{"same vault name elsewhere", "PUT", kv(other+"/resourceGroups/c", "kv-global-1"), kvBody(""), 409, "VaultAlreadyExists"},
		{"vault deleted (soft)", "DELETE", kv(sub+"/resourceGroups/a", "kv-global-1"), nil, 200, ""},
		{"soft-deleted vault name reused", "PUT", kv(sub+"/resourceGroups/b", "kv-global-1"), kvBody(""), 409, "ConflictError"},
		{"deleted vault listed", "GET", sub + "/providers/Microsoft.KeyVault/deletedVaults?api-version=2023-07-01", nil, 200, ""},
		{"recovered with createMode recover", "PUT", kv(sub+"/resourceGroups/a", "kv-global-1"), kvBody("recover"), 200, ""},
		{"deleted again", "DELETE", kv(sub+"/resourceGroups/a", "kv-global-1"), nil, 200, ""},
		{"purged", "POST", sub + "/providers/Microsoft.KeyVault/locations/westeurope/deletedVaults/kv-global-1/purge?api-version=2023-07-01", nil, 202, ""},
		{"name free after purge", "PUT", kv(sub+"/resourceGroups/b", "kv-global-1"), kvBody(""), 200, ""},
		{"site created", "PUT", sub + "/resourceGroups/a/providers/Microsoft.Web/sites/site-global-1?api-version=2023-12-01", map[string]any{"location": "westeurope", "properties": map[string]any{}}, 200, ""},
		{"same site name elsewhere", "PUT", other + "/resourceGroups/c/providers/Microsoft.Web/sites/site-global-1?api-version=2023-12-01", map[string]any{"location": "westeurope", "properties": map[string]any{}}, 409, "Conflict"},

		{"registry created", "PUT", sub + "/resourceGroups/a/providers/Microsoft.ContainerRegistry/registries/acrglobal1?api-version=2023-07-01", map[string]any{"location": "westeurope", "sku": map[string]any{"name": "Basic"}}, 200, ""},
		{"same registry name elsewhere", "PUT", other + "/resourceGroups/c/providers/Microsoft.ContainerRegistry/registries/acrglobal1?api-version=2023-07-01", map[string]any{"location": "westeurope", "sku": map[string]any{"name": "Basic"}}, 409, "AlreadyInUse"},
		{"SQL server created", "PUT", sub + "/resourceGroups/a/providers/Microsoft.Sql/servers/sqlglobal1?api-version=2023-05-01-preview", map[string]any{"location": "westeurope", "properties": map[string]any{"administratorLogin": "a", "administratorLoginPassword": "P@ssw0rd-1234"}}, 200, ""},
		{"same SQL server name elsewhere", "PUT", sub + "/resourceGroups/b/providers/Microsoft.Sql/servers/sqlglobal1?api-version=2023-05-01-preview", map[string]any{"location": "westeurope", "properties": map[string]any{"administratorLogin": "a", "administratorLoginPassword": "P@ssw0rd-1234"}}, 409, "NameAlreadyExists"},

		{"role assignment created", "PUT", role(sub+"/resourceGroups/a") + "11111111-1111-4111-8111-111111111111?api-version=2022-04-01",
			raBody("22222222-2222-4222-8222-222222222222", sub+"/providers/Microsoft.Authorization/roleDefinitions/"+reader), 201, ""},
		{"same principal, role and scope under another name", "PUT", role(sub+"/resourceGroups/a") + "33333333-3333-4333-8333-333333333333?api-version=2022-04-01",
			raBody("22222222-2222-4222-8222-222222222222", sub+"/providers/Microsoft.Authorization/roleDefinitions/"+reader), 409, "RoleAssignmentExists"},
		{"principal of an assignment changed", "PUT", role(sub+"/resourceGroups/a") + "11111111-1111-4111-8111-111111111111?api-version=2022-04-01",
			raBody("44444444-4444-4444-8444-444444444444", sub+"/providers/Microsoft.Authorization/roleDefinitions/"+reader), 400, "RoleAssignmentUpdateNotPermitted"},
		{"role of an assignment changed", "PUT", role(sub+"/resourceGroups/a") + "11111111-1111-4111-8111-111111111111?api-version=2022-04-01",
			raBody("22222222-2222-4222-8222-222222222222", sub+"/providers/Microsoft.Authorization/roleDefinitions/b24988ac-6180-42a0-ab88-20f7382dd24c"), 400, "RoleAssignmentUpdateNotPermitted"},
		{"same assignment written again", "PUT", role(sub+"/resourceGroups/a") + "11111111-1111-4111-8111-111111111111?api-version=2022-04-01",
			raBody("22222222-2222-4222-8222-222222222222", sub+"/providers/Microsoft.Authorization/roleDefinitions/"+reader), 200, ""},
		{"unknown role definition", "PUT", role(sub+"/resourceGroups/a") + "55555555-5555-4555-8555-555555555555?api-version=2022-04-01",
			raBody("22222222-2222-4222-8222-222222222222", sub+"/providers/Microsoft.Authorization/roleDefinitions/99999999-9999-4999-8999-999999999999"), 400, "RoleDefinitionDoesNotExist"},
		{"role definition ID scoped to a group is accepted", "PUT", role(sub+"/resourceGroups/b") + "66666666-6666-4666-8666-666666666666?api-version=2022-04-01",
			raBody("22222222-2222-4222-8222-222222222222", sub+"/resourceGroups/b/providers/Microsoft.Authorization/roleDefinitions/"+reader), 201, ""},

		{"51 tags", "PUT", sub + "/resourceGroups/tags1?api-version=2021-04-01", map[string]any{"location": "westeurope", "tags": manyTags}, 400, "InvalidTags"},
		{"tag name with a slash", "PUT", sub + "/resourceGroups/tags2?api-version=2021-04-01", map[string]any{"location": "westeurope", "tags": map[string]any{"a/b": "v"}}, 400, "InvalidTagNameCharacters"},
		{"tag name too long", "PUT", sub + "/resourceGroups/tags3?api-version=2021-04-01", map[string]any{"location": "westeurope", "tags": map[string]any{strings.Repeat("n", 513): "v"}}, 400, "InvalidTagName"},
		{"tag value too long", "PATCH", sa(sub+"/resourceGroups/a", "stglobal1"), map[string]any{"tags": map[string]any{"k": strings.Repeat("v", 257)}}, 400, "InvalidTagValueLength"},
		{"tag at the limits", "PUT", sub + "/resourceGroups/tags4?api-version=2021-04-01", map[string]any{"location": "westeurope", "tags": map[string]any{strings.Repeat("n", 512): strings.Repeat("v", 256)}}, 201, ""},

		{"resource group with a future api-version", "GET", sub + "/resourceGroups/a?api-version=2099-01-01", nil, 400, "InvalidApiVersionParameter"},
		{"resource group with an ancient api-version", "PUT", sub + "/resourceGroups/z?api-version=2001-01-01", map[string]any{"location": "westeurope"}, 400, "InvalidApiVersionParameter"},
		{"subscription with a future api-version", "GET", sub + "?api-version=2099-01-01", nil, 400, "InvalidApiVersionParameter"},
		{"subscriptions list with a malformed api-version", "GET", "/subscriptions?api-version=latest", nil, 400, "InvalidApiVersionParameter"},

		{"unknown POST action", "POST", sa(sub+"/resourceGroups/a", "stglobal1")[:len(sa(sub+"/resourceGroups/a", "stglobal1"))-len("?api-version=2023-01-01")] + "/fooBar?api-version=2023-01-01", nil, 400, "InvalidResourceType"},
		{"known POST action", "POST", sub + "/resourceGroups/a/providers/Microsoft.Web/sites/site-global-1/restart?api-version=2023-12-01", nil, 200, ""},
		{"configuration without DELETE", "DELETE", sub + "/resourceGroups/a/providers/Microsoft.Storage/storageAccounts/stglobal1/blobServices/default?api-version=2023-01-01", nil, 405, "MethodNotAllowed"},
	}
	for _, st := range steps {
		r := do(t, st.method, u+st.path, st.body)
		okStatus := r.Status == st.status || (st.status < 300 && r.Status >= 200 && r.Status < 300)
		if !okStatus || (st.code != "" && errCode(r) != st.code) {
			t.Errorf("%s: %s %s = %d %s, want %d %s", st.name, st.method, st.path, r.Status, truncate(r.Raw, 300), st.status, st.code)
		}
	}
	// The group-scoped role definition ID is answered subscription-scoped.
	g := do(t, http.MethodGet, u+role(sub+"/resourceGroups/b")+"66666666-6666-4666-8666-666666666666?api-version=2022-04-01", nil)
	if want := sub + "/providers/Microsoft.Authorization/roleDefinitions/" + reader; str(g.Body, "properties", "roleDefinitionId") != want {
		t.Errorf("roleDefinitionId = %q, want %q", str(g.Body, "properties", "roleDefinitionId"), want)
	}
}

// Microsoft.Resources/tags/default is the tag set of its scope.
func TestTagsExtensionResource(t *testing.T) {
	s := startTest(t, func(o *Options) { o.LRODuration = 0 })
	u := s.URL()
	id := "/subscriptions/" + testSub + "/resourceGroups/tg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/idt"
	do(t, http.MethodPut, u+"/subscriptions/"+testSub+"/resourceGroups/tg?api-version=2021-04-01", map[string]any{"location": "westeurope"})
	if r := do(t, http.MethodPut, u+id+"?api-version=2023-01-31", map[string]any{"location": "westeurope", "tags": map[string]any{"a": "1"}}); r.Status >= 300 {
		t.Fatalf("PUT: %d %s", r.Status, r.Raw)
	}
	tags := u + id + "/providers/Microsoft.Resources/tags/default?api-version=2021-04-01"
	tagsOf := func() map[string]any {
		return asMap(do(t, http.MethodGet, u+id+"?api-version=2023-01-31", nil).Body["tags"])
	}
	if r := do(t, http.MethodGet, tags, nil); str(r.Body, "type") != "Microsoft.Resources/tags" || asMap(asMap(r.Body["properties"])["tags"])["a"] != "1" {
		t.Fatalf("GET tags: %d %s", r.Status, r.Raw)
	}
	do(t, http.MethodPatch, tags, map[string]any{"operation": "Merge", "properties": map[string]any{"tags": map[string]any{"b": "2"}}})
	if got := tagsOf(); got["a"] != "1" || got["b"] != "2" {
		t.Errorf("after Merge: %v", got)
	}
	do(t, http.MethodPut, tags, map[string]any{"properties": map[string]any{"tags": map[string]any{"c": "3"}}})
	if got := tagsOf(); len(got) != 1 || got["c"] != "3" {
		t.Errorf("after PUT: %v", got)
	}
	do(t, http.MethodPatch, tags, map[string]any{"operation": "Delete", "properties": map[string]any{"tags": map[string]any{"c": "3"}}})
	if got := tagsOf(); len(got) != 0 {
		t.Errorf("after Delete: %v", got)
	}
	if r := do(t, http.MethodPut, tags, map[string]any{"properties": map[string]any{"tags": map[string]any{"a?": "1"}}}); errCode(r) != "InvalidTagNameCharacters" {
		t.Errorf("bad tag through the tags resource: %d %s", r.Status, r.Raw)
	}
}

func TestKnownActions(t *testing.T) {
	for action, want := range map[string]bool{
		"listKeys": true, "regenerateKey": true, "restart": true, "powerOff": true, "slotsswap": true,
		"sharedKeys": true, "listConnectionStrings": true, "generalize": true, "backendhealth": true,
		"fooBar": false, "frobnicate": false, "xyz": false, "doSomething": false,
	} {
		if got := knownAction(action); got != want {
			t.Errorf("knownAction(%q) = %v, want %v", action, got, want)
		}
	}
}
