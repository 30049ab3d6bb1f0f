package emulator

import (
	"strings"
	"testing"
)

// The values services compute and public templates read with reference()
// are there after a create: a Front Door profile's ID, a cache's host
// name, a secret's URIs, an AI account's endpoint, a Service Fabric
// cluster's endpoint, a certificate's thumbprint, an AKS cluster's kubelet
// and AGIC identities, a public container group's IP.
func TestServiceComputedValues(t *testing.T) {
	u, g := startWithGroup(t, "rg-gen")
	pv := g + "/providers/"
	cases := []struct {
		path string
		body map[string]any
		key  []string
		want func(string) bool
	}{
		{"Microsoft.Cdn/profiles/fd1?api-version=2023-05-01", map[string]any{"location": "global", "sku": map[string]any{"name": "Standard_AzureFrontDoor"}},
			[]string{"frontDoorId"}, func(v string) bool { return len(v) == 36 }},
		{"Microsoft.Cdn/profiles/cdn-gen-1?api-version=2024-02-01", map[string]any{"location": "global", "sku": map[string]any{"name": "Standard_Microsoft"}},
			nil, func(string) bool { return true }},
		// "hostName": "{endpointName}.{DNSZone}, e.g. contoso.azureedge.net"
		// (Microsoft.Cdn REST specification, Endpoint properties).
		{"Microsoft.Cdn/profiles/cdn-gen-1/endpoints/Ep-Gen-1?api-version=2024-02-01", map[string]any{"location": "global", "properties": map[string]any{
			"origins": []any{map[string]any{"name": "o", "properties": map[string]any{"hostName": "example.org"}}}}},
			[]string{"hostName"}, func(v string) bool { return v == "ep-gen-1.azureedge.net" }},
		// Front Door's "{name}-{hash}.z01.azurefd.net" (Microsoft Learn,
		// "Endpoints in Azure Front Door").
		{"Microsoft.Cdn/profiles/fd1/afdEndpoints/Fd-Ep?api-version=2023-05-01", map[string]any{"location": "global", "properties": map[string]any{"enabledState": "Enabled"}},
			[]string{"hostName"}, func(v string) bool {
				return strings.HasPrefix(v, "fd-ep-") && strings.HasSuffix(v, ".z01.azurefd.net") && len(v) == len("fd-ep-")+16+len(".z01.azurefd.net")
			}},
		// "DigitalTwins - Get": {name}.api.{region code}.digitaltwins.azure.net,
		// the name's case kept (REST example: ...api.wcus...; public West
		// Europe instances: ...api.weu...).
		{"Microsoft.DigitalTwins/digitalTwinsInstances/Dt-Gen?api-version=2023-01-31", map[string]any{"location": "westeurope", "properties": map[string]any{}},
			[]string{"hostName"}, func(v string) bool { return v == "Dt-Gen.api.weu.digitaltwins.azure.net" }},
		// A workspace PUT with a location alone still gets the customerId
		// the service generates (the recorded profile's added values).
		{"Microsoft.OperationalInsights/workspaces/ws-gen?api-version=2020-08-01", map[string]any{"location": "westeurope"},
			[]string{"customerId"}, func(v string) bool { return len(v) == 36 }},
		// "Api Management Service - Get", as the Azure CLI records it.
		{"Microsoft.ApiManagement/service/Apim-Gen?api-version=2022-08-01", map[string]any{"location": "westeurope", "sku": map[string]any{"name": "Developer", "capacity": 1},
			"properties": map[string]any{"publisherEmail": "a@example.org", "publisherName": "a"}},
			[]string{"gatewayUrl"}, func(v string) bool { return v == "https://apim-gen.azure-api.net" }},
		{"Microsoft.ApiManagement/service/Apim-Gen?api-version=2022-08-01", nil,
			[]string{"hostnameConfigurations"}, func(v string) bool { return true }},
		// An App Service Environment's domain suffix, when the request
		// names none: <name>.appserviceenvironment.net for an internal
		// (ILB) or v3 environment, <name>.p.azurewebsites.net for an
		// external v2 one (Microsoft Learn "App Service Environment
		// networking", "Create an external App Service Environment").
		{"Microsoft.Web/hostingEnvironments/Ase-Ilb-1?api-version=2019-08-01", map[string]any{"location": "westeurope", "kind": "ASEV2", "properties": map[string]any{"internalLoadBalancingMode": "Web, Publishing"}},
			[]string{"dnsSuffix"}, func(v string) bool { return v == "ase-ilb-1.appserviceenvironment.net" }},
		{"Microsoft.Web/hostingEnvironments/ase-ext-1?api-version=2019-08-01", map[string]any{"location": "westeurope", "kind": "ASEV2", "properties": map[string]any{"internalLoadBalancingMode": "None"}},
			[]string{"dnsSuffix"}, func(v string) bool { return v == "ase-ext-1.p.azurewebsites.net" }},
		{"Microsoft.Web/hostingEnvironments/ase-v3-1?api-version=2022-03-01", map[string]any{"location": "westeurope", "kind": "ASEV3", "properties": map[string]any{}},
			[]string{"dnsSuffix"}, func(v string) bool { return v == "ase-v3-1.appserviceenvironment.net" }},
		{"Microsoft.Web/hostingEnvironments/ase-own-1?api-version=2019-08-01", map[string]any{"location": "westeurope", "kind": "ASEV2", "properties": map[string]any{"internalLoadBalancingMode": "Web, Publishing", "dnsSuffix": "contoso.internal"}},
			[]string{"dnsSuffix"}, func(v string) bool { return v == "contoso.internal" }},
		// An App Service certificate order has the token its domain
		// verification needs from creation ("App Service Certificate
		// Orders - Get": domainVerificationToken, read-only); the signed
		// certificate comes only once the order is issued.
		{"Microsoft.CertificateRegistration/certificateOrders/order-gen-1?api-version=2022-09-01", map[string]any{"location": "global", "properties": map[string]any{"distinguishedName": "CN=*.example.org", "productType": "WildCardSsl", "autoRenew": true}},
			[]string{"domainVerificationToken"}, func(v string) bool { return len(v) == 26 }},
		{"Microsoft.Cache/redis/cache-gen-1?api-version=2023-08-01", map[string]any{"location": "westeurope", "properties": map[string]any{"sku": map[string]any{"name": "Basic", "family": "C", "capacity": 0}}},
			[]string{"hostName"}, func(v string) bool { return v == "cache-gen-1.redis.cache.windows.net" }},
		{"Microsoft.CognitiveServices/accounts/ai-gen-1?api-version=2023-05-01", map[string]any{"location": "westeurope", "kind": "OpenAI", "sku": map[string]any{"name": "S0"}, "properties": map[string]any{"customSubDomainName": "ai-gen-1"}},
			[]string{"endpoint"}, func(v string) bool { return v == "https://ai-gen-1.openai.azure.com/" }},
		{"Microsoft.Web/certificates/cert-gen-1?api-version=2023-12-01", map[string]any{"location": "westeurope", "properties": map[string]any{"pfxBlob": "MIIB", "password": "x"}},
			[]string{"thumbprint"}, func(v string) bool { return len(v) == 40 && v == strings.ToUpper(v) }},
		{"Microsoft.ContainerInstance/containerGroups/aci-gen-1?api-version=2023-05-01", map[string]any{"location": "westeurope", "properties": map[string]any{"osType": "Linux",
			"containers": []any{map[string]any{"name": "c", "properties": map[string]any{"image": "nginx", "resources": map[string]any{"requests": map[string]any{"cpu": 1, "memoryInGB": 1}}}}},
			"ipAddress":  map[string]any{"type": "Public", "dnsNameLabel": "Hello", "ports": []any{map[string]any{"port": 80}}}}},
			[]string{"ipAddress", "ip"}, func(v string) bool { return strings.HasPrefix(v, "20.") }},
		{"Microsoft.ContainerInstance/containerGroups/aci-gen-1?api-version=2023-05-01", nil,
			[]string{"ipAddress", "fqdn"}, func(v string) bool { return v == "hello.westeurope.azurecontainer.io" }},
		{"Microsoft.ContainerService/managedClusters/aks-gen-1?api-version=2024-02-01", map[string]any{"location": "westeurope", "identity": map[string]any{"type": "SystemAssigned"},
			"properties": map[string]any{"dnsPrefix": "aksgen", "agentPoolProfiles": []any{map[string]any{"name": "system", "count": 1, "vmSize": "Standard_D2s_v3", "mode": "System"}},
				"addonProfiles": map[string]any{"ingressApplicationGateway": map[string]any{"enabled": true}}}},
			[]string{"addonProfiles", "ingressApplicationGateway", "identity", "objectId"}, func(v string) bool { return len(v) == 36 }},
		// A Databricks workspace whose managed disks use a customer key
		// has the disk encryption set's identity (REST specification,
		// WorkspaceProperties.managedDiskIdentity).
		{"Microsoft.Databricks/workspaces/dbw-gen-1?api-version=2024-05-01", map[string]any{"location": "westeurope", "sku": map[string]any{"name": "premium"},
			"properties": map[string]any{"managedResourceGroupId": g + "-dbw-managed", "encryption": map[string]any{"entities": map[string]any{"managedDisk": map[string]any{
				"keySource": "Microsoft.Keyvault", "keyVaultProperties": map[string]any{"keyVaultUri": "https://kv-gen-1.vault.azure.net/", "keyName": "k1", "keyVersion": "0123"}}}}}},
			[]string{"managedDiskIdentity", "principalId"}, func(v string) bool { return len(v) == 36 }},
	}
	for _, c := range cases {
		if c.body != nil {
			put(t, u+pv+c.path, c.body)
		}
		b := get(t, u+pv+c.path)
		got, _ := at(b["properties"], c.key...).(string)
		if !c.want(got) {
			t.Errorf("%s: properties.%s = %q in %s", c.path, strings.Join(c.key, "."), got, jsonText(b["properties"]))
		}
	}
	aks := get(t, u+pv+"Microsoft.ContainerService/managedClusters/aks-gen-1?api-version=2024-02-01")
	if v, _ := at(aks, "properties", "identityProfile", "kubeletidentity", "objectId").(string); len(v) != 36 {
		t.Errorf("kubelet identity: %s", jsonText(at(aks, "properties", "identityProfile")))
	}
	kv := pv + "Microsoft.KeyVault/vaults/kv-gen-1"
	put(t, u+kv+"?api-version=2023-07-01", map[string]any{"location": "westeurope", "properties": map[string]any{"tenantId": emulatorTenant, "sku": map[string]any{"family": "A", "name": "standard"}, "enableRbacAuthorization": true}})
	put(t, u+kv+"/secrets/s1?api-version=2023-07-01", map[string]any{"properties": map[string]any{"value": "not-shown"}})
	sec := get(t, u+kv+"/secrets/s1?api-version=2023-07-01")
	if at(sec, "properties", "secretUri") != "https://kv-gen-1.vault.azure.net/secrets/s1" || !strings.HasPrefix(str(sec, "properties", "secretUriWithVersion"), "https://kv-gen-1.vault.azure.net/secrets/s1/") {
		t.Errorf("secret %s", jsonText(sec))
	}
	if strings.Contains(jsonText(sec), "not-shown") {
		t.Errorf("a secret's value is answered: %s", jsonText(sec))
	}
	put(t, u+kv+"/keys/k1?api-version=2023-07-01", map[string]any{"properties": map[string]any{"kty": "RSA", "keySize": 2048}})
	key := get(t, u+kv+"/keys/k1?api-version=2023-07-01")
	if at(key, "properties", "keyUri") != "https://kv-gen-1.vault.azure.net/keys/k1" || len(str(key, "properties", "keyUriWithVersion")) != len("https://kv-gen-1.vault.azure.net/keys/k1/")+32 {
		t.Errorf("key %s", jsonText(key))
	}
}

