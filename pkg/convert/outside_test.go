package convert_test

import (
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/convert"
)

// TestOutsideResourcesAreExisting: reference() and listKeys() of resources
// the template does not create (oms-extension-ubuntu-vm's workspace, a
// vault in another group) become existing manifests placed by ID, which
// the values reference; one resource read twice is declared once.
func TestOutsideResourcesAreExisting(t *testing.T) {
	out, _ := convertText(t, `{`+schema+`,
  "parameters": {"workspaceName": {"type": "string", "defaultValue": "ws1"}},
  "resources": [
    {"type": "Microsoft.Resources/tags", "apiVersion": "2022-09-01", "name": "default",
     "properties": {"tags": {
       "ws": "[reference(resourceId('Microsoft.OperationalInsights/workspaces/', parameters('workspaceName')), '2020-08-01').customerId]",
       "kv": "[reference(resourceId('rg-shared', 'Microsoft.KeyVault/vaults', 'kv-shared'), '2023-07-01').vaultUri]"}}},
    {"type": "Microsoft.Web/sites", "apiVersion": "2023-12-01", "name": "app1", "location": "westeurope",
     "properties": {"siteConfig": {"appSettings": [{"name": "KEY", "value": "[listKeys(resourceId('Microsoft.OperationalInsights/workspaces', 'ws1'), '2020-08-01').primarySharedKey]"}]}}}]}`, convert.Scope{})
	wantAll(t, out,
		"ws: ${ref:ws1.properties.customerId}",
		"kv: ${ref:kv-shared.properties.vaultUri}",
		"name: listKeys\n                  path: primarySharedKey\n                  resource: ws1",
		"metadata:\n  name: ws1\n  annotations:\n    azure.kubectl.io/existing: \"true\"\nspec:\n  type: Microsoft.OperationalInsights/workspaces@2020-08-01\n  id: /subscriptions/${subscriptionId}/resourceGroups/rg-app/providers/Microsoft.OperationalInsights/workspaces/ws1",
		"type: Microsoft.KeyVault/vaults@2023-07-01\n  id: /subscriptions/${subscriptionId}/resourceGroups/rg-shared/providers/Microsoft.KeyVault/vaults/kv-shared",
	)
	if n := strings.Count(out, "azure.kubectl.io/existing"); n != 2 {
		t.Errorf("%d existing manifests, want 2 (ws1 once):\n%s", n, out)
	}
}

// TestOutsideReadsThatCannotBeExisting: a read without an api-version (ARM
// requires one outside the template), and a live value that would place a
// resource, stay problems.
func TestOutsideReadsThatCannotBeExisting(t *testing.T) {
	msg := convertErr(t, `{`+schema+`,
  "resources": [
    {"type": "Microsoft.Resources/tags", "apiVersion": "2022-09-01", "name": "default",
     "properties": {"tags": {"ws": "[reference(resourceId('Microsoft.OperationalInsights/workspaces', 'ws1')).customerId]"}}}]}`)
	if !strings.Contains(msg, "reads a resource this template does not create") {
		t.Errorf("no api-version: %s", msg)
	}
	msg = convertErr(t, `{`+schema+`,
  "resources": [
    {"type": "Microsoft.Network/privateDnsZones/A", "apiVersion": "2020-06-01",
     "name": "[concat(reference(resourceId('Microsoft.Web/hostingEnvironments/configurations', 'ase1', 'networking'), '2022-03-01').dnsSuffix, '/app')]",
     "properties": {"ttl": 3600}}]}`)
	if !strings.Contains(msg, "decides where the resource is") {
		t.Errorf("a live value in the parent: %s", msg)
	}
}

// TestActionWithBody: list*() with a request body known when converting
// (web-app-diagnostics-logs-blob-container's listAccountSas) is an action
// with that body; one with deploy-time parts stays a problem.
func TestActionWithBody(t *testing.T) {
	out, _ := convertText(t, `{`+schema+`,
  "variables": {"sas": {"signedServices": "b", "signedPermission": "rwdl", "signedExpiry": "2030-01-01T00:00:00Z", "signedResourceTypes": "sco"}},
  "resources": [
    {"type": "Microsoft.Storage/storageAccounts", "apiVersion": "2023-05-01", "name": "st1", "location": "westeurope", "kind": "StorageV2", "sku": {"name": "Standard_LRS"}},
    {"type": "Microsoft.Web/sites", "apiVersion": "2023-12-01", "name": "app1", "location": "westeurope",
     "properties": {"siteConfig": {"appSettings": [{"name": "SAS", "value": "[listAccountSas('st1', '2023-05-01', variables('sas')).accountSasToken]"}]}}}]}`, convert.Scope{})
	wantAll(t, out, "name: listAccountSas", "path: accountSasToken", "signedPermission: rwdl", "resource: st1")
	msg := convertErr(t, `{`+schema+`,
  "resources": [
    {"type": "Microsoft.Storage/storageAccounts", "apiVersion": "2023-05-01", "name": "st1", "location": "westeurope", "kind": "StorageV2", "sku": {"name": "Standard_LRS"}},
    {"type": "Microsoft.Web/sites", "apiVersion": "2023-12-01", "name": "app1", "location": "westeurope",
     "properties": {"siteConfig": {"appSettings": [{"name": "SAS", "value": "[listAccountSas('st1', '2023-05-01', createObject('signedExpiry', reference('st1').creationTime)).accountSasToken]"}]}}}]}`)
	if !strings.Contains(msg, "request body known only at deploy time") {
		t.Errorf("a body with deploy-time parts: %s", msg)
	}
}

