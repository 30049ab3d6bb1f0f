package convert_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/convert"
)

// storageEndpointTemplate is the hdinsight quickstarts' storage profile: a
// host name cut out of the account's blob endpoint with replace(); account
// is the storage account's members, or a whole resource of another type.
func storageEndpointTemplate(account, ref string) string {
	if !strings.Contains(account, `"type"`) {
		account = `"type": "Microsoft.Storage/storageAccounts", "apiVersion": "2023-05-01", "location": "westeurope", "sku": {"name": "Standard_LRS"}, ` + account
	}
	return `{` + schema + `,
  "resources": [
    {"type": "Microsoft.Storage/storageAccounts", "apiVersion": "2023-05-01", "name": "stfixed01", "location": "westeurope", "sku": {"name": "Standard_LRS"}, "kind": "StorageV2"},
    {` + account + `},
    {"type": "Microsoft.Resources/tags", "apiVersion": "2022-09-01", "name": "default",
     "properties": {"tags": {"host": "[replace(replace(` + ref + `, 'https://', ''), '/', '')]",
                             "raw": "[reference(resourceId('Microsoft.Storage/storageAccounts', 'stfixed01')).primaryEndpoints.blob]"}}}]}`
}

// TestPredictedValues: a primary endpoint of a storage account the
// template creates is known from its name when its kind offers the service
// and its endpoints are the standard ones, as are a vault's URI and a SQL
// server's FQDN, so string functions over them evaluate; anything else
// stays a deploy-time value, which replace() transforms at apply time.
func TestPredictedValues(t *testing.T) {
	const byID = "reference(resourceId('Microsoft.Storage/storageAccounts', 'stdata01')).primaryEndpoints"
	for _, tc := range []struct {
		name, account, ref string
		want               string // the host; "" for a transform at apply time, "outside" when refused
	}{
		{"blob by ID", `"name": "stdata01", "kind": "StorageV2"`, byID + ".blob", "stdata01.blob.core.windows.net"},
		{"upper-case name", `"name": "StData01", "kind": "StorageV2"`, "reference(resourceId('Microsoft.Storage/storageAccounts', 'StData01')).primaryEndpoints.blob", "stdata01.blob.core.windows.net"},
		{"full reference", `"name": "stdata01", "kind": "Storage"`, "reference(resourceId('Microsoft.Storage/storageAccounts', 'stdata01'), '2023-05-01', 'Full').properties.primaryEndpoints.queue", "stdata01.queue.core.windows.net"},
		{"relative ID", `"name": "stdata01", "kind": "StorageV2"`, "reference('Microsoft.Storage/storageAccounts/stdata01', '2023-05-01').primaryEndpoints.table", "stdata01.table.core.windows.net"},
		{"bare name", `"name": "stdata01", "kind": "FileStorage"`, "reference('stdata01').primaryEndpoints.file", "stdata01.file.core.windows.net"},
		{"computed name", `"name": "[concat('st', 'data01')]", "kind": "StorageV2"`, byID + ".blob", "stdata01.blob.core.windows.net"},
		{"standard endpoint type", `"name": "stdata01", "kind": "StorageV2", "properties": {"dnsEndpointType": "Standard"}`, byID + ".blob", "stdata01.blob.core.windows.net"},
		{"DNS zone endpoints", `"name": "stdata01", "kind": "StorageV2", "properties": {"dnsEndpointType": "AzureDnsZone"}`, byID + ".blob", ""},
		{"web endpoint holds a zone", `"name": "stdata01", "kind": "StorageV2"`, byID + ".web", ""},
		{"kind without the service", `"name": "stdata01", "kind": "FileStorage"`, byID + ".blob", ""},
		{"no kind", `"name": "stdata01"`, byID + ".blob", ""},
		{"account not in the template", `"name": "stother", "kind": "StorageV2"`, "reference(resourceId('Microsoft.Storage/storageAccounts', 'stnone')).primaryEndpoints.blob", "outside"},
		{"vault URI", `"type": "Microsoft.KeyVault/vaults", "apiVersion": "2023-07-01", "name": "KV-App", "location": "westeurope"`, "reference(resourceId('Microsoft.KeyVault/vaults', 'KV-App')).vaultUri", "kv-app.vault.azure.net"},
		{"SQL server FQDN", `"type": "Microsoft.Sql/servers", "apiVersion": "2023-05-01-preview", "name": "sql-app", "location": "westeurope"`, "reference('sql-app').fullyQualifiedDomainName", "sql-app.database.windows.net"},
		{"API Management developer portal", `"type": "Microsoft.ApiManagement/service", "apiVersion": "2023-05-01-preview", "name": "apim-app", "location": "westeurope", "sku": {"name": "Developer", "capacity": 1}`, "reference(resourceId('Microsoft.ApiManagement/service', 'apim-app')).developerPortalUrl", "apim-app.developer.azure-api.net"},
		{"API Management consumption gateway", `"type": "Microsoft.ApiManagement/service", "apiVersion": "2023-05-01-preview", "name": "apim-app", "location": "westeurope", "sku": {"name": "Consumption", "capacity": 0}`, "reference(resourceId('Microsoft.ApiManagement/service', 'apim-app')).gatewayUrl", "apim-app.azure-api.net"},
		{"API Management consumption has no portal", `"type": "Microsoft.ApiManagement/service", "apiVersion": "2023-05-01-preview", "name": "apim-app", "location": "westeurope", "sku": {"name": "Consumption", "capacity": 0}`, "reference(resourceId('Microsoft.ApiManagement/service', 'apim-app')).developerPortalUrl", ""},
		{"API Management v2 tier", `"type": "Microsoft.ApiManagement/service", "apiVersion": "2023-05-01-preview", "name": "apim-app", "location": "westeurope", "sku": {"name": "StandardV2", "capacity": 1}`, "reference(resourceId('Microsoft.ApiManagement/service', 'apim-app')).gatewayUrl", ""},
		{"other values of a vault", `"type": "Microsoft.KeyVault/vaults", "apiVersion": "2023-07-01", "name": "kv-app", "location": "westeurope"`, "reference(resourceId('Microsoft.KeyVault/vaults', 'kv-app')).hsmPoolResourceId", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmpl, err := convert.Parse("t.json", []byte(storageEndpointTemplate(tc.account, tc.ref)))
			if err != nil {
				t.Fatal(err)
			}
			res, err := tmpl.Convert(context.Background(), convert.Options{Scope: convert.Scope{ResourceGroup: "rg-app", Location: "westeurope"}})
			if tc.want == "outside" {
				if err == nil || !strings.Contains(err.Error(), "reads a resource this template does not create") {
					t.Fatalf("want the read refused, got %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var buf strings.Builder
			if err := convert.Write(&buf, res.Manifests, "yaml"); err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				// Not predicted: replace() applies at apply time, to the
				// value read then.
				wantAll(t, buf.String(), "template: ${ref:", "transform:", "old: https://")
				return
			}
			// The endpoint written as it is stays a reference, and the
			// value known now still orders the tags after its resource.
			wantAll(t, buf.String(), "host: "+tc.want, "raw: ${ref:", "azure.kubectl.io/depends-on: ")
		})
	}
}