// TestTemplateListActionShapes: the list actions old and common templates read answer the shapes they
// read: a 2015 storage listKeys key1, an IoT hub's policies, a Logic
// integration account's callback URL.
func TestTemplateListActionShapes(t *testing.T) {
	u, g := startWithGroup(t, "rg-list")
	pv := u + g + "/providers/"
	put(t, pv+"Microsoft.Storage/storageAccounts/stoldkeys1?api-version=2015-06-15", map[string]any{"location": "westeurope", "properties": map[string]any{"accountType": "Standard_LRS"}})
	if r := do(t, "POST", pv+"Microsoft.Storage/storageAccounts/stoldkeys1/listKeys?api-version=2015-06-15", nil); r.Status != 200 || str(r.Body, "key1") == "" {
		t.Errorf("2015 listKeys: %d %s", r.Status, r.Raw)
	}
	put(t, pv+"Microsoft.Devices/IotHubs/hub-list-1?api-version=2021-07-02", map[string]any{"location": "westeurope", "sku": map[string]any{"name": "S1", "capacity": 1}, "properties": map[string]any{}})
	r := do(t, "POST", pv+"Microsoft.Devices/IotHubs/hub-list-1/listkeys?api-version=2021-07-02", nil)
	if keys, _ := r.Body["value"].([]any); r.Status != 200 || len(keys) == 0 || at(keys[0], "keyName") != "iothubowner" || str(keys[0], "primaryKey") == "" {
		t.Errorf("IoT hub listkeys: %d %s", r.Status, r.Raw)
	}
	policies := []any{}
	for _, n := range []string{"iothubowner", "service", "device", "registryRead", "registryReadWrite", "deviceupdateservice"} {
		policies = append(policies, map[string]any{"keyName": n, "rights": "ServiceConnect"})
	}
	put(t, pv+"Microsoft.Devices/IotHubs/hub-list-2?api-version=2021-07-02", map[string]any{"location": "westeurope", "sku": map[string]any{"name": "S1", "capacity": 1},
		"properties": map[string]any{"authorizationPolicies": policies}})
	r = do(t, "POST", pv+"Microsoft.Devices/IotHubs/hub-list-2/listkeys?api-version=2021-07-02", nil)
	if keys, _ := r.Body["value"].([]any); len(keys) != 6 || at(keys[5], "keyName") != "deviceupdateservice" || str(keys[5], "primaryKey") == "" {
		t.Errorf("IoT hub with its own policies: %d %s", r.Status, r.Raw)
	}
	put(t, pv+"Microsoft.Logic/integrationAccounts/ia-list-1?api-version=2019-05-01", map[string]any{"location": "westeurope", "sku": map[string]any{"name": "Standard"}, "properties": map[string]any{}})
	r = do(t, "POST", pv+"Microsoft.Logic/integrationAccounts/ia-list-1/listCallbackUrl?api-version=2019-05-01", map[string]any{})
	if r.Status != 200 || !strings.HasPrefix(str(r.Body, "value"), "https://prod-00.westeurope.logic.azure.com:443/integrationAccounts/") {
		t.Errorf("listCallbackUrl: %d %s", r.Status, r.Raw)
	}
	// A self-hosted integration runtime's keys, in the form public setup
	// scripts register with: IR@{guid}@{factory}@ServiceEndpoint=
	// {factory}.{region}.datafactory.azure.net@{key}.
	put(t, pv+"Microsoft.DataFactory/factories/Df-List?api-version=2018-06-01", map[string]any{"location": "westeurope", "properties": map[string]any{}})
	put(t, pv+"Microsoft.DataFactory/factories/Df-List/integrationRuntimes/shir?api-version=2018-06-01", map[string]any{"properties": map[string]any{"type": "SelfHosted"}})
	r = do(t, "POST", pv+"Microsoft.DataFactory/factories/Df-List/integrationRuntimes/shir/listAuthKeys?api-version=2018-06-01", nil)
	k1, k2 := str(r.Body, "authKey1"), str(r.Body, "authKey2")
	if r.Status != 200 || !strings.HasPrefix(k1, "IR@") || !strings.Contains(k1, "@Df-List@ServiceEndpoint=df-list.westeurope.datafactory.azure.net@") || k1 == k2 || k1[:40] != k2[:40] {
		t.Errorf("listAuthKeys: %d %s", r.Status, r.Raw)
	}
}

