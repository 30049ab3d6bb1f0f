package convert_test

import (
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/convert"
)

// TestRepeatedResource: a nested deployment that writes the vnet again
// after the VM (active-directory-new-domain's UpdateVNetDNS) leaves one
// document, with the body of the later write.
func TestRepeatedResource(t *testing.T) {
	vnet := func(dns string) string {
		return `{"type": "Microsoft.Network/virtualNetworks", "apiVersion": "2023-09-01", "name": "vnet1", "location": "westeurope",
         "properties": {"addressSpace": {"addressPrefixes": ["10.0.0.0/16"]}` + dns + `}}`
	}
	deploy := func(name, dep, res string) string {
		return `{"type": "Microsoft.Resources/deployments", "apiVersion": "2022-09-01", "name": "` + name + `"` + dep + `,
       "properties": {"mode": "Incremental", "template": {` + schema + `, "resources": [` + res + `]}}}`
	}
	out, res := convertText(t, `{`+schema+`,
  "resources": [
    `+deploy("UpdateDNS", `, "dependsOn": ["CreateVNet"]`, vnet(`, "dhcpOptions": {"dnsServers": ["10.0.0.4"]}`))+`,
    `+deploy("CreateVNet", "", vnet(""))+`]}`, convert.Scope{})
	if strings.Count(out, "type: Microsoft.Network/virtualNetworks@") != 1 || !strings.Contains(out, "- 10.0.0.4") {
		t.Errorf("want one vnet with the DNS servers:\n%s", out)
	}
	if !hasNote(res, "write the same resource") {
		t.Errorf("notes = %q", res.Notes)
	}
}

// TestAccessPolicyAdds: two accessPolicies/add of one vault add both
// policies, as ARM's two calls do.
func TestAccessPolicyAdds(t *testing.T) {
	add := func(oid string) string {
		return `{"type": "Microsoft.KeyVault/vaults/accessPolicies", "apiVersion": "2023-07-01", "name": "kv1/add",
       "properties": {"accessPolicies": [{"tenantId": "[subscription().tenantId]", "objectId": "` + oid + `", "permissions": {"keys": ["get"]}}]}}`
	}
	out, _ := convertText(t, `{`+schema+`, "resources": [`+add("00000000-0000-0000-0000-0000000000a1")+`, `+add("00000000-0000-0000-0000-0000000000b2")+`]}`, convert.Scope{})
	if strings.Count(out, "accessPolicies@") != 1 || !strings.Contains(out, "0000000000a1") || !strings.Contains(out, "0000000000b2") {
		t.Errorf("want one add with both policies:\n%s", out)
	}
}

// TestInlineAndChildSubnet: a subnet inline in its vnet and declared as
// its own resource (cohesive-vns3-free-try-now) is declared once: as its
// own document, which ARM writes last, while nothing in the vnet names it.
func TestInlineAndChildSubnet(t *testing.T) {
	out, res := convertText(t, `{`+schema+`,
  "resources": [
    {"type": "Microsoft.Network/virtualNetworks", "apiVersion": "2023-09-01", "name": "vnet1", "location": "westeurope",
     "properties": {"addressSpace": {"addressPrefixes": ["10.0.0.0/16"]},
       "subnets": [{"name": "public", "properties": {"addressPrefix": "10.0.1.0/24"}}, {"name": "private", "properties": {"addressPrefix": "10.0.2.0/24"}}]}},
    {"type": "Microsoft.Network/virtualNetworks/subnets", "apiVersion": "2023-09-01", "name": "vnet1/public",
     "dependsOn": ["[resourceId('Microsoft.Network/virtualNetworks', 'vnet1')]"],
     "properties": {"addressPrefix": "10.0.1.0/24", "privateEndpointNetworkPolicies": "Disabled"}}]}`, convert.Scope{})
	wantAll(t, out, "- name: private", "name: public\nspec:\n  type: Microsoft.Network/virtualNetworks/subnets@2023-09-01")
	if strings.Contains(out, "- name: public") || !hasNote(res, "as its own resource") {
		t.Errorf("the subnet is still inline (notes %q):\n%s", res.Notes, out)
	}
}

// TestInlineAndChildPool: a pool that the load balancer's own rules name
// (load-balancer-gateway) is folded into the inline item, with the
// child's properties.
func TestInlineAndChildPool(t *testing.T) {
	out, res := convertText(t, `{`+schema+`,
  "resources": [
    {"type": "Microsoft.Network/loadBalancers", "apiVersion": "2023-09-01", "name": "lb1", "location": "westeurope",
     "properties": {"backendAddressPools": [{"name": "pool"}],
       "loadBalancingRules": [{"name": "r", "properties": {"backendAddressPool": {"id": "[resourceId('Microsoft.Network/loadBalancers/backendAddressPools', 'lb1', 'pool')]"}}}]}},
    {"type": "Microsoft.Network/loadBalancers/backendAddressPools", "apiVersion": "2023-09-01", "name": "lb1/pool",
     "dependsOn": ["[resourceId('Microsoft.Network/loadBalancers', 'lb1')]"],
     "properties": {"tunnelInterfaces": [{"port": 10800, "identifier": 900, "protocol": "VXLAN", "type": "Internal"}]}}]}`, convert.Scope{})
	wantAll(t, out, "- name: pool\n          properties:\n            tunnelInterfaces:")
	if strings.Contains(out, "loadBalancers/backendAddressPools@") {
		t.Errorf("the pool is still its own document:\n%s", out)
	}
	if !hasNote(res, "declared inline") {
		t.Errorf("notes = %q", res.Notes)
	}
}

