package plugins

import (
	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// Arc machine run commands and extensions: instanceView is the last
// execution's output, echoed back by read-modify-write commands.
// Evidence: azure-cli-extensions:src/connectedmachine records for
// Microsoft.HybridCompute/machines/runCommands and /extensions.
func hybridComputePlugins(b *builder) {
	for _, t := range []string{"Microsoft.HybridCompute/machines/runCommands", "Microsoft.HybridCompute/machines/extensions"} {
		b.add(t, &diff.Funcs{R: diff.Rules{ReadOnly: []schema.Path{"properties.instanceView"}}})
	}
}
