package emulator

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"
)

// get reads a resource after its write settled.
func get(t *testing.T, url string) map[string]any {
	t.Helper()
	r := do(t, http.MethodGet, url, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, r.Status, r.Raw)
	}
	return r.Body
}

func put(t *testing.T, url string, body any) {
	t.Helper()
	if r := do(t, http.MethodPut, url, body); r.Status >= 300 {
		t.Fatalf("PUT %s: %d %s", url, r.Status, r.Raw)
	}
}

func at(v any, keys ...string) any {
	for _, k := range keys {
		v = asMap(v)[k]
	}
	return v
}

func jsonText(v any) string { b, _ := json.Marshal(v); return string(b) }

// A storage account created by any client (with properties {}, as az and
// the Go SDK send it) has the encryption Azure always applies, and a
// secondary region only when its SKU is geo-redundant: the primary's pair,
// with endpoints only for read access.
func TestStorageAccountEncryptionAndSecondary(t *testing.T) {
	for _, mode := range []QuirksMode{QuirksCorpus} {
		s := startTest(t, func(o *Options) { o.Quirks = mode; o.LRODuration = 0 })
		u, g := s.URL(), "/subscriptions/"+testSub+"/resourceGroups/rg-st"
		put(t, u+g+"?api-version=2021-04-01", map[string]any{"location": "westeurope"})
		cases := []struct {
			name, sku, loc, secondary string
			endpoints                 bool
		}{
			{"stlrs01", "Standard_LRS", "westeurope", "", false},
			{"stzrs01", "Standard_ZRS", "westeurope", "", false},
			{"stgrs01", "Standard_GRS", "westus2", "westcentralus", false},
			{"stragrs01", "Standard_RAGRS", "westeurope", "northeurope", true},
			{"stgrsnopair01", "Standard_GRS", "qatarcentral", "", false},
		}
		for _, c := range cases {
			url := u + g + "/providers/Microsoft.Storage/storageAccounts/" + c.name + "?api-version=2023-05-01"
			put(t, url, map[string]any{"location": c.loc, "sku": map[string]any{"name": c.sku}, "kind": "StorageV2", "properties": map[string]any{}})
			b := get(t, url)
			enc := at(b, "properties", "encryption")
			if at(enc, "keySource") != "Microsoft.Storage" || at(enc, "services", "blob", "enabled") != true || at(enc, "services", "file", "keyType") != "Account" {
				t.Errorf("%s %s: encryption %s", mode, c.name, jsonText(enc))
			}
			got, _ := at(b, "properties", "secondaryLocation").(string)
			_, hasEP := asMap(b["properties"])["secondaryEndpoints"]
			if got != c.secondary || hasEP != c.endpoints {
				t.Errorf("%s %s (%s in %s): secondaryLocation %q, secondaryEndpoints %v; want %q, %v", mode, c.name, c.sku, c.loc, got, hasEP, c.secondary, c.endpoints)
			}
		}
	}
}

// Service Bus entities created with empty properties answer the RP's
// defaults; what the client sent wins.
func TestServiceBusDefaults(t *testing.T) {
	u, g := startWithGroup(t, "rg-sb")
	ns := u + g + "/providers/Microsoft.ServiceBus/namespaces/sb-defaults"
	q := "?api-version=2022-10-01-preview"
	put(t, ns+q, map[string]any{"location": "westeurope", "sku": map[string]any{"name": "Standard"}})
	put(t, ns+"/queues/q1"+q, map[string]any{"properties": map[string]any{"maxDeliveryCount": 5}})
	qp := at(get(t, ns+"/queues/q1"+q), "properties")
	if jsonText(at(qp, "lockDuration")) != `"PT1M"` || jsonText(at(qp, "maxDeliveryCount")) != "5" || jsonText(at(qp, "maxSizeInMegabytes")) != "1024" ||
		at(qp, "defaultMessageTimeToLive") != timeSpanMax || at(qp, "requiresSession") != false || at(qp, "status") != "Active" {
		t.Errorf("queue: %s", jsonText(qp))
	}
	put(t, ns+"/topics/t1"+q, map[string]any{"properties": map[string]any{}})
	tp := at(get(t, ns+"/topics/t1"+q), "properties")
	if at(tp, "supportOrdering") != true || at(tp, "duplicateDetectionHistoryTimeWindow") != "PT10M" || at(tp, "enableBatchedOperations") != true {
		t.Errorf("topic: %s", jsonText(tp))
	}
	put(t, ns+"/topics/t1/subscriptions/s1"+q, map[string]any{"properties": map[string]any{}})
	sp := at(get(t, ns+"/topics/t1/subscriptions/s1"+q), "properties")
	if jsonText(at(sp, "maxDeliveryCount")) != "10" || at(sp, "deadLetteringOnFilterEvaluationExceptions") != true || at(sp, "lockDuration") != "PT1M" {
		t.Errorf("subscription: %s", jsonText(sp))
	}
}

