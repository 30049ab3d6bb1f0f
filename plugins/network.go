package plugins

import "github.com/kubectl-azure/kubectl-azure/pkg/diff"

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
func init() {
	register("Microsoft.Network/virtualNetworks", &diff.Funcs{R: diff.Rules{
		ChildCollections: []string{"properties.subnets", "properties.virtualNetworkPeerings"},
		Identifiers: map[string][]string{
			"properties.subnets":                {"name"},
			"properties.virtualNetworkPeerings": {"name"},
		},
	}})
	register("Microsoft.Network/networkSecurityGroups", &diff.Funcs{R: diff.Rules{
		ChildCollections: []string{"properties.securityRules"},
		Identifiers:      map[string][]string{"properties.securityRules": {"name"}},
		// Platform rules every NSG carries; never the user's.
		ReadOnly: []string{"properties.defaultSecurityRules"},
	}})
	register("Microsoft.Network/routeTables", &diff.Funcs{R: diff.Rules{
		ChildCollections: []string{"properties.routes"},
		Identifiers:      map[string][]string{"properties.routes": {"name"}},
	}})
}