// Writes under a parent ARM routes through without a resource (Cosmos
// DB's old apis/{api} paths, an IoT hub's built-in "events" endpoint) need
// only the real resource above it; other missing parents stay 404.
func TestVirtualParents(t *testing.T) {
	u, g := startWithGroup(t, "rg-virt")
	pv := u + g + "/providers/"
	put(t, pv+"Microsoft.DocumentDB/databaseAccounts/cosmos-virt-1?api-version=2019-08-01", map[string]any{"location": "westeurope", "kind": "GlobalDocumentDB",
		"properties": map[string]any{"databaseAccountOfferType": "Standard", "locations": []any{map[string]any{"locationName": "westeurope"}}}})
	put(t, pv+"Microsoft.DocumentDB/databaseAccounts/cosmos-virt-1/apis/sql/databases/db1?api-version=2019-08-01", map[string]any{"properties": map[string]any{"resource": map[string]any{"id": "db1"}, "options": map[string]any{}}})
	put(t, pv+"Microsoft.Devices/IotHubs/hub-virt-1?api-version=2021-07-02", map[string]any{"location": "westeurope", "sku": map[string]any{"name": "S1", "capacity": 1}, "properties": map[string]any{}})
	put(t, pv+"Microsoft.Devices/IotHubs/hub-virt-1/eventHubEndpoints/events/ConsumerGroups/cg1?api-version=2021-07-02", map[string]any{"properties": map[string]any{"name": "cg1"}})
	if r := do(t, "PUT", pv+"Microsoft.Devices/IotHubs/hub-virt-1/eventHubEndpoints/other/ConsumerGroups/cg1?api-version=2021-07-02", map[string]any{"properties": map[string]any{"name": "cg1"}}); r.Status != 404 {
		t.Errorf("an endpoint the hub lacks: %d %s", r.Status, r.Raw)
	}
	if r := do(t, "PUT", pv+"Microsoft.Devices/IotHubs/missing/eventHubEndpoints/events/ConsumerGroups/cg1?api-version=2021-07-02", map[string]any{"properties": map[string]any{"name": "cg1"}}); r.Status != 404 {
		t.Errorf("under a missing hub: %d %s", r.Status, r.Raw)
	}
}