// An event hub lists one partition ID per partition.
func TestEventHubPartitionIDs(t *testing.T) {
	u, g := startWithGroup(t, "rg-eh")
	ns := u + g + "/providers/Microsoft.EventHub/namespaces/eh-defaults"
	q := "?api-version=2024-01-01"
	put(t, ns+q, map[string]any{"location": "westeurope", "sku": map[string]any{"name": "Standard"}})
	put(t, ns+"/eventhubs/hub1"+q, map[string]any{"properties": map[string]any{"partitionCount": 3}})
	if got := jsonText(at(get(t, ns+"/eventhubs/hub1"+q), "properties", "partitionIds")); got != `["0","1","2"]` {
		t.Errorf("partitionIds %s", got)
	}
}

// A load balancer probe sent without interval and count answers 15 and 2,
// inline and as the child resource.
func TestLoadBalancerProbeDefaults(t *testing.T) {
	u, g := startWithGroup(t, "rg-lb")
	lb := u + g + "/providers/Microsoft.Network/loadBalancers/lb1"
	q := "?api-version=2023-09-01"
	put(t, lb+q, map[string]any{"location": "westeurope", "properties": map[string]any{
		"probes": []any{map[string]any{"name": "p1", "properties": map[string]any{"protocol": "Tcp", "port": 80}}}}})
	probe := at(asMap(get(t, lb+q)["properties"])["probes"].([]any)[0], "properties")
	if jsonText(at(probe, "intervalInSeconds")) != "15" || jsonText(at(probe, "numberOfProbes")) != "2" {
		t.Errorf("inline probe %s", jsonText(probe))
	}
	child := at(get(t, lb+"/probes/p1"+q), "properties")
	if jsonText(at(child, "intervalInSeconds")) != "15" {
		t.Errorf("probe child %s", jsonText(child))
	}
}

