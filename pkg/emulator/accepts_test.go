package emulator

import (
	"net/http"
	"slices"
	"testing"
)

// ARM stores the "hidden-" tags Azure's own services write, slashes and
// all (test_appinsights_webtest_crud, azure-cli-extensions recordings);
// the reserved characters stay refused in any other tag name.
func TestHiddenLinkTagsAreAccepted(t *testing.T) {
	u, g := startWithGroup(t, "hidden")
	comp := g + "/providers/Microsoft.Insights/components/test-app"
	wt := g + "/providers/Microsoft.Insights/webtests/test-webtest?api-version=2022-06-15"
	tag := "hidden-link:" + comp
	r := do(t, http.MethodPut, u+wt, map[string]any{"location": "westeurope", "kind": "ping",
		"tags":       map[string]any{tag: "Resource"},
		"properties": map[string]any{"SyntheticMonitorId": "test-webtest", "Name": "test-webtest", "Locations": []any{map[string]any{"Id": "us-fl-mia-edge"}}}})
	if r.Status >= 300 {
		t.Fatalf("web test with a hidden-link tag: %d %s", r.Status, r.Raw)
	}
	got := do(t, http.MethodGet, u+wt, nil)
	if tags, _ := got.Body["tags"].(map[string]any); tags[tag] != "Resource" {
		t.Errorf("the hidden-link tag was not stored: %s", got.Raw)
	}
	site := g + "/providers/Microsoft.Web/serverfarms/plan1?api-version=2023-01-01"
	if r := do(t, http.MethodPut, u+site, map[string]any{"location": "westeurope", "sku": map[string]any{"name": "B1"},
		"tags": map[string]any{"hidden-related:" + g + "/providers/Microsoft.Web/serverfarms/other": "empty"}}); r.Status >= 300 {
		t.Errorf("hidden-related tag: %d %s", r.Status, r.Raw)
	}
	for _, name := range []string{"link:/subscriptions/x", "hidden/x", "x-hidden-link:/y"} {
		r := do(t, http.MethodPut, u+g+"/providers/Microsoft.Insights/webtests/wt2?api-version=2022-06-15", map[string]any{"location": "westeurope", "kind": "ping",
			"tags": map[string]any{name: "v"}, "properties": map[string]any{"SyntheticMonitorId": "wt2", "Name": "wt2", "Locations": []any{map[string]any{"Id": "us-fl-mia-edge"}}}})
		if r.Status != 400 || errCode(r) != "InvalidTagNameCharacters" {
			t.Errorf("tag name %q: %d %s, want 400 InvalidTagNameCharacters", name, r.Status, r.Raw)
		}
	}
}

// The one-namespace providers answer lists every version the emulator
// accepts for the namespace's types, so a client asking it (the CLI's
// api-version check) is not told "not served" for a version public
// templates use and the emulator would take.
func TestProvidersAnswerListsVersionsTemplatesUse(t *testing.T) {
	s := startTest(t, nil)
	for _, c := range []struct{ ns, typ, v string }{
		{"Microsoft.Authorization", "roleAssignments", "2021-04-01-preview"},
		{"Microsoft.Network", "virtualNetworks", "2017-04-01"},
		{"Microsoft.Storage", "storageAccounts/localUsers", "2021-04-01"},
	} {
		r := do(t, http.MethodGet, s.URL()+"/subscriptions/"+testSub+"/providers/"+c.ns+"?api-version=2021-04-01", nil)
		found := false
		for _, rt := range r.Body["resourceTypes"].([]any) {
			if str(rt, "resourceType") != c.typ {
				continue
			}
			found = true
			if !slices.Contains(asMap(rt)["apiVersions"].([]any), any(c.v)) {
				t.Errorf("%s/%s: versions lack %s", c.ns, c.typ, c.v)
			}
		}
		if !found {
			t.Errorf("no %s/%s in the providers answer", c.ns, c.typ)
		}
		id := "/subscriptions/" + testSub + "/resourceGroups/none/providers/" + c.ns + "/" + c.typ + "/x"
		if c.typ == "storageAccounts/localUsers" {
			continue
		}
		if r := do(t, http.MethodGet, s.URL()+id+"?api-version="+c.v, nil); errCode(r) == "NoRegisteredProviderFound" || errCode(r) == "InvalidApiVersionParameter" {
			t.Errorf("%s@%s refused: %s", c.typ, c.v, r.Raw)
		}
	}
}

