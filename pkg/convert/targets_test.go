package convert_test

import (
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/convert"
)

// TestReferenceTargets: reference() and listKeys() name the resource by a
// relative ID ('Microsoft.Storage/storageAccounts/st1', as bootstorm-vm-boot-time
// does), by an ID built as a string (vm-diagnostics-extension-windows), or by
// format('{0}', resourceId(...)) (digitaltwins-with-function-private-link):
// each is the converted resource.
func TestReferenceTargets(t *testing.T) {
	out, _ := convertText(t, `{`+schema+`,
  "variables": {"accountid": "[concat(resourceGroup().id, '/providers/Microsoft.Storage/storageAccounts/', 'st1')]"},
  "resources": [
    {"type": "Microsoft.Storage/storageAccounts", "apiVersion": "2023-05-01", "name": "st1", "location": "westeurope", "kind": "StorageV2", "sku": {"name": "Standard_LRS"}},
    {"type": "Microsoft.Insights/components", "apiVersion": "2020-02-02", "name": "ai1", "location": "westeurope", "kind": "web", "properties": {"Application_Type": "web"}},
    {"type": "Microsoft.Resources/tags", "apiVersion": "2022-09-01", "name": "default",
     "properties": {"tags": {
       "blob": "[reference(concat('Microsoft.Storage/storageAccounts/', 'st1'), '2015-06-15').primaryEndpoints.blob]",
       "ikey": "[reference(format('{0}', resourceId('Microsoft.Insights/components', 'ai1')), '2020-02-02').InstrumentationKey]"}}},
    {"type": "Microsoft.Web/sites", "apiVersion": "2023-12-01", "name": "app1", "location": "westeurope",
     "properties": {"siteConfig": {"appSettings": [{"name": "KEY", "value": "[listKeys(variables('accountid'), '2015-05-01-preview').key1]"}]}}}]}`, convert.Scope{})
	wantAll(t, out,
		"blob: ${ref:st1.properties.primaryEndpoints.blob}",
		"ikey: ${ref:ai1.properties.InstrumentationKey}",
		"action:\n                  apiVersion: 2015-05-01-preview\n                  name: listKeys\n                  path: key1\n                  resource: st1",
	)
	if strings.Contains(out, "reads a resource this template does not create") {
		t.Error(out)
	}
}
