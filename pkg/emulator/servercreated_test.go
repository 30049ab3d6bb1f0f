package emulator

import (
	"net/http"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// Children RPs create on their own, action answers of the right shape and
// server-filled fields (sources in servercreated.go and actions.go).
func TestServerCreatedChildrenAndActions(t *testing.T) {
	s := startTest(t, func(o *Options) { o.LRODuration = 0; o.SkipReferenceCheck = true })
	u := s.URL()
	g := "/subscriptions/" + testSub + "/resourceGroups/rp"
	do(t, http.MethodPut, u+g+"?api-version=2021-04-01", map[string]any{"location": "westeurope"})
	put := func(id, v string, body map[string]any) {
		t.Helper()
		if r := do(t, http.MethodPut, u+id+"?api-version="+v, body); r.Status >= 300 && r.Status != 202 {
			t.Fatalf("PUT %s: %d %s", id, r.Status, r.Raw)
		}
	}
	get := func(id, v string) resp {
		t.Helper()
		return do(t, http.MethodGet, u+id+"?api-version="+v, nil)
	}
	post := func(id, v string) resp {
		t.Helper()
		return do(t, http.MethodPost, u+id+"?api-version="+v, nil)
	}
	loc := map[string]any{"location": "westeurope", "properties": map[string]any{}}

	sb := g + "/providers/Microsoft.ServiceBus/namespaces/sbns"
	put(sb, "2022-10-01-preview", map[string]any{"location": "westeurope", "sku": map[string]any{"name": "Standard"}})
	rule := sb + "/authorizationRules/RootManageSharedAccessKey"
	if r := get(rule, "2022-10-01-preview"); r.Status != 200 || !strings.Contains(r.Raw, "Manage") {
		t.Errorf("RootManageSharedAccessKey: %d %s", r.Status, r.Raw)
	}
	keys := post(rule+"/listKeys", "2022-10-01-preview")
	if cs := str(keys.Body, "primaryConnectionString"); !strings.HasPrefix(cs, "Endpoint=sb://sbns.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=") {
		t.Errorf("listKeys connection string = %q (%s)", cs, keys.Raw)
	}

	eh := g + "/providers/Microsoft.EventHub/namespaces/ehns"
	put(eh, "2024-01-01", map[string]any{"location": "westeurope", "sku": map[string]any{"name": "Standard"}})
	put(eh+"/eventhubs/hub", "2024-01-01", map[string]any{"properties": map[string]any{"partitionCount": 2}})
	if r := get(eh+"/eventhubs/hub/consumergroups/$Default", "2024-01-01"); r.Status != 200 {
		t.Errorf("$Default consumer group: %d %s", r.Status, r.Raw)
	}

	sql := g + "/providers/Microsoft.Sql/servers/sqlsrv"
	put(sql, "2023-05-01-preview", map[string]any{"location": "westeurope", "properties": map[string]any{"administratorLogin": "a", "administratorLoginPassword": "P@ssw0rd-1234"}})
	if r := get(sql+"/databases/master", "2023-05-01-preview"); r.Status != 200 || str(r.Body, "sku", "name") != "System" {
		t.Errorf("master database: %d %s", r.Status, r.Raw)
	}

	pg := g + "/providers/Microsoft.DBforPostgreSQL/flexibleServers/pgsrv"
	put(pg, "2023-06-01-preview", map[string]any{"location": "westeurope", "sku": map[string]any{"name": "Standard_B1ms", "tier": "Burstable"}, "properties": map[string]any{"version": "16"}})
	if r := get(pg+"/databases/postgres", "2023-06-01-preview"); r.Status != 200 {
		t.Errorf("postgres database: %d %s", r.Status, r.Raw)
	}

	site := g + "/providers/Microsoft.Web/sites/rpsite"
	put(site, "2023-12-01", map[string]any{"location": "westeurope", "properties": map[string]any{"siteConfig": map[string]any{"alwaysOn": true}}})
	if r := get(site+"/config/web", "2023-12-01"); r.Status != 200 || asMap(r.Body["properties"])["alwaysOn"] != true {
		t.Errorf("config/web: %d %s", r.Status, r.Raw)
	}
	if h := str(get(site, "2023-12-01").Body, "properties", "defaultHostName"); h != "rpsite.azurewebsites.net" {
		t.Errorf("site defaultHostName = %q", h)
	}
	put(site+"/slots/staging", "2023-12-01", loc)
	if h := str(get(site+"/slots/staging", "2023-12-01").Body, "properties", "defaultHostName"); h != "rpsite-staging.azurewebsites.net" {
		t.Errorf("slot defaultHostName = %q", h)
	}

	zone := g + "/providers/Microsoft.Network/dnszones/example.com"
	put(zone, "2018-05-01", map[string]any{"location": "global"})
	if ns, _ := asMap(get(zone, "2018-05-01").Body["properties"])["nameServers"].([]any); len(ns) != 4 {
		t.Errorf("zone nameServers = %v", ns)
	}
	put(zone+"/A/www", "2018-05-01", map[string]any{"properties": map[string]any{"TTL": 300, "ARecords": []any{map[string]any{"ipv4Address": "10.0.0.1"}}}})
	if f := str(get(zone+"/A/www", "2018-05-01").Body, "properties", "fqdn"); f != "www.example.com." {
		t.Errorf("record fqdn = %q", f)
	}

	la := g + "/providers/Microsoft.OperationalInsights/workspaces/law"
	put(la, "2022-10-01", loc)
	if k := post(la+"/sharedKeys", "2022-10-01"); str(k.Body, "primarySharedKey") == "" {
		t.Errorf("sharedKeys: %d %s", k.Status, k.Raw)
	}

	cosmos := g + "/providers/Microsoft.DocumentDB/databaseAccounts/cosmosacct"
	put(cosmos, "2024-05-15", map[string]any{"location": "westeurope", "properties": map[string]any{"databaseAccountOfferType": "Standard", "locations": []any{map[string]any{"locationName": "westeurope"}}}})
	cs := post(cosmos+"/listConnectionStrings", "2024-05-15")
	list, _ := cs.Body["connectionStrings"].([]any)
	if len(list) != 4 || !strings.HasPrefix(str(list[0], "connectionString"), "AccountEndpoint=https://cosmosacct.documents.azure.com:443/;AccountKey=") {
		t.Errorf("listConnectionStrings: %d %s", cs.Status, cs.Raw)
	}

	app := g + "/providers/Microsoft.App/containerApps/capp"
	put(app, "2024-03-01", map[string]any{"location": "westeurope", "properties": map[string]any{"configuration": map[string]any{
		"secrets": []any{map[string]any{"name": "db", "value": "s3cret-db"}}}}})
	if r := get(app, "2024-03-01"); strings.Contains(r.Raw, "s3cret-db") {
		t.Errorf("container app GET carries the secret value: %s", r.Raw)
	}
	sec := post(app+"/listSecrets", "2024-03-01")
	vals, _ := sec.Body["value"].([]any)
	if len(vals) != 1 || str(vals[0], "name") != "db" || str(vals[0], "value") != "s3cret-db" {
		t.Errorf("listSecrets: %d %s", sec.Status, sec.Raw)
	}
}

func TestBuiltinRoleDefinitions(t *testing.T) {
	s := startTest(t, nil)
	sub := "/subscriptions/" + testSub + "/providers/Microsoft.Authorization/roleDefinitions"
	r := do(t, http.MethodGet, s.URL()+sub+"/acdd72a7-3385-48ef-bd42-f606fba81ae7?api-version=2022-04-01", nil)
	if r.Status != 200 || str(r.Body, "properties", "roleName") != "Reader" || str(r.Body, "properties", "type") != "BuiltInRole" {
		t.Fatalf("GET Reader: %d %s", r.Status, r.Raw)
	}
	l := do(t, http.MethodGet, s.URL()+sub+"?api-version=2022-04-01&$filter=roleName%20eq%20%27Storage%20Blob%20Data%20Contributor%27", nil)
	items, _ := l.Body["value"].([]any)
	if len(items) != 1 || str(items[0], "name") != "ba92f5b4-2d11-453d-a403-e96b0029c9fe" {
		t.Fatalf("list by roleName: %d %s", l.Status, l.Raw)
	}
	if r := do(t, http.MethodGet, s.URL()+sub+"/99999999-9999-4999-8999-999999999999?api-version=2022-04-01", nil); r.Status != 404 {
		t.Errorf("unknown role definition: %d", r.Status)
	}
}

// Diagnostic settings survive their resource's deletion and come back when
// it is created again (source in servercreated.go).
func TestDiagnosticSettingsOutliveTheirResource(t *testing.T) {
	s := startTest(t, func(o *Options) { o.LRODuration = 0; o.SkipReferenceCheck = true })
	u := s.URL()
	g := "/subscriptions/" + testSub + "/resourceGroups/diag"
	do(t, http.MethodPut, u+g+"?api-version=2021-04-01", map[string]any{"location": "westeurope"})
	id := g + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/idd"
	do(t, http.MethodPut, u+id+"?api-version=2023-01-31", map[string]any{"location": "westeurope"})
	diag := id + "/providers/Microsoft.Insights/diagnosticSettings/toLaw?api-version=2021-05-01-preview"
	// Created with 200, the one status its spec declares.
	if r := do(t, http.MethodPut, u+diag, map[string]any{"properties": map[string]any{"workspaceId": g + "/providers/Microsoft.OperationalInsights/workspaces/law", "logs": []any{}}}); r.Status != 200 {
		t.Fatalf("diagnostic setting: %d %s", r.Status, r.Raw)
	}
	if r := do(t, http.MethodDelete, u+id+"?api-version=2023-01-31", nil); r.Status >= 300 {
		t.Fatalf("delete: %d %s", r.Status, r.Raw)
	}
	if r := do(t, http.MethodGet, u+diag, nil); r.Status != 404 {
		t.Errorf("diagnostic setting while its resource is gone: %d", r.Status)
	}
	do(t, http.MethodPut, u+id+"?api-version=2023-01-31", map[string]any{"location": "westeurope"})
	if r := do(t, http.MethodGet, u+diag, nil); r.Status != 200 || str(r.Body, "properties", "workspaceId") == "" {
		t.Errorf("diagnostic setting after re-create: %d %s", r.Status, r.Raw)
	}
}

func TestBuiltinPolicyDefinitions(t *testing.T) {
	s := startTest(t, nil)
	r := do(t, http.MethodGet, s.URL()+"/providers/Microsoft.Authorization/policyDefinitions/e56962a6-4747-49cd-b67b-bf8b01975c4c?api-version=2023-04-01", nil)
	if r.Status != 200 || str(r.Body, "properties", "displayName") != "Allowed locations" || str(r.Body, "properties", "policyType") != "BuiltIn" {
		t.Fatalf("GET Allowed locations: %d %s", r.Status, r.Raw)
	}
}

// PostgreSQL server parameters exist before any write; a PUT changes one.
func TestPostgresParameters(t *testing.T) {
	u, g := startWithGroup(t, "pgp")
	srv := g + "/providers/Microsoft.DBforPostgreSQL/flexibleServers/pgp1"
	const v = "?api-version=2023-06-01-preview"
	do(t, http.MethodPut, u+srv+v, map[string]any{"location": "westeurope", "sku": map[string]any{"name": "Standard_B1ms", "tier": "Burstable"}, "properties": map[string]any{"version": "16"}})
	if r := do(t, http.MethodGet, u+srv+"/configurations/require_secure_transport"+v, nil); r.Status != 200 || str(r.Body, "properties", "value") != "on" {
		t.Fatalf("default parameter: %d %s", r.Status, r.Raw)
	}
	if r := do(t, http.MethodPut, u+srv+"/configurations/require_secure_transport"+v, map[string]any{"properties": map[string]any{"value": "off", "source": "user-override"}}); r.Status >= 300 {
		t.Fatalf("PUT parameter: %d %s", r.Status, r.Raw)
	}
	if r := do(t, http.MethodGet, u+srv+"/configurations/require_secure_transport"+v, nil); str(r.Body, "properties", "value") != "off" {
		t.Errorf("after PUT: %s", r.Raw)
	}
	l := do(t, http.MethodGet, u+srv+"/configurations"+v, nil)
	items, _ := l.Body["value"].([]any)
	if len(items) != len(pgParameters) || !strings.Contains(l.Raw, `"off"`) {
		t.Errorf("list: %d items %s", len(items), truncate(l.Raw, 200))
	}
	if r := do(t, http.MethodDelete, u+srv+"/configurations/require_secure_transport"+v, nil); r.Status != 405 {
		t.Errorf("DELETE parameter: %d, want 405", r.Status)
	}
}

// A site's app settings are null on its GET and read back with POST
// config/appsettings/list.
func TestSiteAppSettingsList(t *testing.T) {
	u, g := startWithGroup(t, "apps")
	site := g + "/providers/Microsoft.Web/sites/appsite1"
	const v = "?api-version=2023-12-01"
	do(t, http.MethodPut, u+site+v, map[string]any{"location": "westeurope", "properties": map[string]any{"siteConfig": map[string]any{
		"appSettings": []any{map[string]any{"name": "MODE", "value": "prod"}}}}})
	r := do(t, http.MethodPost, u+site+"/config/appsettings/list"+v, nil)
	if r.Status != 200 || str(r.Body, "properties", "MODE") != "prod" {
		t.Fatalf("appsettings/list: %d %s", r.Status, r.Raw)
	}
	do(t, http.MethodPut, u+site+"/config/appsettings"+v, map[string]any{"properties": map[string]any{"MODE": "dev", "X": "1"}})
	r = do(t, http.MethodPost, u+site+"/config/appsettings/list"+v, nil)
	if str(r.Body, "properties", "MODE") != "dev" || str(r.Body, "properties", "X") != "1" {
		t.Errorf("appsettings/list after PUT: %s", r.Raw)
	}
}

// Azure gives every user-assigned identity its principal, client and
// tenant IDs, also one created with no properties at all (the usual PUT).
func TestIdentityWithoutPropertiesGetsItsIDs(t *testing.T) {
	s := startTest(t, func(o *Options) { o.LRODuration = 0 })
	u := s.URL()
	g := "/subscriptions/" + testSub + "/resourceGroups/ids"
	do(t, http.MethodPut, u+g+"?api-version=2021-04-01", map[string]any{"location": "westeurope"})
	id := g + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-bare"
	if r := do(t, http.MethodPut, u+id+"?api-version=2023-01-31", map[string]any{"location": "westeurope"}); r.Status >= 300 {
		t.Fatalf("PUT: %d %s", r.Status, r.Raw)
	}
	r := do(t, http.MethodGet, u+id+"?api-version=2023-01-31", nil)
	for _, k := range []string{"principalId", "clientId", "tenantId"} {
		if str(r.Body, "properties", k) == "" {
			t.Errorf("GET lacks properties.%s: %s", k, r.Raw)
		}
	}
}

// TestChildBodiesAreInTheTable: the emulator creates only children the
// shared table lists (schema.ServerCreated), so what it makes on its own
// and what delete and import treat as the service's cannot drift apart.
func TestChildBodiesAreInTheTable(t *testing.T) {
	for key := range childBodies {
		i := strings.LastIndexByte(key, '/')
		if !(*schema.Registry)(nil).ServerCreated(key[:i], key[i+1:]) {
			t.Errorf("the emulator creates %s, which schema's server-created table does not list", key)
		}
	}
}
