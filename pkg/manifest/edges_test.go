package manifest

import (
	"strings"
	"testing"
)

// TestReferenceFormsAreEdges: every way a body can name a managed resource
// is a dependency edge to the most specific managed resource it names.
func TestReferenceFormsAreEdges(t *testing.T) {
	const vnetType = "Microsoft.Network/virtualNetworks@2024-05-01"
	const snetType = "Microsoft.Network/virtualNetworks/subnets@2024-05-01"
	// The resource that names the others: a provider that ignores members
	// it does not know (the Network provider refuses them), as these
	// bodies are made up to carry references.
	const nicType = "Microsoft.Web/sites@2023-12-01"
	vnetID := rgID + "/providers/Microsoft.Network/virtualNetworks/vnet-a"
	snetID := vnetID + "/subnets/snet-a"
	idID := rgID + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-a"
	subVar := "/subscriptions/${subscriptionId}/resourceGroups/rg-demo/providers/Microsoft.Network/virtualNetworks/vnet-a/subnets/snet-a"
	tests := []struct {
		name, body string
		want       string // the ID DependsOn must hold
		warn       bool   // a suggestion to write ${ref:...}
	}{
		{"ref child path", `{subnet: {id: "${ref:vnet-a}/subnets/snet-a"}}`, snetID, false},
		{"ref type/name child path", `{subnet: {id: "${ref:Microsoft.Network/virtualNetworks/vnet-a}/subnets/snet-a"}}`, snetID, false},
		{"ref deeper than managed", `{subnet: {id: "${ref:vnet-a}/subnets/snet-a/ipConfigurations/x"}}`, snetID, false},
		{"subscriptionId literal", `{subnet: {id: "` + subVar + `"}}`, snetID, true},
		{"full literal", `{subnet: {id: "` + snetID + `"}}`, snetID, true},
		{"other casing", `{subnet: {id: "` + strings.ToUpper(snetID) + `"}}`, snetID, true},
		{"trailing slash", `{subnet: {id: "` + snetID + `/"}}`, snetID, true},
		{"in an array", `{subnets: ["x", "` + subVar + `"]}`, snetID, true},
		{"inside a longer string", `{note: "subnet=` + subVar + `;other"}`, snetID, false},
		{"two in one string", `{note: "` + idID + `,` + subVar + `"}`, idID, false},
		{"map key", `{identity: {userAssignedIdentities: {"/subscriptions/${subscriptionId}/resourceGroups/rg-demo/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-a": {}}}}`, idID, true},
		{"beside a live value", `{note: "${ref:vnet-a}/subnets/snet-a?p=${ref:id-a.properties.principalId}"}`, snetID, false},
		{"unmanaged child of managed", `{subnet: {id: "${ref:vnet-a}/subnets/snet-other"}}`, vnetID, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := load(t, docs(
				doc(rgDocT, rgType, "", "{location: westeurope}"),
				doc("vnet-a", vnetType, "resourceGroup: rg-demo", "{location: westeurope}"),
				doc("snet-a", snetType, "parent: vnet-a", "{properties: {addressPrefix: 10.0.0.0/24}}"),
				doc("id-a", idType, "resourceGroup: rg-demo", "{location: westeurope}"),
				doc("nic-a", nicType, "resourceGroup: rg-demo", "{location: westeurope, properties: "+tt.body+"}"),
			))
			nic := byName(t, s, "nic-a")
			if !contains(nic.DependsOn, tt.want) {
				t.Errorf("DependsOn = %v, want it to hold %s", nic.DependsOn, tt.want)
			}
			if tt.name == "two in one string" && !contains(nic.DependsOn, snetID) {
				t.Errorf("DependsOn = %v, want the subnet too", nic.DependsOn)
			}
			warned := false
			for _, f := range s.Findings {
				warned = warned || strings.Contains(f.Message, "could be written ${ref:")
			}
			if warned != tt.warn {
				t.Errorf("suggestion warning = %v, want %v (%v)", warned, tt.warn, s.Findings)
			}
			if _, err := TopoSort(s.Resources); err != nil {
				t.Fatal(err)
			}
		})
	}
}