// A private DNS zone's virtual network link answers Completed.
func TestPrivateDNSLinkState(t *testing.T) {
	u, g := startWithGroup(t, "rg-pdns")
	vnet := g + "/providers/Microsoft.Network/virtualNetworks/vnet1"
	put(t, u+vnet+"?api-version=2023-09-01", map[string]any{"location": "westeurope", "properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}}}})
	zone := u + g + "/providers/Microsoft.Network/privateDnsZones/privatelink.blob.core.windows.net"
	q := "?api-version=2020-06-01"
	put(t, zone+q, map[string]any{"location": "global"})
	put(t, zone+"/virtualNetworkLinks/l1"+q, map[string]any{"location": "global", "properties": map[string]any{"virtualNetwork": map[string]any{"id": vnet}}})
	p := at(get(t, zone+"/virtualNetworkLinks/l1"+q), "properties")
	if at(p, "virtualNetworkLinkState") != "Completed" || at(p, "registrationEnabled") != false {
		t.Errorf("link %s", jsonText(p))
	}
}

// Dynamic private IPs are handed out in order from the subnet's fourth
// host, and a NIC keeps its address when it is written again.
func TestNICFirstFreePrivateIP(t *testing.T) {
	u, g := startWithGroup(t, "rg-nic")
	q := "?api-version=2023-09-01"
	vnet := g + "/providers/Microsoft.Network/virtualNetworks/vnet1"
	put(t, u+vnet+q, map[string]any{"location": "westeurope", "properties": map[string]any{
		"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}},
		"subnets":      []any{map[string]any{"name": "s1", "properties": map[string]any{"addressPrefix": "10.0.1.0/24"}}}}})
	nic := func(name string) map[string]any {
		return map[string]any{"location": "westeurope", "properties": map[string]any{"ipConfigurations": []any{map[string]any{
			"name": "ipconfig1", "properties": map[string]any{"privateIPAllocationMethod": "Dynamic", "subnet": map[string]any{"id": vnet + "/subnets/s1"}}}}}}
	}
	ip := func(name string) string {
		cfgs := at(get(t, u+g+"/providers/Microsoft.Network/networkInterfaces/"+name+q), "properties", "ipConfigurations").([]any)
		return at(cfgs[0], "properties", "privateIPAddress").(string)
	}
	for _, n := range []string{"nic-a", "nic-b"} {
		put(t, u+g+"/providers/Microsoft.Network/networkInterfaces/"+n+q, nic(n))
	}
	put(t, u+g+"/providers/Microsoft.Network/networkInterfaces/nic-a"+q, nic("nic-a"))
	if a, b := ip("nic-a"), ip("nic-b"); a != "10.0.1.4" || b != "10.0.1.5" {
		t.Errorf("NIC addresses %s, %s; want 10.0.1.4, 10.0.1.5", a, b)
	}
}

// A role assignment answers its scope and createdOn, which a rewrite keeps.
func TestRoleAssignmentScopeAndCreatedOn(t *testing.T) {
	u, g := startWithGroup(t, "rg-ra")
	ra := u + g + "/providers/Microsoft.Authorization/roleAssignments/11111111-1111-4111-8111-111111111111?api-version=2022-04-01"
	body := map[string]any{"properties": map[string]any{"principalId": "22222222-2222-4222-8222-222222222222", "principalType": "ServicePrincipal",
		"roleDefinitionId": "/subscriptions/" + testSub + "/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"}}
	put(t, ra, body)
	first := at(get(t, ra), "properties")
	created, _ := at(first, "createdOn").(string)
	if at(first, "scope") != g || created == "" {
		t.Fatalf("assignment %s", jsonText(first))
	}
	time.Sleep(2 * time.Millisecond)
	put(t, ra, body)
	if again := at(get(t, ra), "properties", "createdOn"); again != created {
		t.Errorf("createdOn changed on a rewrite: %v, then %v", created, again)
	}
}

// A peering is Initiated until the remote network peers back; then both
// sides are Connected, the first one's inline copy as well.
func TestPeeringStateBeforeBothSides(t *testing.T) {
	u, g := startWithGroup(t, "rg-peer")
	q := "?api-version=2023-09-01"
	vnet := func(name, space string) string {
		id := g + "/providers/Microsoft.Network/virtualNetworks/" + name
		put(t, u+id+q, map[string]any{"location": "westeurope", "properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{space}}}})
		return id
	}
	a, b := vnet("vnet-a", "10.1.0.0/16"), vnet("vnet-b", "10.2.0.0/16")
	peer := func(from, to, name string) {
		put(t, u+from+"/virtualNetworkPeerings/"+name+q, map[string]any{"properties": map[string]any{
			"remoteVirtualNetwork": map[string]any{"id": to}, "allowVirtualNetworkAccess": true}})
	}
	state := func(id string) any { return at(get(t, u+id+q), "properties", "peeringState") }
	peer(a, b, "a-to-b")
	if got := state(a + "/virtualNetworkPeerings/a-to-b"); got != "Initiated" {
		t.Fatalf("one side: %v, want Initiated", got)
	}
	peer(b, a, "b-to-a")
	if x, y := state(a+"/virtualNetworkPeerings/a-to-b"), state(b+"/virtualNetworkPeerings/b-to-a"); x != "Connected" || y != "Connected" {
		t.Errorf("both sides: %v, %v; want Connected", x, y)
	}
	inline := at(get(t, u+a+q), "properties", "virtualNetworkPeerings").([]any)
	if len(inline) != 1 || at(inline[0], "properties", "peeringState") != "Connected" {
		t.Errorf("vnet-a's inline peering: %s", jsonText(inline))
	}
}

// An NSG and a route table list the subnets that use them, and stop
// listing one that no longer does.
func TestNSGAndRouteTableSubnetBackReferences(t *testing.T) {
	u, g := startWithGroup(t, "rg-refs")
	q := "?api-version=2023-09-01"
	nsg := g + "/providers/Microsoft.Network/networkSecurityGroups/nsg1"
	rt := g + "/providers/Microsoft.Network/routeTables/rt1"
	put(t, u+nsg+q, map[string]any{"location": "westeurope"})
	put(t, u+rt+q, map[string]any{"location": "westeurope"})
	vnet := g + "/providers/Microsoft.Network/virtualNetworks/vnet1"
	subnet := func(name, prefix string, withRefs bool) map[string]any {
		props := map[string]any{"addressPrefix": prefix}
		if withRefs {
			props["networkSecurityGroup"] = map[string]any{"id": nsg}
			props["routeTable"] = map[string]any{"id": rt}
		}
		return map[string]any{"name": name, "properties": props}
	}
	put(t, u+vnet+q, map[string]any{"location": "westeurope", "properties": map[string]any{
		"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}},
		"subnets":      []any{subnet("a", "10.0.1.0/24", true), subnet("b", "10.0.2.0/24", false)}}})
	for _, id := range []string{nsg, rt} {
		if got := jsonText(at(get(t, u+id+q), "properties", "subnets")); got != `[{"id":"`+vnet+`/subnets/a"}]` {
			t.Errorf("%s subnets %s", id, got)
		}
	}
	put(t, u+vnet+"/subnets/a"+q, subnet("a", "10.0.1.0/24", false))
	if got := at(get(t, u+nsg+q), "properties", "subnets"); got != nil {
		t.Errorf("after the subnet dropped the NSG: %s", jsonText(got))
	}
}

// Service endpoints answer the regions they cover, inline and on a subnet
// written on its own.
func TestServiceEndpointLocations(t *testing.T) {
	u, g := startWithGroup(t, "rg-se")
	q := "?api-version=2023-09-01"
	vnet := g + "/providers/Microsoft.Network/virtualNetworks/vnet1"
	eps := []any{map[string]any{"service": "Microsoft.Storage"}, map[string]any{"service": "Microsoft.Sql"}}
	put(t, u+vnet+q, map[string]any{"location": "eastus", "properties": map[string]any{
		"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}},
		"subnets":      []any{map[string]any{"name": "a", "properties": map[string]any{"addressPrefix": "10.0.1.0/24", "serviceEndpoints": eps}}}}})
	put(t, u+vnet+"/subnets/b"+q, map[string]any{"properties": map[string]any{"addressPrefix": "10.0.2.0/24", "serviceEndpoints": eps}})
	for _, sn := range []string{"a", "b"} {
		got := at(get(t, u+vnet+"/subnets/"+sn+q), "properties", "serviceEndpoints").([]any)
		if len(got) != 2 || jsonText(at(got[0], "locations")) != `["eastus","westus"]` || jsonText(at(got[1], "locations")) != `["eastus"]` {
			t.Errorf("subnet %s: serviceEndpoints %s", sn, jsonText(got))
		}
	}
	canary := g + "/providers/Microsoft.Network/virtualNetworks/vnet-euap"
	put(t, u+canary+q, map[string]any{"location": "eastus2euap", "properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"10.9.0.0/16"}}}})
	put(t, u+canary+"/subnets/c"+q, map[string]any{"properties": map[string]any{"addressPrefix": "10.9.1.0/24", "serviceEndpoints": eps[:1]}})
	if got := at(get(t, u+canary+"/subnets/c"+q), "properties", "serviceEndpoints").([]any); jsonText(at(got[0], "locations")) != `["*"]` {
		t.Errorf("eastus2euap: serviceEndpoints %s, want the recorded [\"*\"]", jsonText(got))
	}
}

// A load balancer's dynamic frontend in a subnet and a container group in
// a subnet get the subnet's first free address, after the NICs already
// there.
func TestFrontendAndContainerGroupPrivateIPs(t *testing.T) {
	u, g := startWithGroup(t, "rg-fe")
	q := "?api-version=2023-09-01"
	vnet := g + "/providers/Microsoft.Network/virtualNetworks/vnet1"
	put(t, u+vnet+q, map[string]any{"location": "westeurope", "properties": map[string]any{
		"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}},
		"subnets": []any{map[string]any{"name": "s1", "properties": map[string]any{"addressPrefix": "10.0.1.0/24"}},
			map[string]any{"name": "aci", "properties": map[string]any{"addressPrefix": "10.0.2.0/24"}}}}})
	put(t, u+g+"/providers/Microsoft.Network/networkInterfaces/nic1"+q, map[string]any{"location": "westeurope", "properties": map[string]any{"ipConfigurations": []any{map[string]any{
		"name": "ipconfig1", "properties": map[string]any{"subnet": map[string]any{"id": vnet + "/subnets/s1"}}}}}})
	lb := u + g + "/providers/Microsoft.Network/loadBalancers/lb1" + q
	put(t, lb, map[string]any{"location": "westeurope", "sku": map[string]any{"name": "Standard"}, "properties": map[string]any{"frontendIPConfigurations": []any{
		map[string]any{"name": "fe", "properties": map[string]any{"subnet": map[string]any{"id": vnet + "/subnets/s1"}}}}}})
	fe := at(get(t, lb), "properties", "frontendIPConfigurations").([]any)
	if got := at(fe[0], "properties", "privateIPAddress"); got != "10.0.1.5" {
		t.Errorf("load balancer frontend %v, want 10.0.1.5 (the NIC has .4)", got)
	}
	aci := u + g + "/providers/Microsoft.ContainerInstance/containerGroups/aci1?api-version=2023-05-01"
	put(t, aci, map[string]any{"location": "westeurope", "properties": map[string]any{"osType": "Linux",
		"containers": []any{map[string]any{"name": "c", "properties": map[string]any{"image": "mysql", "resources": map[string]any{"requests": map[string]any{"cpu": 1, "memoryInGB": 1}}}}},
		"subnetIds":  []any{map[string]any{"id": vnet + "/subnets/aci"}}, "ipAddress": map[string]any{"type": "Private", "ports": []any{map[string]any{"port": 3306}}}}})
	if got := at(get(t, aci), "properties", "ipAddress", "ip"); got != "10.0.2.4" {
		t.Errorf("container group IP %v, want 10.0.2.4", got)
	}
	// The 2019-12-01 way: a network profile names the subnet, and the
	// group answers a private address it did not ask for.
	np := g + "/providers/Microsoft.Network/networkProfiles/np1"
	put(t, u+np+q, map[string]any{"location": "westeurope", "properties": map[string]any{"containerNetworkInterfaceConfigurations": []any{map[string]any{
		"name": "eth0", "properties": map[string]any{"ipConfigurations": []any{map[string]any{"name": "ipc1",
			"properties": map[string]any{"subnet": map[string]any{"id": vnet + "/subnets/aci"}}}}}}}}})
	old := u + g + "/providers/Microsoft.ContainerInstance/containerGroups/aci2?api-version=2019-12-01"
	put(t, old, map[string]any{"location": "westeurope", "properties": map[string]any{"osType": "Linux",
		"containers":     []any{map[string]any{"name": "c", "properties": map[string]any{"image": "wordpress", "resources": map[string]any{"requests": map[string]any{"cpu": 1, "memoryInGB": 1}}}}},
		"networkProfile": map[string]any{"Id": np}}})
	if got := at(get(t, old), "properties", "ipAddress", "ip"); got != "10.0.2.5" {
		t.Errorf("container group in a network profile: IP %v, want 10.0.2.5", got)
	}
}