// The emulator takes the two public templates that deploy today (an App
// Insights component without kind, a private DNS zone group with a
// location) and still refuses what is on record: a storage account
// without sku, a Network member outside the provider's model.
func TestAcceptsWhatTemplatesDeploy(t *testing.T) {
	u, g := startWithGroup(t, "tmpl")
	if r := do(t, http.MethodPut, u+g+"/providers/Microsoft.Insights/components/ai1?api-version=2020-02-02-preview",
		map[string]any{"location": "westeurope", "properties": map[string]any{"Application_Type": "web"}}); r.Status >= 300 {
		t.Errorf("component without kind: %d %s", r.Status, r.Raw)
	}
	net := g + "/providers/Microsoft.Network/"
	do(t, http.MethodPut, u+net+"virtualNetworks/vn?api-version=2021-05-01", map[string]any{"location": "westeurope", "properties": map[string]any{
		"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}},
		"subnets":      []any{map[string]any{"name": "s", "properties": map[string]any{"addressPrefix": "10.0.0.0/24"}}}}})
	if r := do(t, http.MethodPut, u+net+"privateEndpoints/pe?api-version=2021-05-01", map[string]any{"location": "westeurope", "properties": map[string]any{
		"subnet": map[string]any{"id": net + "virtualNetworks/vn/subnets/s"}}}); r.Status >= 300 {
		t.Fatalf("private endpoint: %d %s", r.Status, r.Raw)
	}
	if r := do(t, http.MethodPut, u+net+"privateEndpoints/pe/privateDnsZoneGroups/default?api-version=2021-05-01",
		map[string]any{"location": "westeurope", "properties": map[string]any{"privateDnsZoneConfigs": []any{}}}); r.Status >= 300 {
		t.Errorf("zone group with a location: %d %s", r.Status, r.Raw)
	}
	if r := do(t, http.MethodPut, u+g+"/providers/Microsoft.Storage/storageAccounts/stnosku1?api-version=2023-05-01",
		map[string]any{"location": "westeurope", "kind": "StorageV2"}); r.Status != 400 {
		t.Errorf("storage account without sku: %d %s, want 400", r.Status, r.Raw)
	}
	if r := do(t, http.MethodPut, u+net+"routeTables/rt?api-version=2023-09-01",
		map[string]any{"location": "westeurope", "properties": map[string]any{"notAMember": 1}}); r.Status != 400 || errCode(r) != "InvalidRequestFormat" {
		t.Errorf("Network member outside the model: %d %s, want 400 InvalidRequestFormat", r.Status, r.Raw)
	}
}

