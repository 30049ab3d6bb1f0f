package convert_test

import (
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/convert"
)

// TestOuterScopeOtherGroup: a nested template with the default (outer)
// evaluation scope that deploys to another group resolves resourceId()
// and resourceGroup() to the parent's group, as ARM does, so it can read
// the parent's server (sql-encryption-protector-byok adds an access policy
// to a vault elsewhere this way).
func TestOuterScopeOtherGroup(t *testing.T) {
	out, _ := convertText(t, `{`+schema+`,
  "resources": [
    {"type": "Microsoft.Sql/servers", "apiVersion": "2023-05-01-preview", "name": "sql1", "location": "westeurope", "identity": {"type": "SystemAssigned"},
     "properties": {"administratorLogin": "a", "version": "12.0"}},
    {"type": "Microsoft.Resources/deployments", "apiVersion": "2022-09-01", "name": "addAccessPolicy", "resourceGroup": "rg-vault",
     "properties": {"mode": "Incremental", "template": {`+schema+`, "resources": [
       {"type": "Microsoft.KeyVault/vaults/accessPolicies", "apiVersion": "2023-07-01", "name": "kv1/add",
        "properties": {"accessPolicies": [{"tenantId": "[subscription().tenantId]",
          "objectId": "[reference(resourceId('Microsoft.Sql/servers/', 'sql1'), '2023-05-01-preview', 'Full').identity.principalId]",
          "permissions": {"keys": ["get"]}, "applicationId": "[resourceGroup().name]"}]}}]}}}]}`, convert.Scope{})
	wantAll(t, out,
		"objectId: ${ref:sql1.identity.principalId}",
		"applicationId: rg-app",
		"parent: /subscriptions/${subscriptionId}/resourceGroups/rg-vault/providers/Microsoft.KeyVault/vaults/kv1",
	)
}

// TestNestedSameSubscriptionByID: a nested deployment whose subscriptionId
// is the --subscription given, written out (anf-smb-volume takes it from
// its prerequisites' outputs), deploys to the same subscription.
func TestNestedSameSubscriptionByID(t *testing.T) {
	const sub = "00000000-0000-0000-0000-00000000b0b0"
	out, _ := convertText(t, `{`+schema+`,
  "resources": [{"type": "Microsoft.Resources/deployments", "apiVersion": "2022-09-01", "name": "AddSubnet",
    "subscriptionId": "`+sub+`", "resourceGroup": "rg-net",
    "properties": {"mode": "Incremental", "template": {`+schema+`, "resources": [
      {"type": "Microsoft.Network/virtualNetworks/subnets", "apiVersion": "2023-09-01", "name": "vnet1/snet", "properties": {"addressPrefix": "10.0.1.0/24"}}]}}}]}`,
		convert.Scope{Subscription: sub, ResourceGroup: "rg-app", Location: "westeurope"})
	wantAll(t, out, "type: Microsoft.Network/virtualNetworks/subnets@2023-09-01")
}
