package cli_test

import (
	"strings"
	"testing"
)

// TestSecretsImportNeverPrintsSecrets: import turns live bodies into
// manifests; wherever the service returns a secret (a Key Vault secret's
// value, VM extension protectedSettings, App Service settings and
// connection strings, Data Factory connection strings), the manifest reads
// it from an environment variable and neither the output nor state holds
// it. Bodies are shaped as the SDKs send them.
func TestSecretsImportNeverPrintsSecrets(t *testing.T) {
	e := newEnv(t, nil)
	group := rg("rg-imp")
	seeds := []struct {
		id, apiVersion string
		body           map[string]any
		clear          []string
	}{
		{group + "/providers/Microsoft.KeyVault/vaults/kvimp/secrets/db", "2023-07-01",
			map[string]any{"properties": map[string]any{"value": "Imp-Kv-S3cret-1", "contentType": "text/plain", "attributes": map[string]any{"enabled": true}}},
			[]string{"Imp-Kv-S3cret-1"}},
		{group + "/providers/Microsoft.Compute/virtualMachines/vm1/extensions/CustomScript", "2024-03-01",
			map[string]any{"location": "westeurope", "properties": map[string]any{
				"publisher": "Microsoft.Azure.Extensions", "type": "CustomScript", "typeHandlerVersion": "2.1",
				"settings":          map[string]any{"fileUris": []any{"https://example.org/setup.sh"}},
				"protectedSettings": map[string]any{"commandToExecute": "Imp-Protected-S3cret-2 --token x", "storageAccountKey": "Imp-Protected-Key-2b"},
			}},
			[]string{"Imp-Protected-S3cret-2", "Imp-Protected-Key-2b"}},
		{group + "/providers/Microsoft.Web/sites/app1/config/appsettings", "2023-12-01",
			map[string]any{"properties": map[string]any{"DB_HOST": "Imp-AppSetting-S3cret-3", "WEBSITE_RUN_FROM_PACKAGE": "Imp-AppSetting-S3cret-3b"}},
			[]string{"Imp-AppSetting-S3cret-3"}},
		{group + "/providers/Microsoft.Web/sites/app1/config/connectionstrings", "2023-12-01",
			map[string]any{"properties": map[string]any{"db": map[string]any{"value": "Server=tcp:x;Password=Imp-ConnStr-S3cret-4", "type": "SQLAzure"}}},
			[]string{"Imp-ConnStr-S3cret-4"}},
		{group + "/providers/Microsoft.DataFactory/factories/adf1/linkedservices/sql", "2018-06-01",
			map[string]any{"properties": map[string]any{"type": "AzureSqlDatabase", "typeProperties": map[string]any{
				"connectionString": map[string]any{"type": "SecureString", "value": "Server=tcp:y;Password=Imp-Adf-S3cret-5"},
			}}},
			[]string{"Imp-Adf-S3cret-5"}},
		{group + "/providers/Microsoft.DataFactory/factories/adf1/linkedservices/blob", "2018-06-01",
			map[string]any{"properties": map[string]any{"type": "AzureBlobStorage", "typeProperties": map[string]any{
				"connectionString": "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=Imp-Adf-S3cret-6",
			}}},
			[]string{"Imp-Adf-S3cret-6"}},
	}
	for _, s := range seeds {
		if err := e.srv.Seed(s.id, s.apiVersion, s.body); err != nil {
			t.Fatal(err)
		}
	}
	texts := map[string]string{}
	for _, s := range seeds {
		out, errOut, code := e.run("import", s.id)
		if code != 0 {
			t.Fatalf("import %s: exit %d\n%s\n%s", s.id, code, out, errOut)
		}
		texts["import "+s.id] = out + errOut
		if !strings.Contains(out, "valueFrom") {
			t.Errorf("import %s: the secret is not read from valueFrom:\n%s", s.id, out)
		}
	}
	for k, v := range e.stateFiles() {
		texts[k] = v
	}
	for _, s := range seeds {
		for _, c := range s.clear {
			noLeak(t, c, texts)
		}
	}
}

// TestSecretsImportNamesSecretsAzureWithholds: GET never returns a Key
// Vault secret's value; the imported manifest says it is left out and how
// to supply it.
func TestSecretsImportNamesSecretsAzureWithholds(t *testing.T) {
	e := newEnv(t, nil)
	id := rg("rg-imp") + "/providers/Microsoft.KeyVault/vaults/kvimp/secrets/db"
	if err := e.srv.Seed(id, "2023-07-01", map[string]any{"properties": map[string]any{"contentType": "text/plain"}}); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := e.run("import", id, "--no-state")
	if code != 0 {
		t.Fatalf("import: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "under spec.body.properties:") || !strings.Contains(out, "value: {valueFrom:") {
		t.Errorf("the withheld secret value is not named:\n%s\n%s", out, errOut)
	}
}