// list* actions answer in the shapes ARM returns, which templates read by
// member: listKeys(workspace).primarySharedKey, storage keys[0].value,
// a Service Bus or Event Hubs rule's primaryConnectionString, Cosmos
// primaryMasterKey, ACR passwords[0].value.
func TestListActionShapes(t *testing.T) {
	u, g := startWithGroup(t, "lists")
	put := func(path, v string, body map[string]any) string {
		t.Helper()
		if r := do(t, http.MethodPut, u+g+path+"?api-version="+v, body); r.Status >= 300 {
			t.Fatalf("PUT %s: %d %s", path, r.Status, r.Raw)
		}
		return g + path
	}
	post := func(id, action, v string) map[string]any {
		t.Helper()
		r := do(t, http.MethodPost, u+id+"/"+action+"?api-version="+v, nil)
		if r.Status != 200 {
			t.Fatalf("POST %s/%s: %d %s", id, action, r.Status, r.Raw)
		}
		return r.Body
	}
	nonEmpty := func(what string, v any) {
		t.Helper()
		if s, _ := v.(string); s == "" {
			t.Errorf("%s: missing or empty (%v)", what, v)
		}
	}
	ws := put("/providers/Microsoft.OperationalInsights/workspaces/law1", "2022-10-01", map[string]any{"location": "westeurope", "properties": map[string]any{"sku": map[string]any{"name": "PerGB2018"}}})
	lk, sk := post(ws, "listKeys", "2020-08-01"), post(ws, "sharedKeys", "2020-08-01")
	nonEmpty("workspace listKeys primarySharedKey", lk["primarySharedKey"])
	nonEmpty("workspace listKeys secondarySharedKey", lk["secondarySharedKey"])
	if lk["primarySharedKey"] != sk["primarySharedKey"] {
		t.Errorf("listKeys and sharedKeys disagree: %v / %v", lk, sk)
	}
	st := put("/providers/Microsoft.Storage/storageAccounts/stlists1", "2023-05-01", map[string]any{"location": "westeurope", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}})
	keys, _ := post(st, "listKeys", "2023-05-01")["keys"].([]any)
	if len(keys) != 2 {
		t.Fatalf("storage keys: %v", keys)
	}
	nonEmpty("storage keys[0].value", asMap(keys[0])["value"])
	for _, ns := range []string{"Microsoft.ServiceBus", "Microsoft.EventHub"} {
		n := put("/providers/"+ns+"/namespaces/ns-"+ns[10:], "2021-11-01", map[string]any{"location": "westeurope", "sku": map[string]any{"name": "Standard"}})
		rule := n[len(g):] + "/authorizationRules/RootManageSharedAccessKey"
		put(rule, "2021-11-01", map[string]any{"properties": map[string]any{"rights": []any{"Listen", "Send", "Manage"}}})
		nonEmpty(ns+" primaryConnectionString", post(g+rule, "listKeys", "2021-11-01")["primaryConnectionString"])
	}
	db := put("/providers/Microsoft.DocumentDB/databaseAccounts/cosmos-lists", "2023-04-15", map[string]any{"location": "westeurope", "properties": map[string]any{
		"databaseAccountOfferType": "Standard", "locations": []any{map[string]any{"locationName": "westeurope"}}}})
	nonEmpty("cosmos primaryMasterKey", post(db, "listKeys", "2023-04-15")["primaryMasterKey"])
	acr := put("/providers/Microsoft.ContainerRegistry/registries/acrlists1", "2023-07-01", map[string]any{"location": "westeurope", "sku": map[string]any{"name": "Basic"}, "properties": map[string]any{"adminUserEnabled": true}})
	pw, _ := post(acr, "listCredentials", "2023-07-01")["passwords"].([]any)
	if len(pw) == 0 {
		t.Fatal("acr passwords missing")
	}
	nonEmpty("acr passwords[0].value", asMap(pw[0])["value"])
}

// A Databricks workspace names the managed resource group the service
// makes for it: no such group exists before the write, and ARM takes it.
// A reference elsewhere to a missing group is still refused.
func TestReferenceToAServiceMadeGroup(t *testing.T) {
	u, g := startWithGroup(t, "dbw")
	sub := g[:len(g)-len("/resourceGroups/dbw")]
	r := do(t, http.MethodPut, u+g+"/providers/Microsoft.Databricks/workspaces/dbw1?api-version=2023-02-01", map[string]any{
		"location": "westeurope", "sku": map[string]any{"name": "premium"},
		"properties": map[string]any{"managedResourceGroupId": sub + "/resourceGroups/databricks-rg-dbw1"}})
	if r.Status >= 300 {
		t.Errorf("workspace naming its managed group: %d %s", r.Status, r.Raw)
	}
	r = do(t, http.MethodPut, u+g+"/providers/Microsoft.Network/networkInterfaces/nic1?api-version=2023-09-01", map[string]any{
		"location": "westeurope", "properties": map[string]any{
			"networkSecurityGroup": map[string]any{"id": g + "/providers/Microsoft.Network/networkSecurityGroups/absent"},
			"ipConfigurations":     []any{}}})
	if r.Status != 400 || errCode(r) != "InvalidResourceReference" {
		t.Errorf("a reference to a missing resource: %d %s, want 400 InvalidResourceReference", r.Status, r.Raw)
	}
}
