package plugins

import (
	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// Quota requests: the resource type being limited is an input only.
// Evidence:
// azure-cli-extensions:src/quota/azext_quota/tests/latest/recordings/test_quota_crud.yaml#1.
func quotaPlugins(b *builder) {
	b.add("Microsoft.Quota/quotas", &diff.Funcs{R: diff.Rules{WriteOnly: []schema.Path{"properties.resourceType"}}})
}
