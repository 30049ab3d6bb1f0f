package emulator

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// Versions ARM serves that a type's spec lacks are accepted when the
// namespace knows them (real traffic: a template's
// backupstorageconfig@2020-02-02, the SFTP quickstart's
// localUsers@2021-04-01); versions nobody knows are still refused.
func TestServedVersionsTheSpecLacks(t *testing.T) {
	u, g := startWithGroup(t, "served")
	sa := g + "/providers/Microsoft.Storage/storageAccounts/stserved1"
	do(t, http.MethodPut, u+sa+"?api-version=2021-04-01", map[string]any{"location": "westeurope", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}, "properties": map[string]any{"isHnsEnabled": true, "isSftpEnabled": true}})
	if r := do(t, http.MethodPut, u+sa+"/localUsers/sftpuser?api-version=2021-04-01", map[string]any{"properties": map[string]any{"hasSshPassword": true}}); r.Status >= 300 {
		t.Errorf("localUsers@2021-04-01: %d %s", r.Status, r.Raw)
	}
	vault := g + "/providers/Microsoft.RecoveryServices/vaults/rsv"
	do(t, http.MethodPut, u+vault+"?api-version=2023-04-01", map[string]any{"location": "westeurope", "sku": map[string]any{"name": "RS0", "tier": "Standard"}, "properties": map[string]any{}})
	if r := do(t, http.MethodPut, u+vault+"/backupstorageconfig/vaultstorageconfig?api-version=2020-02-02", map[string]any{"properties": map[string]any{"storageModelType": "LocallyRedundant"}}); r.Status >= 300 {
		t.Errorf("backupstorageconfig@2020-02-02: %d %s", r.Status, r.Raw)
	}
	if r := do(t, http.MethodGet, u+sa+"?api-version=2099-01-01", nil); r.Status != 400 || errCode(r) != "NoRegisteredProviderFound" {
		t.Errorf("a version unknown to the namespace: %d %s, want 400 NoRegisteredProviderFound", r.Status, r.Raw)
	}
}

// References to inline parts of a load balancer resolve, whether or not
// the index knows the part as a child type of its own.
func TestReferencesToInlineParts(t *testing.T) {
	u, g := startWithGroup(t, "inl")
	const v = "?api-version=2024-01-01"
	vnet := g + "/providers/Microsoft.Network/virtualNetworks/vn"
	do(t, http.MethodPut, u+vnet+v, map[string]any{"location": "westeurope", "properties": map[string]any{
		"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}},
		"subnets":      []any{map[string]any{"name": "s", "properties": map[string]any{"addressPrefix": "10.0.0.0/24"}}},
	}})
	lb := g + "/providers/Microsoft.Network/loadBalancers/lb"
	if r := do(t, http.MethodPut, u+lb+v, map[string]any{"location": "westeurope", "properties": map[string]any{
		"frontendIPConfigurations": []any{map[string]any{"name": "fe", "properties": map[string]any{"subnet": map[string]any{"id": vnet + "/subnets/s"}}}},
		"backendAddressPools":      []any{map[string]any{"name": "be"}},
		"inboundNatPools": []any{map[string]any{"name": "nat", "properties": map[string]any{
			"frontendIPConfiguration": map[string]any{"id": lb + "/frontendIPConfigurations/fe"},
			"protocol":                "Tcp", "frontendPortRangeStart": 50000, "frontendPortRangeEnd": 50100, "backendPort": 22,
		}}},
	}}); r.Status >= 300 {
		t.Fatalf("load balancer: %d %s", r.Status, r.Raw)
	}
	vmss := g + "/providers/Microsoft.Compute/virtualMachineScaleSets/ss?api-version=2024-03-01"
	r := do(t, http.MethodPut, u+vmss, map[string]any{"location": "westeurope", "sku": map[string]any{"name": "Standard_B1s", "capacity": 1}, "properties": map[string]any{
		"virtualMachineProfile": map[string]any{"networkProfile": map[string]any{"networkInterfaceConfigurations": []any{map[string]any{
			"name": "nic", "properties": map[string]any{"primary": true, "ipConfigurations": []any{map[string]any{"name": "ip", "properties": map[string]any{
				"subnet":                          map[string]any{"id": vnet + "/subnets/s"},
				"loadBalancerBackendAddressPools": []any{map[string]any{"id": lb + "/backendAddressPools/be"}},
				"loadBalancerInboundNatPools":     []any{map[string]any{"id": lb + "/inboundNatPools/nat"}},
			}}}},
		}}}},
	}})
	if r.Status >= 300 {
		t.Fatalf("scale set referencing the load balancer's parts: %d %s", r.Status, r.Raw)
	}
	r = do(t, http.MethodPut, u+g+"/providers/Microsoft.Compute/virtualMachineScaleSets/ss2?api-version=2024-03-01", map[string]any{"location": "westeurope", "sku": map[string]any{"name": "Standard_B1s", "capacity": 1}, "properties": map[string]any{
		"virtualMachineProfile": map[string]any{"networkProfile": map[string]any{"networkInterfaceConfigurations": []any{map[string]any{
			"name": "nic", "properties": map[string]any{"primary": true, "ipConfigurations": []any{map[string]any{"name": "ip", "properties": map[string]any{
				"loadBalancerInboundNatPools": []any{map[string]any{"id": lb + "/inboundNatPools/missing"}},
			}}}},
		}}}},
	}})
	if r.Status != 400 || errCode(r) != "InvalidResourceReference" {
		t.Errorf("reference to a missing part: %d %s, want 400 InvalidResourceReference", r.Status, r.Raw)
	}
}

