package plugins

import (
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// Parent/child overlaps in Microsoft.Network. A virtual network lists its
// subnets inline, an NSG its security rules, a route table its routes; each
// of those is also a resource with its own ARM ID that a user may manage in
// its own manifest. A PUT of the parent replaces the whole collection, so a
// parent write that omitted them would delete the children.
//
// The approach: these arrays are ChildCollections. The engine owns only the
// items the parent's manifest lists (or listed at the last apply); in a PUT
// body or a merge patch, every live item nobody owns is copied from the
// fresh GET, and an empty list in the manifest ("subnets: []") owns nothing
// rather than meaning "delete all". Only an item the parent's own manifest
// used to list and no longer does is removed.
//
// Evidence: the vnet PUT in
// azure-cli-extensions:src/ad/azext_ad/tests/latest/recordings/test_ad_Scenario.yaml#11
// lists one subnet and GET returns it with server members (id, etag,
// provisioningState); the NSG in test_ad_Scenario.yaml#1 is created with no
// rules and GET returns securityRules: [] plus the readonly
// defaultSecurityRules.
func networkCollectionPlugins(b *builder) {
	b.add("Microsoft.Network/virtualNetworks", &diff.Funcs{R: diff.Rules{
		ChildCollections: []schema.Path{"properties.subnets", "properties.virtualNetworkPeerings"},
		Identifiers: map[schema.Path][]string{
			"properties.subnets":                {"name"},
			"properties.virtualNetworkPeerings": {"name"},
		},
	}})
	b.add("Microsoft.Network/networkSecurityGroups", &diff.Funcs{R: diff.Rules{
		ChildCollections: []schema.Path{"properties.securityRules"},
		Identifiers:      map[schema.Path][]string{"properties.securityRules": {"name"}},
		// Platform rules every NSG carries; never the user's.
		ReadOnly: []schema.Path{"properties.defaultSecurityRules"},
	}})
	b.add("Microsoft.Network/routeTables", &diff.Funcs{R: diff.Rules{
		ChildCollections: []schema.Path{"properties.routes"},
		Identifiers:      map[schema.Path][]string{"properties.routes": {"name"}},
	}})
}

// Application gateways never return certificate material: sslCertificates
// data and password are answered as absent (publicCertData is computed).
// Evidence:
// specs:specification/network/resource-manager/Microsoft.Network/stable/2018-01-01/examples/ApplicationGatewayCreate.json
// (the PUT sends data and password, the GET shows neither).
func applicationGatewayPlugins(b *builder) {
	b.add("Microsoft.Network/applicationGateways", &diff.Funcs{R: diff.Rules{WriteOnly: []schema.Path{
		"properties.sslCertificates[].properties.data",
		"properties.sslCertificates[].properties.password",
		"properties.trustedRootCertificates[].properties.data",
		"properties.authenticationCertificates[].properties.data",
	}}})
}

// Firewall policies: "IANAPrivateRanges" is an alias the service expands;
// autoLearnPrivateRanges defaults to Disabled and is then omitted.
// Evidence:
// azure-cli-extensions:src/azure-firewall/azext_firewall/tests/latest/recordings/test_azure_firewall_policy_with_snat.yaml#0 and #4.
func firewallPolicyPlugins(b *builder) {
	b.add("Microsoft.Network/firewallPolicies", &diff.Funcs{R: diff.Rules{
		Defaults:    map[schema.Path]any{"properties.snat.autoLearnPrivateRanges": "Disabled"},
		Normalizers: map[schema.Path]diff.Normalizer{"properties.snat.privateRanges": expandIANA},
	}})
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
