package importer

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
)

const (
	sub   = "11111111-1111-1111-1111-111111111111"
	other = "22222222-2222-2222-2222-222222222222"
	rg1   = "/subscriptions/" + sub + "/resourceGroups/rg1"
	net1  = rg1 + "/providers/Microsoft.Network/"
)

func noValidation(string, string, string, map[string]any) ([]manifest.SchemaIssue, string) {
	return nil, ""
}

func res(id string, body map[string]any) *Resource {
	typ := strings.Split(id, "/providers/")[len(strings.Split(id, "/providers/"))-1]
	parts := strings.Split(typ, "/")
	t := parts[0]
	for i := 1; i < len(parts); i += 2 {
		t += "/" + parts[i]
	}
	if strings.HasSuffix(id, "/resourceGroups/rg1") {
		t = "Microsoft.Resources/resourceGroups"
	}
	return newResource(id, t, "2024-01-01", body, "")
}

// buildAndLoad runs the set-level steps of an import (minimise,
// references, placement, render) and loads the result with pkg/manifest.
func buildAndLoad(t *testing.T, rs []*Resource) *Result {
	t.Helper()
	for i, r := range rs {
		r.order = i
	}
	out := &Result{Resources: rs, Subscription: sub}
	// No schema: these tests are about references, with made-up bodies.
	(&Importer{Validator: noValidation}).build(out)
	if err := out.render(); err != nil {
		t.Fatal(err)
	}
	if _, err := resolve(context.Background(), out, noValidation); err != nil {
		var all []string
		for _, r := range rs {
			all = append(all, string(r.YAML))
		}
		t.Fatalf("%v\n%s", err, strings.Join(all, "---\n"))
	}
	return out
}

func TestReferencesAreRewrittenAndLoadBack(t *testing.T) {
	vnet := net1 + "virtualNetworks/vnet1"
	nsg := net1 + "networkSecurityGroups/nsg1"
	uai := rg1 + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id1"
	foreign := "/subscriptions/" + other + "/resourceGroups/x/providers/Microsoft.Network/virtualNetworks/far"
	notImported := net1 + "publicIPAddresses/pip9"
	nicBody := map[string]any{
		"location": "westeurope",
		"identity": map[string]any{"type": "UserAssigned", "userAssignedIdentities": map[string]any{uai: map[string]any{}}},
		"properties": map[string]any{
			"networkSecurityGroup": map[string]any{"id": nsg},
			"subnet":               map[string]any{"id": vnet + "/subnets/default"},
			"publicIP":             map[string]any{"id": notImported},
			"remote":               map[string]any{"id": foreign},
			"note":                 "literal ${not a placeholder}",
		},
	}
	rs := []*Resource{
		res(vnet, map[string]any{"location": "westeurope"}),
		res(nsg, map[string]any{"location": "westeurope"}),
		res(uai, map[string]any{"location": "westeurope"}),
		res(net1+"networkInterfaces/nic1", nicBody),
		res(vnet+"/subnets/default", map[string]any{"properties": map[string]any{"addressPrefix": "10.0.0.0/24"}}),
	}
	out := buildAndLoad(t, rs)
	nic := out.Resources[3]
	props := nic.Body["properties"].(map[string]any)
	checks := map[string]string{
		"networkSecurityGroup": "${ref:Microsoft.Network/networkSecurityGroups/nsg1}",
		"subnet":               "${ref:Microsoft.Network/virtualNetworks/subnets/default}",
		"publicIP":             "/subscriptions/${subscriptionId}/resourceGroups/rg1/providers/Microsoft.Network/publicIPAddresses/pip9",
		"remote":               foreign,
	}
	for k, want := range checks {
		if got := props[k].(map[string]any)["id"]; got != want {
			t.Errorf("properties.%s.id = %v, want %s", k, got, want)
		}
	}
	if got := props["note"]; got != "literal $${not a placeholder}" {
		t.Errorf("a literal ${ must be escaped, got %v", got)
	}
	keys := nic.Body["identity"].(map[string]any)["userAssignedIdentities"].(map[string]any)
	if _, ok := keys["${ref:Microsoft.ManagedIdentity/userAssignedIdentities/id1}"]; !ok {
		t.Errorf("map keys that are IDs must become references too: %v", keys)
	}
	if p := nic.Placement; p != (Placement{Field: "resourceGroup", Value: "rg1"}) {
		t.Errorf("nic placement = %+v", p)
	}
	if p := out.Resources[4].Placement; p != (Placement{Field: "parent", Value: "Microsoft.Network/virtualNetworks/vnet1"}) {
		t.Errorf("subnet placement = %+v", p)
	}
	// Loading gives back exactly the live values.
	if !reflect.DeepEqual(nic.Resolved, nicBody) {
		t.Errorf("resolved body differs from live:\n got %#v\nwant %#v", nic.Resolved, nicBody)
	}
	for _, r := range out.Resources {
		if strings.Contains(string(r.YAML), sub) {
			t.Errorf("%s: manifest hard-codes the subscription:\n%s", r.ID, r.YAML)
		}
	}
}