// References to what a service has under every resource of a type
// (Cosmos DB's built-in data roles, a dev center's Default gallery) are
// not missing references; under a missing parent they are.
func TestReferencesToBuiltInChildren(t *testing.T) {
	u, g := startWithGroup(t, "rg-builtin")
	pv := u + g + "/providers/"
	acct := g + "/providers/Microsoft.DocumentDB/databaseAccounts/cosmos-bi-1"
	put(t, u+acct+"?api-version=2023-04-15", map[string]any{"location": "westeurope", "kind": "GlobalDocumentDB",
		"properties": map[string]any{"databaseAccountOfferType": "Standard", "locations": []any{map[string]any{"locationName": "westeurope"}}}})
	ra := func(account string) resp {
		return do(t, "PUT", pv+"Microsoft.DocumentDB/databaseAccounts/cosmos-bi-1/sqlRoleAssignments/3fd8b2c4-0000-4000-8000-000000000001?api-version=2023-04-15",
			map[string]any{"properties": map[string]any{"roleDefinitionId": account + "/sqlRoleDefinitions/00000000-0000-0000-0000-000000000002",
				"principalId": "22222222-2222-4222-8222-222222222222", "scope": acct}})
	}
	if r := ra(acct); r.Status >= 300 {
		t.Errorf("assignment of the built-in Data Contributor: %d %s", r.Status, r.Raw)
	}
	if r := ra(g + "/providers/Microsoft.DocumentDB/databaseAccounts/missing"); errCode(r) != "InvalidResourceReference" {
		t.Errorf("a role of a missing account: %d %s", r.Status, r.Raw)
	}
	dc := g + "/providers/Microsoft.DevCenter/devcenters/dc-bi-1"
	put(t, u+dc+"?api-version=2023-04-01", map[string]any{"location": "westeurope"})
	def := func(gallery string) resp {
		return do(t, "PUT", u+dc+"/devboxdefinitions/win11?api-version=2023-04-01", map[string]any{"location": "westeurope", "properties": map[string]any{
			"imageReference": map[string]any{"id": dc + "/galleries/" + gallery + "/images/microsoftwindowsdesktop_windows-ent-cpc_win11-22h2-ent-cpc-os"},
			"sku":            map[string]any{"name": "general_i_8c32gb256ssd_v2"}}})
	}
	if r := def("default"); r.Status >= 300 {
		t.Errorf("an image of the Default gallery: %d %s", r.Status, r.Raw)
	}
	if r := def("mine"); errCode(r) != "InvalidResourceReference" {
		t.Errorf("an image of a gallery never attached: %d %s", r.Status, r.Raw)
	}
	cg := g + "/providers/Microsoft.Compute/galleries/cg1"
	put(t, u+cg+"?api-version=2022-03-03", map[string]any{"location": "westeurope", "properties": map[string]any{}})
	put(t, u+cg+"/images/microsoftwindowsdesktop_windows-ent-cpc_win11-22h2-ent-cpc-os?api-version=2022-03-03", map[string]any{"location": "westeurope", "properties": map[string]any{
		"osType": "Windows", "osState": "Generalized", "hyperVGeneration": "V2", "identifier": map[string]any{"publisher": "p", "offer": "o", "sku": "s"}}})
	put(t, u+dc+"/galleries/mine?api-version=2023-04-01", map[string]any{"properties": map[string]any{"galleryResourceId": cg}})
	if r := def("mine"); r.Status >= 300 {
		t.Errorf("an image of an attached gallery: %d %s", r.Status, r.Raw)
	}
	vault := g + "/providers/Microsoft.RecoveryServices/vaults/rsv-bi-1"
	put(t, u+vault+"?api-version=2023-04-01", map[string]any{"location": "westeurope", "sku": map[string]any{"name": "RS0", "tier": "Standard"}, "properties": map[string]any{}})
	item := u + vault + "/backupFabrics/Azure/protectionContainers/iaasvmcontainer;iaasvmcontainerv2;rg-builtin;vm1/protectedItems/vm;iaasvmcontainerv2;rg-builtin;vm1?api-version=2023-04-01"
	body := func(policy string) map[string]any {
		return map[string]any{"properties": map[string]any{"protectedItemType": "Microsoft.Compute/virtualMachines", "policyId": vault + "/backupPolicies/" + policy}}
	}
	if r := do(t, "PUT", item, body("DefaultPolicy")); r.Status >= 300 {
		t.Errorf("the vault's DefaultPolicy taken for missing: %d %s", r.Status, r.Raw)
	}
	if r := do(t, "PUT", item, body("Mine")); errCode(r) != "InvalidResourceReference" || !strings.Contains(r.Raw, "backupPolicies/Mine") {
		t.Errorf("a policy never created: %d %s", r.Status, r.Raw)
	}
}

