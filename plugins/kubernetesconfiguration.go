package plugins

import (
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

func kubernetesConfigurationPlugins(b *builder) {
	// Flux v1 operator parameters are trimmed by the service.
	// Evidence: azure-cli-extensions:src/k8s-configuration records for
	// Microsoft.KubernetesConfiguration/sourceControlConfigurations
	// (putBody operatorParams "--git-readonly ", getBody "--git-readonly").
	b.add("Microsoft.KubernetesConfiguration/sourceControlConfigurations", &diff.Funcs{R: diff.Rules{
		Normalizers: map[schema.Path]diff.Normalizer{"properties.operatorParams": trimSpace},
		WriteOnly:   []schema.Path{"properties.configurationProtectedSettings", "properties.configurationProtectedSettings.*"},
	}})
}

func trimSpace(v any) any {
	if s, ok := v.(string); ok {
		return strings.TrimSpace(s)
	}
	return v
}