func TestReferenceCyclesAreBroken(t *testing.T) {
	a, b := net1+"virtualNetworks/a", net1+"virtualNetworks/b"
	peer := func(to string) map[string]any {
		return map[string]any{"properties": map[string]any{"virtualNetworkPeerings": []any{
			map[string]any{"name": "p", "properties": map[string]any{"remoteVirtualNetwork": map[string]any{"id": to}}}}}}
	}
	// A parent naming its own child would be a cycle too.
	child := net1 + "routeTables/rt/routes/r1"
	rs := []*Resource{
		res(a, peer(b)), res(b, peer(a)),
		res(net1+"routeTables/rt", map[string]any{"properties": map[string]any{"defaultRoute": map[string]any{"id": child}}}),
		res(child, map[string]any{"properties": map[string]any{"nextHopType": "None"}}),
	}
	out := buildAndLoad(t, rs)
	remote := func(r *Resource) string {
		p := r.Body["properties"].(map[string]any)["virtualNetworkPeerings"].([]any)[0].(map[string]any)
		return p["properties"].(map[string]any)["remoteVirtualNetwork"].(map[string]any)["id"].(string)
	}
	if got := remote(out.Resources[0]); got != "${ref:Microsoft.Network/virtualNetworks/b}" {
		t.Errorf("a -> b should be a reference, got %s", got)
	}
	if got := remote(out.Resources[1]); strings.Contains(got, "${ref:") {
		t.Errorf("b -> a closes a cycle and must stay an ID, got %s", got)
	}
	rt := out.Resources[2].Body["properties"].(map[string]any)["defaultRoute"].(map[string]any)["id"].(string)
	if strings.Contains(rt, "${ref:") {
		t.Errorf("a parent cannot reference its own child, got %s", rt)
	}
}

func TestAmbiguousNamesAreNotReferences(t *testing.T) {
	rg2 := "/subscriptions/" + sub + "/resourceGroups/rg2/providers/Microsoft.Network/"
	n1, n2 := net1+"networkSecurityGroups/dup", rg2+"networkSecurityGroups/dup"
	rs := []*Resource{
		res(n1, map[string]any{"location": "westus"}),
		res(n2, map[string]any{"location": "westus"}),
		res(net1+"networkInterfaces/nic", map[string]any{"properties": map[string]any{"networkSecurityGroup": map[string]any{"id": n2}}}),
	}
	out := buildAndLoad(t, rs)
	got := out.Resources[2].Body["properties"].(map[string]any)["networkSecurityGroup"].(map[string]any)["id"]
	if got != "/subscriptions/${subscriptionId}/resourceGroups/rg2/providers/Microsoft.Network/networkSecurityGroups/dup" {
		t.Errorf("an ambiguous TYPE/NAME must stay an ID, got %v", got)
	}
}

func TestPlacementOfExtensionAndTenantResources(t *testing.T) {
	sa := rg1 + "/providers/Microsoft.Storage/storageAccounts/sa1"
	rs := []*Resource{
		res(sa, map[string]any{"location": "westus"}),
		res(sa+"/providers/Microsoft.Insights/diagnosticSettings/d1", map[string]any{"properties": map[string]any{"logs": []any{}}}),
		res("/subscriptions/"+sub+"/providers/Microsoft.Authorization/roleDefinitions/r1", map[string]any{"properties": map[string]any{"roleName": "x"}}),
		res("/providers/Microsoft.Subscription/aliases/a1", map[string]any{"properties": map[string]any{"workload": "Production"}}),
		res(rg1, map[string]any{"location": "westus"}),
	}
	out := buildAndLoad(t, rs)
	want := []Placement{
		{Field: "resourceGroup", Value: "rg1"},
		{Field: "scope", Value: "Microsoft.Storage/storageAccounts/sa1"},
		{Field: "scope", Value: "/subscriptions/${subscriptionId}"},
		{Field: "id", Value: "/providers/Microsoft.Subscription/aliases/a1"},
		{},
	}
	for i, w := range want {
		if got := out.Resources[i].Placement; got != w {
			t.Errorf("%s: placement %+v, want %+v", out.Resources[i].ID, got, w)
		}
	}
}
