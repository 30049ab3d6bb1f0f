package plugins

import (
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// Operator Nexus Kubernetes clusters report versions with a "v" prefix.
// Evidence: azure-cli-extensions:src/networkcloud records for
// Microsoft.NetworkCloud/kubernetesClusters (putBody "1.24.9", getBody "v1.24.9").
func networkCloudPlugins(b *builder) {
	b.add("Microsoft.NetworkCloud/kubernetesClusters", &diff.Funcs{R: diff.Rules{Normalizers: map[schema.Path]diff.Normalizer{
		"properties.kubernetesVersion": func(v any) any {
			if s, ok := v.(string); ok {
				return strings.TrimPrefix(s, "v")
			}
			return v
		},
	}}})
}