// An API Management service answers its default Proxy host name and, in
// an Internal virtual network, the private address it takes in the
// subnet ("privateIPAddresses: ... deployed in an Internal Virtual
// Network", ApiManagementServiceProperties); a load balancer's inbound
// NAT pools carry their SubResource IDs (InboundNatPool, allOf
// SubResource, loadBalancer.json), which scale sets read.
func TestAPIManagementAndNATPoolValues(t *testing.T) {
	u, g := startWithGroup(t, "rg-gen-net")
	pv := u + g + "/providers/"
	put(t, pv+"Microsoft.Network/virtualNetworks/vn?api-version=2023-04-01", map[string]any{"location": "westeurope", "properties": map[string]any{
		"addressSpace": map[string]any{"addressPrefixes": []any{"10.8.0.0/16"}},
		"subnets":      []any{map[string]any{"name": "apim", "properties": map[string]any{"addressPrefix": "10.8.1.0/24"}}}}})
	subnet := g + "/providers/Microsoft.Network/virtualNetworks/vn/subnets/apim"
	apim := pv + "Microsoft.ApiManagement/service/apim-int?api-version=2022-08-01"
	put(t, apim, map[string]any{"location": "westeurope", "sku": map[string]any{"name": "Developer", "capacity": 1},
		"properties": map[string]any{"publisherEmail": "a@example.org", "publisherName": "a", "virtualNetworkType": "Internal",
			"virtualNetworkConfiguration": map[string]any{"subnetResourceId": subnet}}})
	b := get(t, apim)
	ips, _ := at(b, "properties", "privateIPAddresses").([]any)
	hcs, _ := at(b, "properties", "hostnameConfigurations").([]any)
	if len(ips) != 1 || ips[0] != "10.8.1.4" {
		t.Errorf("privateIPAddresses = %v", at(b, "properties", "privateIPAddresses"))
	}
	if len(hcs) != 1 || at(hcs[0], "hostName") != "apim-int.azure-api.net" || at(hcs[0], "type") != "Proxy" || at(hcs[0], "certificateSource") != "BuiltIn" {
		t.Errorf("hostnameConfigurations = %s", jsonText(hcs))
	}
	// Written again, it keeps its address.
	put(t, apim, map[string]any{"location": "westeurope", "sku": map[string]any{"name": "Developer", "capacity": 1},
		"properties": map[string]any{"publisherEmail": "a@example.org", "publisherName": "a", "virtualNetworkType": "Internal",
			"virtualNetworkConfiguration": map[string]any{"subnetResourceId": subnet}}})
	if again, _ := at(get(t, apim), "properties", "privateIPAddresses").([]any); len(again) != 1 || again[0] != "10.8.1.4" {
		t.Errorf("privateIPAddresses after a second PUT = %v", again)
	}

	lb := pv + "Microsoft.Network/loadBalancers/lb?api-version=2023-04-01"
	put(t, pv+"Microsoft.Network/publicIPAddresses/pip?api-version=2023-04-01", map[string]any{"location": "westeurope", "sku": map[string]any{"name": "Standard"}, "properties": map[string]any{"publicIPAllocationMethod": "Static"}})
	put(t, lb, map[string]any{"location": "westeurope", "properties": map[string]any{
		"frontendIPConfigurations": []any{map[string]any{"name": "fe", "properties": map[string]any{"publicIPAddress": map[string]any{"id": g + "/providers/Microsoft.Network/publicIPAddresses/pip"}}}},
		"inboundNatPools": []any{map[string]any{"name": "ssh", "properties": map[string]any{"frontendIPConfiguration": map[string]any{"id": g + "/providers/Microsoft.Network/loadBalancers/lb/frontendIPConfigurations/fe"},
			"protocol": "Tcp", "frontendPortRangeStart": 50000, "frontendPortRangeEnd": 50100, "backendPort": 22}}}}})
	pools, _ := at(get(t, lb), "properties", "inboundNatPools").([]any)
	if len(pools) != 1 || at(pools[0], "id") != g+"/providers/Microsoft.Network/loadBalancers/lb/inboundNatPools/ssh" || at(pools[0], "type") != "Microsoft.Network/loadBalancers/inboundNatPools" {
		t.Errorf("inboundNatPools = %s", jsonText(pools))
	}
}
