package plugins

import (
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
)

func init() {
	// Key Vault: a vault created without network rules reports no
	// networkAcls at all; the values the CLI sends are the service's
	// defaults. Evidence:
	// azure-cli-extensions:src/aks-preview/azext_aks_preview/tests/latest/recordings/test_aks_approuting_update.yaml#1.
	register("Microsoft.KeyVault/vaults", &diff.Funcs{R: diff.Rules{Defaults: map[string]any{
		"properties.networkAcls.bypass":        "AzureServices",
		"properties.networkAcls.defaultAction": "Allow",
	}}})

	// Firewall policies: "IANAPrivateRanges" is an alias the service
	// expands; autoLearnPrivateRanges defaults to Disabled and is then
	// omitted. Evidence:
	// azure-cli-extensions:src/azure-firewall/azext_firewall/tests/latest/recordings/test_azure_firewall_policy_with_snat.yaml#0 and #4.
	register("Microsoft.Network/firewallPolicies", &diff.Funcs{R: diff.Rules{
		Defaults:    map[string]any{"properties.snat.autoLearnPrivateRanges": "Disabled"},
		Normalizers: map[string]diff.Normalizer{"properties.snat.privateRanges": expandIANA},
	}})

	// AKS: effective outbound IPs are chosen by the service and echoed by
	// update commands that read then write the cluster. Evidence:
	// azure-cli-extensions:src/aks-preview records for
	// Microsoft.ContainerService/managedClusters with loadBalancerProfile
	// (putBody effectiveOutboundIPs from an earlier GET).
	register("Microsoft.ContainerService/managedClusters", &diff.Funcs{R: diff.Rules{ReadOnly: []string{
		"properties.networkProfile.loadBalancerProfile.effectiveOutboundIPs",
	}}})

	// Run commands and machine extensions: instanceView is the last
	// execution's output, echoed back by read-modify-write commands.
	// Evidence: azure-cli-extensions:src/connectedmachine records for
	// Microsoft.HybridCompute/machines/runCommands and /extensions.
	for _, t := range []string{"Microsoft.HybridCompute/machines/runCommands", "Microsoft.HybridCompute/machines/extensions", "Microsoft.Compute/virtualMachines/runCommands"} {
		register(t, &diff.Funcs{R: diff.Rules{ReadOnly: []string{"properties.instanceView"}}})
	}

	// Automation Python packages: the content link is a download
	// instruction, not returned. Evidence:
	// azure-cli-extensions:src/automation/azext_automation/tests/latest/recordings/test_automation.yaml#19 and #21.
	register("Microsoft.Automation/automationAccounts/python3Packages", &diff.Funcs{R: diff.Rules{WriteOnly: []string{
		"properties.contentLink", "properties.contentLink.uri", "properties.contentLink.contentHash",
		"properties.contentLink.contentHash.algorithm", "properties.contentLink.contentHash.value", "properties.contentLink.version",
	}}})

	// Subscription aliases: the creation inputs are not part of the alias
	// GET. Evidence:
	// azure-cli-extensions:src/account/azext_account/tests/latest/recordings/test_account.yaml#0.
	register("Microsoft.Subscription/aliases", &diff.Funcs{R: diff.Rules{WriteOnly: []string{
		"properties.displayName", "properties.workload", "properties.billingScope", "properties.resellerId",
		"properties.subscriptionId", "properties.additionalProperties",
	}}})

	// Log Analytics solutions: the plan name is answered with the workspace
	// appended ("Containers(workspace1)"). Evidence:
	// azure-cli-extensions:src/containerapp records for
	// Microsoft.OperationsManagement/solutions (putBody plan.name "Containers").
	register("Microsoft.OperationsManagement/solutions", &diff.Funcs{R: diff.Rules{Normalizers: map[string]diff.Normalizer{
		"plan.name": stripParenSuffix,
	}}})

	// Operator Nexus Kubernetes clusters report versions with a "v" prefix.
	// Evidence: azure-cli-extensions:src/networkcloud records for
	// Microsoft.NetworkCloud/kubernetesClusters (putBody "1.24.9", getBody "v1.24.9").
	register("Microsoft.NetworkCloud/kubernetesClusters", &diff.Funcs{R: diff.Rules{Normalizers: map[string]diff.Normalizer{
		"properties.kubernetesVersion": func(v any) any {
			if s, ok := v.(string); ok {
				return strings.TrimPrefix(s, "v")
			}
			return v
		},
	}}})
}

var ianaPrivateRanges = []any{"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10"}

// expandIANA replaces the IANAPrivateRanges alias with the ranges the
// service reports for it.
func expandIANA(v any) any {
	a, ok := v.([]any)
	if !ok {
		return v
	}
	var out []any
	for _, x := range a {
		if s, ok := x.(string); ok && strings.EqualFold(s, "IANAPrivateRanges") {
			out = append(out, ianaPrivateRanges...)
			continue
		}
		out = append(out, x)
	}
	return out
}

func stripParenSuffix(v any) any {
	if s, ok := v.(string); ok {
		if i := strings.IndexByte(s, '('); i > 0 && strings.HasSuffix(s, ")") {
			return s[:i]
		}
	}
	return v
}