// A seeded body without id, name or type still appears in lists, with the
// envelope built from its stored ID (ARM's lists always carry one).
func TestSeededWithoutEnvelopeIsListed(t *testing.T) {
	s := startTest(t, nil)
	g := "/subscriptions/" + testSub + "/resourceGroups/seedlist"
	id := g + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/bare"
	if err := s.Seed(id, "2023-01-31", map[string]any{"location": "westeurope", "tags": map[string]any{"team": "a"}}); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{
		g + "/resources?api-version=2021-04-01",
		g + "/resources?api-version=2021-04-01&$filter=" + url.QueryEscape("resourceType eq 'Microsoft.ManagedIdentity/userAssignedIdentities'"),
		g + "/resources?api-version=2021-04-01&$filter=" + url.QueryEscape("startswith(tagName, 'te')"),
		g + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities?api-version=2023-01-31",
	} {
		r := do(t, http.MethodGet, s.URL()+path, nil)
		items, _ := r.Body["value"].([]any)
		if len(items) != 1 || str(items[0], "id") != id || str(items[0], "name") != "bare" || str(items[0], "type") != "Microsoft.ManagedIdentity/userAssignedIdentities" {
			t.Errorf("GET %s = %d %s, want the seeded resource with its envelope", path, r.Status, r.Raw)
		}
	}
}

// The providers API lists the versions a client may use, so a tool that
// asks ARM whether it serves a version is not told no for one real
// traffic used.
func TestProvidersListServedVersions(t *testing.T) {
	s := startTest(t, nil)
	r := do(t, http.MethodGet, s.URL()+"/subscriptions/"+testSub+"/providers/Microsoft.Storage?api-version=2021-04-01", nil)
	rts, _ := r.Body["resourceTypes"].([]any)
	for _, rt := range rts {
		if str(rt, "resourceType") != "storageAccounts/localUsers" {
			continue
		}
		for _, v := range asMap(rt)["apiVersions"].([]any) {
			if v == "2021-04-01" {
				return
			}
		}
		t.Fatalf("storageAccounts/localUsers versions lack 2021-04-01: %v", asMap(rt)["apiVersions"])
	}
	t.Fatalf("no storageAccounts/localUsers in %s", truncate(r.Raw, 300))
}

// Retired versions public templates deployed with (DevTest Labs'
// 2018-10-15-preview, SQL's 2014-04-01-preview) are listed as served,
// as ARM's providers API listed them when those templates ran.
func TestProvidersListRetiredVersions(t *testing.T) {
	s := startTest(t, nil)
	for _, c := range []struct{ ns, typ, version string }{
		{"Microsoft.DevTestLab", "labs", "2018-10-15-preview"},
		{"Microsoft.Sql", "servers", "2014-04-01-preview"},
	} {
		r := do(t, http.MethodGet, s.URL()+"/subscriptions/"+testSub+"/providers/"+c.ns+"?api-version=2021-04-01", nil)
		rts, _ := r.Body["resourceTypes"].([]any)
		found := false
		for _, rt := range rts {
			if !strings.EqualFold(str(rt, "resourceType"), c.typ) {
				continue
			}
			for _, v := range asMap(rt)["apiVersions"].([]any) {
				found = found || v == c.version
			}
		}
		if !found {
			t.Errorf("%s/%s: %s is not listed as served", c.ns, c.typ, c.version)
		}
	}
}
