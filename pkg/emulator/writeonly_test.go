package emulator

import (
	"net/http"
	"strings"
	"testing"
)

// Readonly input is ignored and the server's own value kept; write-only
// input is never returned (sources in writeonly.go). Both quirks modes:
// these are ARM's rules, not recorded quirks.
func TestReadOnlyInputIgnored(t *testing.T) {
	for _, mode := range []QuirksMode{QuirksCorpus, QuirksNone} {
		t.Run(string(mode), func(t *testing.T) {
			s := startTest(t, func(o *Options) { o.LRODuration = 0; o.Quirks = mode })
			u := s.URL() + "/subscriptions/" + testSub + "/resourceGroups/ro"
			do(t, http.MethodPut, u+"?api-version=2021-04-01", map[string]any{"location": "westeurope"})
			vnet := u + "/providers/Microsoft.Network/virtualNetworks/v?api-version=2024-01-01"
			body := map[string]any{"location": "westeurope", "properties": map[string]any{
				"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}},
				"resourceGuid": "11111111-1111-1111-1111-111111111111",
			}}
			if r := do(t, http.MethodPut, vnet, body); r.Status >= 300 {
				t.Fatalf("PUT: %d %s", r.Status, r.Raw)
			}
			g := do(t, http.MethodGet, vnet, nil)
			first := str(g.Body, "properties", "resourceGuid")
			if first == "11111111-1111-1111-1111-111111111111" {
				t.Fatalf("readonly resourceGuid stored as sent: %s", g.Raw)
			}
			// A second PUT with another value keeps the server's one.
			body["properties"].(map[string]any)["resourceGuid"] = "22222222-2222-2222-2222-222222222222"
			do(t, http.MethodPut, vnet, body)
			if got := str(do(t, http.MethodGet, vnet, nil).Body, "properties", "resourceGuid"); got != first {
				t.Errorf("resourceGuid after a second PUT = %q, want the server's %q", got, first)
			}

			sa := u + "/providers/Microsoft.Storage/storageAccounts/rostorage1?api-version=2023-01-01"
			do(t, http.MethodPut, sa, map[string]any{"location": "westeurope", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"},
				"properties": map[string]any{"creationTime": "2001-01-01T00:00:00Z", "primaryEndpoints": map[string]any{"blob": "https://evil.example/"}}})
			g = do(t, http.MethodGet, sa, nil)
			if strings.Contains(g.Raw, "2001-01-01") || strings.Contains(g.Raw, "evil.example") {
				t.Errorf("readonly storage properties stored as sent: %s", g.Raw)
			}
		})
	}
}

func TestWriteOnlyNeverReturned(t *testing.T) {
	for _, mode := range []QuirksMode{QuirksCorpus, QuirksNone} {
		t.Run(string(mode), func(t *testing.T) {
			s := startTest(t, func(o *Options) { o.LRODuration = 0; o.Quirks = mode; o.SkipReferenceCheck = true })
			g := "/subscriptions/" + testSub + "/resourceGroups/wo"
			do(t, http.MethodPut, s.URL()+g+"?api-version=2021-04-01", map[string]any{"location": "westeurope"})
			const secret = "s3cr3t-Value-That-Must-Not-Leak"
			cases := []struct {
				name, id, version string
				body              map[string]any
				check             func(t *testing.T, got map[string]any)
			}{
				{"key vault secret value", g + "/providers/Microsoft.KeyVault/vaults/kvwo/secrets/s", "2023-07-01",
					map[string]any{"properties": map[string]any{"value": secret, "contentType": "text/plain"}},
					func(t *testing.T, got map[string]any) {
						if _, ok := got["properties"].(map[string]any)["value"]; ok {
							t.Error("properties.value present")
						}
					}},
				{"site appSettings", g + "/providers/Microsoft.Web/sites/sitewo", "2023-12-01",
					map[string]any{"location": "westeurope", "properties": map[string]any{"siteConfig": map[string]any{
						"appSettings":       []any{map[string]any{"name": "DB_PASSWORD", "value": secret}},
						"connectionStrings": []any{map[string]any{"name": "db", "connectionString": secret, "type": "SQLAzure"}},
					}}},
					func(t *testing.T, got map[string]any) {
						sc := got["properties"].(map[string]any)["siteConfig"].(map[string]any)
						if v, ok := sc["appSettings"]; !ok || v != nil {
							t.Errorf("siteConfig.appSettings = %v (present %v), want null", v, ok)
						}
					}},
				{"data factory SecureString", g + "/providers/Microsoft.DataFactory/factories/adfwo/linkedservices/ls", "2018-06-01",
					map[string]any{"properties": map[string]any{"type": "AzureSqlDatabase", "typeProperties": map[string]any{
						"connectionString": map[string]any{"type": "SecureString", "value": secret}}}},
					func(t *testing.T, got map[string]any) {
						if v := str(got, "properties", "typeProperties", "connectionString", "value"); v != "**********" {
							t.Errorf("SecureString value = %q, want the mask", v)
						}
					}},
				{"vm adminPassword", g + "/providers/Microsoft.Compute/virtualMachines/vmwo", "2024-03-01",
					map[string]any{"location": "westeurope", "properties": map[string]any{
						"hardwareProfile": map[string]any{"vmSize": "Standard_B1s"},
						"osProfile":       map[string]any{"computerName": "vm", "adminUsername": "azureuser", "adminPassword": secret},
					}},
					func(t *testing.T, got map[string]any) {
						if _, ok := got["properties"].(map[string]any)["osProfile"].(map[string]any)["adminPassword"]; ok {
							t.Error("adminPassword present")
						}
					}},
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					if parent := parentOf(c.id); parent != "" {
						if err := s.Seed(parent, c.version, map[string]any{"location": "westeurope", "properties": map[string]any{}}); err != nil {
							t.Fatal(err)
						}
					}
					put := do(t, http.MethodPut, s.URL()+c.id+"?api-version="+c.version, c.body)
					if put.Status >= 300 && put.Status != http.StatusAccepted {
						t.Fatalf("PUT: %d %s", put.Status, put.Raw)
					}
					for _, r := range []resp{put, do(t, http.MethodGet, s.URL()+c.id+"?api-version="+c.version, nil)} {
						if strings.Contains(r.Raw, secret) {
							t.Fatalf("write-only value echoed: %s", r.Raw)
						}
					}
					got := do(t, http.MethodGet, s.URL()+c.id+"?api-version="+c.version, nil)
					c.check(t, got.Body)
					// Nor does the admin dump or a list keep it.
					dump := do(t, http.MethodGet, s.URL()+"/_emulator/resources", nil)
					if strings.Contains(dump.Raw, secret) {
						t.Errorf("admin dump holds the write-only value")
					}
				})
			}
		})
	}
}

// parentOf is the ID of the parent of a child resource ID, "" for a
// top-level resource.
func parentOf(id string) string {
	segs := strings.Split(id, "/")
	if len(segs) <= 9 {
		return ""
	}
	return strings.Join(segs[:len(segs)-2], "/")
}