// TestRepeatedResourceAfterDependents: a vnet written, then a NIC in it, a
// route table that reads the NIC's address, and the vnet written again
// with that route table on its subnet (nested-vms-in-virtual-network).
// ARM's two writes order this; one document per resource cannot, so it is
// a problem naming both writes, not manifests that load as a cycle.
func TestRepeatedResourceAfterDependents(t *testing.T) {
	vnet := func(rt string) string {
		return `{"type": "Microsoft.Network/virtualNetworks", "apiVersion": "2023-09-01", "name": "vnet1", "location": "westeurope",
         "properties": {"addressSpace": {"addressPrefixes": ["10.0.0.0/16"]},
           "subnets": [{"name": "snet", "properties": {"addressPrefix": "10.0.0.0/24"` + rt + `}}]}}`
	}
	text := `{` + schema + `,
  "resources": [
    ` + vnet("") + `,
    {"type": "Microsoft.Network/networkInterfaces", "apiVersion": "2023-09-01", "name": "nic1", "location": "westeurope",
     "dependsOn": ["vnet1"],
     "properties": {"ipConfigurations": [{"name": "ip", "properties": {"subnet": {"id": "[resourceId('Microsoft.Network/virtualNetworks/subnets', 'vnet1', 'snet')]"}}}]}},
    {"type": "Microsoft.Network/routeTables", "apiVersion": "2023-09-01", "name": "rt1", "location": "westeurope",
     "properties": {"routes": [{"name": "r", "properties": {"addressPrefix": "0.0.0.0/0", "nextHopType": "VirtualAppliance",
       "nextHopIpAddress": "[reference(resourceId('Microsoft.Network/networkInterfaces', 'nic1')).ipConfigurations[0].properties.privateIPAddress]"}}]}},
    {"type": "Microsoft.Resources/deployments", "apiVersion": "2022-09-01", "name": "udr", "dependsOn": ["rt1"],
     "properties": {"mode": "Incremental", "template": {` + schema + `, "resources": [` + vnet(`, "routeTable": {"id": "[resourceId('Microsoft.Network/routeTables', 'rt1')]"}`) + `]}}}]}`
	msg := convertErr(t, text)
	for _, want := range []string{
		"resources[3].properties.template.resources[0]: writes Microsoft.Network/virtualNetworks vnet1 again after resources[",
		"which needs its first write (resources[0]): this second write after its dependents cannot be expressed",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("want %q in:\n%s", want, msg)
		}
	}
}

// TestSelfRead: a write that reads its own resource's live body
// (vnet-nsg-for-redis updates an existing subnet with its addressPrefix) is
// a problem at the reading path, not a manifest that cannot load.
func TestSelfRead(t *testing.T) {
	msg := convertErr(t, `{`+schema+`,
  "resources": [{"type": "Microsoft.Network/virtualNetworks/subnets", "apiVersion": "2023-09-01", "name": "vnet1/snet",
    "properties": {"addressPrefix": "[reference(resourceId('Microsoft.Network/virtualNetworks/subnets', 'vnet1', 'snet'), '2023-09-01').addressPrefix]"}}]}`)
	want := "resources[0].properties.addressPrefix: reads the live body of the resource it writes (Microsoft.Network/virtualNetworks/subnets"
	if !strings.Contains(msg, want) || !strings.Contains(msg, "known only when deployed") {
		t.Errorf("want %q in:\n%s", want, msg)
	}
}

// TestIDAgainstDependsOn: a body names, by resourceId, a resource whose
// dependsOn orders it after this one (web-app-ase-ilb-configure-default-ssl:
// the certificate names the ASE, the ASE depends on the certificate). ARM
// orders by dependsOn alone, so the ID is written out, not ${ref:}, and the
// depends-on annotation keeps ARM's order.
func TestIDAgainstDependsOn(t *testing.T) {
	out, _ := convertText(t, `{`+schema+`,
  "resources": [
    {"type": "Microsoft.Web/certificates", "apiVersion": "2022-09-01", "name": "cert1", "location": "westeurope",
     "properties": {"hostingEnvironmentProfile": {"id": "[resourceId('Microsoft.Web/hostingEnvironments', 'ase1')]"}}},
    {"type": "Microsoft.Web/hostingEnvironments", "apiVersion": "2022-09-01", "name": "ase1", "location": "westeurope",
     "dependsOn": ["[resourceId('Microsoft.Web/certificates', 'cert1')]"], "properties": {"clusterSettings": []}}]}`, convert.Scope{})
	wantAll(t, out,
		"id: /subscriptions/${subscriptionId}/resourceGroups/rg-app/providers/Microsoft.Web/hostingEnvironments/ase1",
		"azure.kubectl.io/depends-on: cert1")
	if strings.Contains(out, "${ref:ase1}") {
		t.Errorf("the certificate references the ASE, which is written after it:\n%s", out)
	}
}
