package plugins

import (
	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// Integration account maps: the map content is uploaded, not returned.
// Evidence:
// azure-cli-extensions:src/logic/azext_logic/tests/latest/recordings/test_integration_account_map.yaml#6.
func logicPlugins(b *builder) {
	b.add("Microsoft.Logic/integrationAccounts/maps", &diff.Funcs{R: diff.Rules{WriteOnly: []schema.Path{
		"properties.content", "properties.contentType",
	}}})
}
