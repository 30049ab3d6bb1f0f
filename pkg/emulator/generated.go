package emulator

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"net"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// Generated values are derived from the resource's ID (case-insensitive)
// and a purpose, so they are stable across requests and restarts and
// distinct per resource — never one recorded constant shared by all.

func digest(id, purpose string) [32]byte {
	return sha256.Sum256([]byte(purpose + "\x00" + armid.Key(id)))
}

// derivedGUID is a version-4-shaped GUID for id and purpose.
func derivedGUID(id, purpose string) string {
	b := digest(id, purpose)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// derivedKey is a base64 key of n bytes, like the storage and Cosmos keys.
func derivedKey(id, purpose string, n int) string {
	var out []byte
	for i := 0; len(out) < n; i++ {
		b := digest(id, fmt.Sprintf("%s#%d", purpose, i))
		out = append(out, b[:]...)
	}
	return base64.StdEncoding.EncodeToString(out[:n])
}

// derivedHex is n lower-case hex characters.
func derivedHex(id, purpose string, n int) string {
	b := digest(id, purpose)
	return fmt.Sprintf("%x", b[:])[:n]
}

// derivedPublicIP is a public IPv4 address in 20.0.0.0/8 (a range Azure
// allocates from), avoiding .0 and .255.
func derivedPublicIP(id string) string {
	b := digest(id, "publicIP")
	v := binary.BigEndian.Uint32(b[:4])
	return fmt.Sprintf("20.%d.%d.%d", byte(v>>16), byte(v>>8), 1+byte(v)%254)
}

// aksFQDN is the API server name AKS derives from dnsPrefix.
func aksFQDN(id, dnsPrefix, location, zone string) string {
	if dnsPrefix == "" {
		dnsPrefix = "aks"
	}
	return fmt.Sprintf("%s-%s.%s.%s.azmk8s.io", strings.ToLower(dnsPrefix), derivedHex(id, "fqdn", 8), zone, LocationKey(location))
}

// applyGenerated replaces recorded constants with values derived from the
// resource: identities' principal and tenant IDs, public IP addresses,
// AKS FQDNs. prev keeps values already assigned.
func applyGenerated(id, typ string, body map[string]any) {
	if ident, ok := body["identity"].(map[string]any); ok {
		t, _ := ident["type"].(string)
		if strings.Contains(strings.ToLower(t), "systemassigned") {
			ident["principalId"] = derivedGUID(id, "principalId")
			ident["tenantId"] = emulatorTenant
		} else {
			delete(ident, "principalId")
			delete(ident, "tenantId")
		}
		if uai, ok := ident["userAssignedIdentities"].(map[string]any); ok {
			for uid := range uai {
				uai[uid] = map[string]any{
					"principalId": derivedGUID(uid, "principalId"),
					"clientId":    derivedGUID(uid, "clientId"),
				}
			}
		}
	}
	props, _ := body["properties"].(map[string]any)
	if props == nil && (strings.EqualFold(typ, "Microsoft.ManagedIdentity/userAssignedIdentities") || strings.EqualFold(typ, "Microsoft.Cdn/profiles")) {
		// Azure fills an identity's IDs (a profile's frontDoorId) whatever
		// the PUT carried; most are created with no properties at all.
		props = map[string]any{}
		body["properties"] = props
	}
	if props == nil {
		return
	}
	loc, _ := body["location"].(string)
	switch strings.ToLower(typ) {
	case "microsoft.managedidentity/userassignedidentities":
		props["principalId"] = derivedGUID(id, "principalId")
		props["clientId"] = derivedGUID(id, "clientId")
		props["tenantId"] = emulatorTenant
	case "microsoft.network/publicipaddresses":
		// Azure allocates a static (and every Standard-SKU) address at
		// create; a dynamic Basic one only once it is attached.
		method, _ := props["publicIPAllocationMethod"].(string)
		sku, _ := asMap(body["sku"])["name"].(string)
		v, _ := props["publicIPAddressVersion"].(string)
		if !strings.EqualFold(v, "IPv6") && (strings.EqualFold(method, "Static") || strings.EqualFold(sku, "Standard")) {
			props["ipAddress"] = derivedPublicIP(id)
		} else {
			delete(props, "ipAddress")
		}
		if dns, ok := props["dnsSettings"].(map[string]any); ok {
			if label, _ := dns["domainNameLabel"].(string); label != "" {
				dns["fqdn"] = strings.ToLower(label) + "." + LocationKey(loc) + ".cloudapp.azure.com"
			}
		}
	case "microsoft.containerservice/managedclusters":
		prefix, _ := props["dnsPrefix"].(string)
		if prefix != "" {
			props["fqdn"] = aksFQDN(id, prefix, loc, "hcp")
			props["azurePortalFQDN"] = aksFQDN(id, prefix, loc, "portal.hcp")
		}
		if body["identity"] != nil {
			aksIdentities(id, props)
		}
	case "microsoft.keyvault/vaults":
		name := id[strings.LastIndex(id, "/")+1:]
		props["vaultUri"] = "https://" + strings.ToLower(name) + ".vault.azure.net/"
	default:
		applyServiceGenerated(id, typ, loc, body, props)
	}
}

// applyServiceGenerated fills the values other services compute, which
// templates read with reference() (each with its REST reference).
func applyServiceGenerated(id, typ, loc string, body, props map[string]any) {
	p, ok := armid.ParsePath(id)
	if !ok {
		return
	}
	switch strings.ToLower(typ) {
	case "microsoft.cdn/profiles":
		// Front Door Standard/Premium profiles have their own ID, which
		// origins check in X-Azure-FDID ("Profiles - Get": frontDoorId).
		if sku, _ := asMap(body["sku"])["name"].(string); strings.HasSuffix(strings.ToLower(sku), "azurefrontdoor") {
			props["frontDoorId"] = derivedGUID(id, "frontDoorId")
		}
	case "microsoft.network/loadbalancers":
		// An inbound NAT pool is a SubResource with an ID, an etag and a
		// type (InboundNatPool, allOf SubResource, in the Microsoft.Network
		// REST specification, loadBalancer.json) but no child type of its
		// own, so the inline-children sync does not stamp it; scale sets
		// read its ID with reference().
		pools, _ := props["inboundNatPools"].([]any)
		for _, it := range pools {
			if m := asMap(it); m != nil && str0(m["name"]) != "" {
				m["id"] = id + "/inboundNatPools/" + str0(m["name"])
				m["type"] = "Microsoft.Network/loadBalancers/inboundNatPools"
				m["etag"] = `W/"` + derivedGUID(m["id"].(string), "etag") + `"`
				if pp := asMap(m["properties"]); pp != nil {
					pp["provisioningState"] = "Succeeded"
				}
			}
		}
	case "microsoft.apimanagement/service":
		apimGenerated(id, p.Name(), props)
	case "microsoft.digitaltwins/digitaltwinsinstances":
		// "DigitalTwins - Get": hostName {name}.api.{region code}.
		// digitaltwins.azure.net, the name's case kept (the REST example
		// answers myDigitalTwinsService.api.wcus...; public West Europe
		// instances are ....api.weu..., Azure PowerShell's recorded East US one
		// ...api.eus...). Regions whose code is not known
		// here get no host name rather than a made-up one.
		if code, ok := digitalTwinsRegions[LocationKey(loc)]; ok {
			props["hostName"] = p.Name() + ".api." + code + ".digitaltwins.azure.net"
		}
	case "microsoft.cdn/profiles/endpoints":
		// "Endpoints - Get": hostName, "structured as
		// {endpointName}.{DNSZone}, e.g. contoso.azureedge.net" (the
		// Microsoft.Cdn REST specification, 2024-02-01).
		if len(p.Names) == 2 {
			props["hostName"] = strings.ToLower(p.Names[1]) + ".azureedge.net"
		}
	case "microsoft.cdn/profiles/afdendpoints":
		// Front Door Standard/Premium endpoint names are the endpoint's
		// name, a hash Front Door picks and its base domain, "generally
		// z01.azurefd.net" (Microsoft Learn, "Endpoints in Azure Front
		// Door": endpoint domain names).
		if len(p.Names) == 2 {
			props["hostName"] = strings.ToLower(p.Names[1]) + "-" + derivedHex(id, "afdHostHash", 16) + ".z01.azurefd.net"
		}
	case "microsoft.web/hostingenvironments":
		if str0(props["dnsSuffix"]) == "" {
			props["dnsSuffix"] = aseDNSSuffix(p.Name(), str0(body["kind"]), props["internalLoadBalancingMode"])
		}
	case "microsoft.certificateregistration/certificateorders":
		// "App Service Certificate Orders - Get": domainVerificationToken,
		// read-only, there from creation for the domain's ownership
		// identifier; signedCertificate only once the order is issued,
		// which needs a verified domain, so it is not made up here.
		props["domainVerificationToken"] = derivedHex(id, "domainVerificationToken", 26)
	case "microsoft.cache/redis":
		// "Redis - Get": hostName, port 6379, sslPort 6380.
		props["hostName"] = strings.ToLower(p.Name()) + ".redis.cache.windows.net"
		props["port"], props["sslPort"] = jsonNum(6379), jsonNum(6380)
	case "microsoft.keyvault/vaults/secrets":
		// "Secrets - Get": secretUri and secretUriWithVersion.
		if len(p.Names) == 2 {
			uri := "https://" + strings.ToLower(p.Names[0]) + ".vault.azure.net/secrets/" + p.Names[1]
			props["secretUri"] = uri
			props["secretUriWithVersion"] = uri + "/" + derivedHex(id, "secretVersion", 32)
		}
	case "microsoft.keyvault/vaults/keys":
		// "Keys - Get" (Microsoft.KeyVault keys.json 2023-07-01,
		// KeyProperties): keyUri and keyUriWithVersion, read-only, the
		// key's data-plane address (its version a 32-digit hex string).
		if len(p.Names) == 2 {
			uri := "https://" + strings.ToLower(p.Names[0]) + ".vault.azure.net/keys/" + p.Names[1]
			props["keyUri"] = uri
			props["keyUriWithVersion"] = uri + "/" + derivedHex(id, "keyVersion", 32)
		}
	case "microsoft.databricks/workspaces":
		// Databricks REST specification (2024-05-01, WorkspaceProperties):
		// managedDiskIdentity is "the details of Managed Identity of Disk
		// Encryption Set used for Managed Disk Encryption", the set the
		// service makes when encryption.entities.managedDisk is given;
		// templates grant it access to the key with reference().
		if ents := asMap(asMap(props["encryption"])["entities"]); ents != nil && ents["managedDisk"] != nil {
			props["managedDiskIdentity"] = map[string]any{"principalId": derivedGUID(id, "managedDiskPrincipalId"), "tenantId": emulatorTenant, "type": "SystemAssigned"}
		}
	case "microsoft.cognitiveservices/accounts":
		props["endpoint"] = cognitiveEndpoint(body, props, loc)
	case "microsoft.servicefabric/clusters":
		// "Clusters - Get": clusterEndpoint.
		props["clusterEndpoint"] = "https://" + LocationKey(loc) + ".servicefabric.azure.com/runtime/clusters/" + derivedGUID(id, "clusterId")
	case "microsoft.web/certificates":
		// "Certificates - Get": thumbprint (a SHA-1, upper-case hex).
		props["thumbprint"] = strings.ToUpper(derivedHex(id, "thumbprint", 40))
	case "microsoft.containerinstance/containergroups":
		if ip := asMap(props["ipAddress"]); ip != nil && strings.EqualFold(str0(ip["type"]), "Public") {
			ip["ip"] = derivedPublicIP(id)
			// "Container Groups - Get": fqdn <label>.<region>.azurecontainer.io.
			if label := str0(ip["dnsNameLabel"]); label != "" {
				ip["fqdn"] = strings.ToLower(label) + "." + LocationKey(loc) + ".azurecontainer.io"
			}
		}
	}
}

// cognitiveEndpoint is an account's endpoint: its custom subdomain's
// (openai.azure.com for Azure OpenAI), else the regional one (Microsoft
// Learn "Custom subdomain names for Azure AI services").
func cognitiveEndpoint(body, props map[string]any, loc string) string {
	sub := strings.ToLower(str0(props["customSubDomainName"]))
	switch {
	case sub != "" && strings.EqualFold(str0(body["kind"]), "OpenAI"):
		return "https://" + sub + ".openai.azure.com/"
	case sub != "":
		return "https://" + sub + ".cognitiveservices.azure.com/"
	}
	return "https://" + LocationKey(loc) + ".api.cognitive.microsoft.com/"
}

// aksIdentities: a cluster with a managed identity gets its kubelet
// identity, and an enabled application gateway ingress add-on its own
// identity, both created by AKS in the node resource group ("Managed
// Clusters - Get": identityProfile.kubeletidentity, addonProfiles.
// ingressApplicationGateway.identity).
func aksIdentities(id string, props map[string]any) {
	node := str0(props["nodeResourceGroup"])
	p, _ := armid.ParsePath(id)
	if node == "" {
		node = "MC_" + p.ResourceGroup + "_" + p.Name()
	}
	ident := func(name string) map[string]any {
		rid := "/subscriptions/" + p.Subscription + "/resourcegroups/" + node + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/" + name
		return map[string]any{"resourceId": rid, "clientId": derivedGUID(rid, "clientId"), "objectId": derivedGUID(rid, "principalId")}
	}
	ip := asMap(props["identityProfile"])
	if ip == nil {
		ip = map[string]any{}
		props["identityProfile"] = ip
	}
	if _, ok := ip["kubeletidentity"]; !ok {
		ip["kubeletidentity"] = ident(p.Name() + "-agentpool")
	}
	if agic := asMap(asMap(props["addonProfiles"])["ingressApplicationGateway"]); agic != nil && agic["enabled"] == true {
		agic["identity"] = ident("ingressapplicationgateway-" + strings.ToLower(p.Name()))
	}
}

// assignPrivateIPs gives each NIC IP configuration without a static
// address the first free one of its subnet, from the fourth host on: Azure
// reserves the first four addresses and the last, and assigns dynamic
// addresses in order (Microsoft Learn "Virtual network FAQ: are there any
// restrictions on using IP addresses within these subnets?"; the first NIC
// of a recorded vnet, networkInterfaces in the azure-cli-extensions
// recordings, answers 10.0.1.4). A configuration keeps the address it
// already has in the same subnet. Caller holds s.mu.
func (s *Server) assignPrivateIPs(typ string, body, prev map[string]any) {
	if !strings.EqualFold(typ, "Microsoft.Network/networkInterfaces") {
		return
	}
	id, _ := body["id"].(string)
	cfgs, _ := asMap(body["properties"])["ipConfigurations"].([]any)
	for _, c := range cfgs {
		props := asMap(asMap(c)["properties"])
		if props == nil {
			continue
		}
		if m, _ := props["privateIPAllocationMethod"].(string); strings.EqualFold(m, "Static") {
			continue
		}
		subnetID, _ := asMap(props["subnet"])["id"].(string)
		sub := s.store.get(subnetID)
		if sub == nil {
			continue
		}
		prefix, _ := asMap(sub.Body["properties"])["addressPrefix"].(string)
		name, _ := asMap(c)["name"].(string)
		ip := keptIP(prev, name, subnetID)
		if ip == "" {
			ip = firstFreeHost(prefix, s.subnetIPsInUse(subnetID, id, body))
		}
		if ip != "" {
			props["privateIPAddress"] = ip
			props["privateIPAllocationMethod"] = "Dynamic"
		}
	}
}

// keptIP is the address prev's IP configuration name had in subnetID.
func keptIP(prev map[string]any, name, subnetID string) string {
	cfgs, _ := asMap(prev["properties"])["ipConfigurations"].([]any)
	for _, c := range cfgs {
		props := asMap(asMap(c)["properties"])
		if n, _ := asMap(c)["name"].(string); strings.EqualFold(n, name) && strings.EqualFold(str0(asMap(props["subnet"])["id"]), subnetID) {
			return str0(props["privateIPAddress"])
		}
	}
	return ""
}

func str0(v any) string { s, _ := v.(string); return s }

// subnetIPsInUse are the addresses other NICs, load balancer frontends and
// container groups hold in subnetID, and the static ones of body (the NIC
// being written, nicID). Caller holds s.mu.
func (s *Server) subnetIPsInUse(subnetID, nicID string, body map[string]any) map[string]bool {
	used := map[string]bool{}
	add := func(b map[string]any) {
		cfgs, _ := asMap(b["properties"])["ipConfigurations"].([]any)
		for _, c := range cfgs {
			props := asMap(asMap(c)["properties"])
			if strings.EqualFold(str0(asMap(props["subnet"])["id"]), subnetID) {
				if ip := str0(props["privateIPAddress"]); ip != "" {
					used[ip] = true
				}
			}
		}
	}
	for _, nic := range s.store.ofType("microsoft.network/networkinterfaces") {
		if !strings.EqualFold(nic.ID, nicID) {
			add(nic.Body)
		}
	}
	for _, lb := range s.store.ofType("microsoft.network/loadbalancers") {
		fes, _ := asMap(lb.Body["properties"])["frontendIPConfigurations"].([]any)
		for _, fe := range fes {
			fp := asMap(asMap(fe)["properties"])
			if !strings.EqualFold(lb.ID, nicID) && strings.EqualFold(str0(asMap(fp["subnet"])["id"]), subnetID) && str0(fp["privateIPAddress"]) != "" {
				used[str0(fp["privateIPAddress"])] = true
			}
		}
	}
	for _, cg := range s.store.ofType("microsoft.containerinstance/containergroups") {
		props := asMap(cg.Body["properties"])
		if ip := str0(asMap(props["ipAddress"])["ip"]); ip != "" && !strings.EqualFold(cg.ID, nicID) && strings.EqualFold(s.containerGroupSubnet(props), subnetID) {
			used[ip] = true
		}
	}
	cfgs, _ := asMap(body["properties"])["ipConfigurations"].([]any)
	for _, c := range cfgs {
		props := asMap(asMap(c)["properties"])
		if m, _ := props["privateIPAllocationMethod"].(string); strings.EqualFold(m, "Static") {
			if ip := str0(props["privateIPAddress"]); ip != "" && strings.EqualFold(str0(asMap(props["subnet"])["id"]), subnetID) {
				used[ip] = true
			}
		}
	}
	return used
}

// firstFreeHost is the lowest IPv4 host of prefix from the fourth on, short
// of broadcast, that used lacks ("" when none is left or prefix is not an
// IPv4 prefix of eight addresses or more).
func firstFreeHost(prefix string, used map[string]bool) string {
	_, n, err := net.ParseCIDR(prefix)
	if err != nil || n.IP.To4() == nil {
		return ""
	}
	ones, bits := n.Mask.Size()
	size := uint32(1) << uint(bits-ones)
	if size < 8 {
		return ""
	}
	base := binary.BigEndian.Uint32(n.IP.To4())
	out := make(net.IP, 4)
	for host := uint32(4); host < size-1; host++ {
		binary.BigEndian.PutUint32(out, base+host)
		if !used[out.String()] {
			return out.String()
		}
	}
	return ""
}

// assignFrontendIPs gives a load balancer's dynamic frontends in a subnet,
// and a container group deployed into a subnet, the subnet's first free
// address, as NICs get theirs; a rewrite keeps the address. Caller holds
// s.mu.
func (s *Server) assignFrontendIPs(typ string, body, prev map[string]any) {
	id, _ := body["id"].(string)
	props := asMap(body["properties"])
	switch strings.ToLower(typ) {
	case "microsoft.network/loadbalancers":
		fes, _ := props["frontendIPConfigurations"].([]any)
		old, _ := asMap(prev["properties"])["frontendIPConfigurations"].([]any)
		for i, fe := range fes {
			fp := asMap(asMap(fe)["properties"])
			subnet := str0(asMap(fp["subnet"])["id"])
			if subnet == "" || strings.EqualFold(str0(fp["privateIPAllocationMethod"]), "Static") {
				continue
			}
			if i < len(old) {
				if op := asMap(asMap(old[i])["properties"]); strings.EqualFold(str0(asMap(op["subnet"])["id"]), subnet) && str0(op["privateIPAddress"]) != "" {
					fp["privateIPAddress"] = op["privateIPAddress"]
					continue
				}
			}
			if ip := s.freeIPIn(subnet, id); ip != "" {
				fp["privateIPAddress"], fp["privateIPAllocationMethod"] = ip, "Dynamic"
			}
		}
	case "microsoft.apimanagement/service":
		// "privateIPAddresses: Private Static Load Balanced IP addresses
		// of the API Management service ... deployed in an Internal
		// Virtual Network" (ApiManagementServiceProperties, REST).
		subnet := str0(asMap(props["virtualNetworkConfiguration"])["subnetResourceId"])
		if !strings.EqualFold(str0(props["virtualNetworkType"]), "Internal") || subnet == "" {
			delete(props, "privateIPAddresses")
			return
		}
		if was, _ := asMap(prev["properties"])["privateIPAddresses"].([]any); len(was) > 0 {
			props["privateIPAddresses"] = was
			return
		}
		if ip := s.freeIPIn(subnet, id); ip != "" {
			props["privateIPAddresses"] = []any{ip}
		}
	case "microsoft.containerinstance/containergroups":
		ip := asMap(props["ipAddress"])
		subnet := s.containerGroupSubnet(props)
		if ip == nil && subnet != "" {
			// A group in a network profile's subnet (api-versions up to
			// 2021) answers a private address without being asked.
			ip = map[string]any{"type": "Private"}
			props["ipAddress"] = ip
		}
		if ip == nil || !strings.EqualFold(str0(ip["type"]), "Private") || subnet == "" {
			return
		}
		if was := str0(asMap(asMap(prev["properties"])["ipAddress"])["ip"]); was != "" {
			ip["ip"] = was
			return
		}
		if addr := s.freeIPIn(subnet, id); addr != "" {
			ip["ip"] = addr
		}
	}
}

// containerGroupSubnet is the subnet a container group is deployed into:
// its subnetIds, or the subnet of its network profile's first interface
// configuration (Microsoft.Network "Network Profiles - Get"). Caller
// holds s.mu.
func (s *Server) containerGroupSubnet(props map[string]any) string {
	if subnets, _ := props["subnetIds"].([]any); len(subnets) > 0 {
		return str0(asMap(subnets[0])["id"])
	}
	np := asMap(props["networkProfile"])
	id := str0(np["id"])
	if id == "" {
		id = str0(np["Id"])
	}
	prof := s.store.get(id)
	if prof == nil {
		return ""
	}
	cfgs, _ := asMap(prof.Body["properties"])["containerNetworkInterfaceConfigurations"].([]any)
	for _, c := range cfgs {
		ipcs, _ := asMap(asMap(c)["properties"])["ipConfigurations"].([]any)
		for _, ipc := range ipcs {
			if sn := str0(asMap(asMap(asMap(ipc)["properties"])["subnet"])["id"]); sn != "" {
				return sn
			}
		}
	}
	return ""
}

// freeIPIn is the first free address of subnetID for resource id, "" when
// the subnet is not stored. Caller holds s.mu.
func (s *Server) freeIPIn(subnetID, id string) string {
	sub := s.store.get(subnetID)
	if sub == nil {
		return ""
	}
	prefix, _ := asMap(sub.Body["properties"])["addressPrefix"].(string)
	return firstFreeHost(prefix, s.subnetIPsInUse(subnetID, id, nil))
}

// apimGenerated fills what API Management answers for every service: its
// endpoints on azure-api.net, the default Proxy host name with its
// built-in certificate, and the gateway's public address ("Api Management
// Service - Get" responses, as recorded by the Azure CLI: gatewayUrl
// https://{name}.azure-api.net, developerPortalUrl
// https://{name}.developer.azure-api.net, hostnameConfigurations [{type
// Proxy, hostName {name}.azure-api.net, certificateSource BuiltIn,
// defaultSslBinding true, negotiateClientCertificate false}]).
func apimGenerated(id, name string, props map[string]any) {
	host := strings.ToLower(name) + ".azure-api.net"
	props["gatewayUrl"] = "https://" + host
	props["developerPortalUrl"] = "https://" + strings.ToLower(name) + ".developer.azure-api.net"
	props["portalUrl"] = "https://" + strings.ToLower(name) + ".portal.azure-api.net"
	props["managementApiUrl"] = "https://" + strings.ToLower(name) + ".management.azure-api.net"
	props["scmUrl"] = "https://" + strings.ToLower(name) + ".scm.azure-api.net"
	props["publicIPAddresses"] = []any{derivedPublicIP(id)}
	// A service created without host names answers the default one; one
	// created with its own keeps what it was given.
	if hcs, _ := props["hostnameConfigurations"].([]any); len(hcs) == 0 {
		props["hostnameConfigurations"] = []any{map[string]any{
			"type": "Proxy", "hostName": host, "certificateSource": "BuiltIn",
			"defaultSslBinding": true, "negotiateClientCertificate": false,
		}}
	}
}

// digitalTwinsRegions are the region codes of Azure Digital Twins host
// names seen in public material.
var digitalTwinsRegions = map[string]string{"westcentralus": "wcus", "westeurope": "weu", "eastus": "eus"}

// aseDNSSuffix is the domain suffix an App Service Environment gets when
// the request names none: <name>.appserviceenvironment.net for a v3 or an
// internal (ILB) one, <name>.p.azurewebsites.net for an external v1/v2
// one (Microsoft Learn "App Service Environment networking" and "Create
// an external App Service Environment").
func aseDNSSuffix(name, kind string, ilbMode any) string {
	name = strings.ToLower(name)
	mode := strings.ToLower(fmt.Sprint(ilbMode))
	external := ilbMode == nil || mode == "none" || mode == "0" || mode == ""
	if external && !strings.EqualFold(kind, "ASEV3") {
		return name + ".p.azurewebsites.net"
	}
	return name + ".appserviceenvironment.net"
}
