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
