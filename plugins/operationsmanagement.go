package plugins

import (
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// Log Analytics solutions: the plan name is answered with the workspace
// appended ("Containers(workspace1)"). Evidence:
// azure-cli-extensions:src/containerapp records for
// Microsoft.OperationsManagement/solutions (putBody plan.name "Containers").
func operationsManagementPlugins(b *builder) {
	b.add("Microsoft.OperationsManagement/solutions", &diff.Funcs{R: diff.Rules{Normalizers: map[schema.Path]diff.Normalizer{
		"plan.name": stripParenSuffix,
	}}})
}

func stripParenSuffix(v any) any {
	if s, ok := v.(string); ok {
		if i := strings.IndexByte(s, '('); i > 0 && strings.HasSuffix(s, ")") {
			return s[:i]
		}
	}
	return v
}
