package emulator

import (
	"encoding/xml"
	"net/http"
	"strings"
	"testing"
)

// Every site has config/slotConfigNames from its creation, and POST
// publishxml answers the publish profile as XML.
func TestSiteSlotConfigNamesAndPublishXML(t *testing.T) {
	u, g := startWithGroup(t, "rg-web")
	q := "?api-version=2023-12-01"
	site := u + g + "/providers/Microsoft.Web/sites/app-emu-1"
	put(t, site+q, map[string]any{"location": "westeurope", "properties": map[string]any{}})
	names := get(t, site+"/config/slotConfigNames"+q)
	if props, ok := names["properties"].(map[string]any); !ok || props["appSettingNames"] != nil || !hasKeys(props, "appSettingNames", "connectionStringNames", "azureStorageConfigNames") {
		t.Errorf("slotConfigNames: %s", jsonText(names))
	}
	r := do(t, http.MethodPost, site+"/publishxml"+q, map[string]any{"format": "WebDeploy"})
	if r.Status != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/xml") {
		t.Fatalf("publishxml: %d %s %s", r.Status, r.Header.Get("Content-Type"), r.Raw)
	}
	var doc struct {
		Profiles []struct {
			Method string `xml:"publishMethod,attr"`
			URL    string `xml:"publishUrl,attr"`
			User   string `xml:"userName,attr"`
		} `xml:"publishProfile"`
	}
	if err := xml.Unmarshal([]byte(r.Raw), &doc); err != nil || len(doc.Profiles) != 3 {
		t.Fatalf("publishxml is not a publishData document (%v): %s", err, r.Raw)
	}
	if p := doc.Profiles[0]; p.Method != "MSDeploy" || p.URL != "app-emu-1.scm.azurewebsites.net:443" || p.User != "$app-emu-1" {
		t.Errorf("Web Deploy profile %+v", p)
	}
	if r := do(t, http.MethodPost, u+g+"/providers/Microsoft.Web/sites/missing/publishxml"+q, nil); r.Status != http.StatusNotFound {
		t.Errorf("publishxml of a missing site: %d %s", r.Status, r.Raw)
	}
}

func hasKeys(m map[string]any, keys ...string) bool {
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	return true
}

// PostgreSQL's name check is answered at a location (the flexible server
// API) and at the provider, and sees the servers that exist.
func TestPostgresCheckNameAvailability(t *testing.T) {
	u, g := startWithGroup(t, "rg-pg")
	sub := "/subscriptions/" + testSub
	server := u + g + "/providers/Microsoft.DBforPostgreSQL/flexibleServers/pg-emu-taken?api-version=2022-12-01"
	put(t, server, map[string]any{"location": "westeurope", "sku": map[string]any{"name": "Standard_B1ms", "tier": "Burstable"},
		"properties": map[string]any{"administratorLogin": "pgadmin", "administratorLoginPassword": "P@ssw0rd-1234-x", "version": "16", "storage": map[string]any{"storageSizeGB": 32}}})
	for _, path := range []string{
		sub + "/providers/Microsoft.DBforPostgreSQL/locations/westeurope/checkNameAvailability?api-version=2022-12-01",
		sub + "/providers/Microsoft.DBforPostgreSQL/checkNameAvailability?api-version=2022-12-01",
	} {
		for name, want := range map[string]bool{"pg-emu-taken": false, "pg-emu-free": true} {
			r := do(t, http.MethodPost, u+path, map[string]any{"name": name, "type": "Microsoft.DBforPostgreSQL/flexibleServers"})
			if r.Status != http.StatusOK || r.Body["nameAvailable"] != want {
				t.Errorf("%s %s: %d %s, want nameAvailable %v", path, name, r.Status, r.Raw, want)
			}
		}
	}
}

// The provider lists its language stacks, one OS's settings when asked.
func TestWebAppStacks(t *testing.T) {
	u := startTest(t, nil).URL()
	all := get(t, u+"/providers/Microsoft.Web/webAppStacks?api-version=2023-12-01")["value"].([]any)
	if len(all) < 3 || at(all[0], "type") != "Microsoft.Web/webAppStacks" {
		t.Fatalf("stacks: %s", jsonText(all))
	}
	linux := get(t, u+"/providers/Microsoft.Web/webAppStacks?api-version=2023-12-01&stackOsType=Linux")["value"].([]any)
	for _, st := range linux {
		for _, m := range at(st, "properties", "majorVersions").([]any) {
			for _, v := range at(m, "minorVersions").([]any) {
				ss := asMap(at(v, "stackSettings"))
				if _, win := ss["windowsRuntimeSettings"]; win || at(ss, "linuxRuntimeSettings", "runtimeVersion") == nil {
					t.Errorf("Linux stack %v: %s", at(st, "name"), jsonText(ss))
				}
			}
		}
	}
}

// A resource lists the diagnostic settings categories its type has.
func TestDiagnosticSettingsCategories(t *testing.T) {
	u, g := startWithGroup(t, "rg-diag")
	kv := g + "/providers/Microsoft.KeyVault/vaults/kv-diag-cats"
	put(t, u+kv+"?api-version=2023-07-01", map[string]any{"location": "westeurope", "properties": map[string]any{
		"tenantId": emulatorTenant, "sku": map[string]any{"family": "A", "name": "standard"}, "enableRbacAuthorization": true}})
	q := "?api-version=2021-05-01-preview"
	items := get(t, u+kv+"/providers/Microsoft.Insights/diagnosticSettingsCategories"+q)["value"].([]any)
	got := map[string]any{}
	for _, it := range items {
		got[at(it, "name").(string)] = at(it, "properties", "categoryType")
	}
	if got["AuditEvent"] != "Logs" || got["AllMetrics"] != "Metrics" {
		t.Errorf("Key Vault categories %s", jsonText(items))
	}
	if one := get(t, u+kv+"/providers/Microsoft.Insights/diagnosticSettingsCategories/AuditEvent"+q); one["name"] != "AuditEvent" {
		t.Errorf("one category %s", jsonText(one))
	}
	if r := do(t, http.MethodGet, u+g+"/providers/Microsoft.KeyVault/vaults/missing/providers/Microsoft.Insights/diagnosticSettingsCategories"+q, nil); r.Status != http.StatusNotFound {
		t.Errorf("categories of a missing resource: %d %s", r.Status, r.Raw)
	}
}
