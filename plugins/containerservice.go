package plugins

import (
	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// AKS: effective outbound IPs are chosen by the service and echoed by
// update commands that read then write the cluster. Evidence:
// azure-cli-extensions:src/aks-preview records for
// Microsoft.ContainerService/managedClusters with loadBalancerProfile
// (putBody effectiveOutboundIPs from an earlier GET). The CLI's
// kubernetesVersion "" and osDiskSizeGB 0 ("server decides") are handled by
// the generic zero-value-means-unset rule in pkg/diff.
func containerServicePlugins(b *builder) {
	b.add("Microsoft.ContainerService/managedClusters", &diff.Funcs{R: diff.Rules{ReadOnly: []schema.Path{
		"properties.networkProfile.loadBalancerProfile.effectiveOutboundIPs",
	}}})
}