// TestStringFunctionsOverDeployTimeValues: replace() and split()[i] (and
// first/last of a split) of a whole value known only at deploy time are a
// template with transform steps (the HDInsight quickstarts' storage host,
// a gateway's BGP address); inside a longer string they stay a problem.
func TestStringFunctionsOverDeployTimeValues(t *testing.T) {
	out, _ := convertText(t, `{`+schema+`,
  "resources": [
    {"type": "Microsoft.Storage/storageAccounts", "apiVersion": "2023-05-01", "name": "st1", "location": "westeurope", "kind": "StorageV2", "sku": {"name": "Standard_LRS"}},
    {"type": "Microsoft.Resources/tags", "apiVersion": "2022-09-01", "name": "default",
     "properties": {"tags": {
       "host": "[replace(replace(reference('st1', '2023-05-01').primaryEndpoints.web, 'https://', ''), '/', '')]",
       "first": "[first(split(reference('st1', '2023-05-01').primaryLocation, ','))]",
       "last": "[last(split(reference('st1', '2023-05-01').primaryLocation, ','))]",
       "second": "[split(reference('st1', '2023-05-01').primaryLocation, ',')[1]]"}}}]}`, convert.Scope{})
	wantAll(t, out, "template: ${ref:st1.properties.primaryEndpoints.web}", "old: https://", "old: /",
		"template: ${ref:st1.properties.primaryLocation}", "index: 0", "index: -1", "index: 1", "separator: ','")
	if n := strings.Count(out, "transform:"); n != 4 {
		t.Errorf("%d transforms, want 4:\n%s", n, out)
	}
	// Inside a longer string: a template part with its own steps.
	out, _ = convertText(t, `{`+schema+`,
  "resources": [
    {"type": "Microsoft.Storage/storageAccounts", "apiVersion": "2023-05-01", "name": "st1", "location": "westeurope", "kind": "StorageV2", "sku": {"name": "Standard_LRS"}},
    {"type": "Microsoft.Resources/tags", "apiVersion": "2022-09-01", "name": "default",
     "properties": {"tags": {"host": "[concat('host=', replace(reference('st1', '2023-05-01').primaryEndpoints.web, 'https://', ''), ';b64=', base64(reference('st1', '2023-05-01').primaryLocation))]"}}}]}`, convert.Scope{})
	wantAll(t, out, "template: host=${secret:s0};b64=${secret:s1}", "s0:\n", "template: ${ref:st1.properties.primaryEndpoints.web}", "old: https://",
		"template: ${ref:st1.properties.primaryLocation}", "encoding: base64")
	// Over a secret, a part would be a secret of its own: still a problem.
	msg := convertErr(t, `{`+schema+`,
  "parameters": {"pw": {"type": "securestring"}},
  "resources": [
    {"type": "Microsoft.Resources/tags", "apiVersion": "2022-09-01", "name": "default",
     "properties": {"tags": {"host": "[concat('pw=', replace(parameters('pw'), 'a', 'b'))]"}}}]}`)
	if !strings.Contains(msg, "only a whole value over a secret can be transformed") {
		t.Errorf("over a secret inside a longer string: %s", msg)
	}
}

// TestTransformedOutput: an output that is replace()/split() of one live
// value lists the get that reads the value and the steps that make the
// output of it (a prerequisite key's version, a static website's host);
// over a secret it stays (secret).
func TestTransformedOutput(t *testing.T) {
	_, res := convertText(t, `{`+schema+`,
  "parameters": {"pw": {"type": "securestring"}},
  "resources": [
    {"type": "Microsoft.Storage/storageAccounts", "apiVersion": "2023-05-01", "name": "st1", "location": "westeurope", "kind": "StorageV2", "sku": {"name": "Standard_LRS"}}],
  "outputs": {
    "host": {"type": "string", "value": "[replace(replace(reference('st1', '2023-05-01').primaryEndpoints.web, 'https://', ''), '/', '')]"},
    "last": {"type": "string", "value": "[last(split(reference('st1', '2023-05-01').primaryLocation, ','))]"},
    "pw": {"type": "string", "value": "[replace(parameters('pw'), 'a', 'b')]"}}}`, convert.Scope{})
	got := map[string]convert.Output{}
	for _, o := range res.Outputs {
		got[o.Name] = o
	}
	if h := got["host"]; !strings.Contains(h.Get, "Microsoft.Storage/storageAccounts/st1 -o jsonpath='{.body.properties.primaryEndpoints.web}'") ||
		h.Transform != `[{"replace":{"new":"","old":"https://"}},{"replace":{"new":"","old":"/"}}]` {
		t.Errorf("host: %+v", h)
	}
	if l := got["last"]; l.Transform != `[{"split":{"index":-1,"separator":","}}]` {
		t.Errorf("last: %+v", l)
	}
	if p := got["pw"]; p.Value != "(secret)" || p.Get != "" || p.Transform != "" {
		t.Errorf("pw: %+v", p)
	}
}
