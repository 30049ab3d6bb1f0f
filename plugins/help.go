package plugins

import (
	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// Self-help diagnostics: the requested insights are inputs only.
// Evidence:
// azure-cli-extensions:src/self-help/azext_self_help/tests/latest/recordings/test_help_diagnostics.yaml#0.
func helpPlugins(b *builder) {
	b.add("Microsoft.Help/diagnostics", &diff.Funcs{R: diff.Rules{WriteOnly: []schema.Path{
		"properties.insights", "properties.globalParameters",
	}}})
}
