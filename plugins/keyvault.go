package plugins

import (
	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// Key Vault: a vault created without network rules reports no networkAcls
// at all; the values the CLI sends are the service's defaults. Evidence:
// azure-cli-extensions:src/aks-preview/azext_aks_preview/tests/latest/recordings/test_aks_approuting_update.yaml#1.
// The general rule for objects GET leaves out now keeps that record quiet;
// the defaults stay because removing networkAcls from a manifest resets
// them to these values (a "reset to default" plan, not "stop managing").
func keyVaultPlugins(b *builder) {
	b.add("Microsoft.KeyVault/vaults", &diff.Funcs{R: diff.Rules{Defaults: map[schema.Path]any{
		"properties.networkAcls.bypass":        "AzureServices",
		"properties.networkAcls.defaultAction": "Allow",
	}}})
}
