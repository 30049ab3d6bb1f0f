package plugins

import (
	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// Backup instances: the CLI echoes status blocks from a previous GET.
// Evidence: azure-cli-extensions:src/dataprotection records for
// Microsoft.DataProtection/backupVaults/backupInstances
// (putBody protectionStatus.status "ProtectionConfigured", getBody "UpdatingProtection").
func dataProtectionPlugins(b *builder) {
	b.add("Microsoft.DataProtection/backupVaults/backupInstances", &diff.Funcs{R: diff.Rules{ReadOnly: []schema.Path{
		"properties.protectionStatus", "properties.currentProtectionState", "properties.protectionErrorDetails",
	}}})
}
