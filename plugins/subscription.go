package plugins

import (
	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// Subscription aliases: the creation inputs are not part of the alias GET.
// Evidence:
// azure-cli-extensions:src/account/azext_account/tests/latest/recordings/test_account.yaml#0.
func subscriptionPlugins(b *builder) {
	b.add("Microsoft.Subscription/aliases", &diff.Funcs{R: diff.Rules{WriteOnly: []schema.Path{
		"properties.displayName", "properties.workload", "properties.billingScope", "properties.resellerId",
		"properties.subscriptionId", "properties.additionalProperties",
	}}})
}
