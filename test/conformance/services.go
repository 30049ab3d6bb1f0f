package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/keyvault/armkeyvault"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/msi/armmsi"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v6"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/storage/armstorage"
)

func storage(ctx context.Context, e *env, r *runner) {
	c, _ := armstorage.NewAccountsClient(e.sub, e.cred, e.opts)
	create := func(name string, tags map[string]*string) error {
		p, err := c.BeginCreate(ctx, group, name, storageV2(tags), nil)
		if err != nil {
			return err
		}
		res, err := p.PollUntilDone(ctx, e.poll())
		if err != nil {
			return err
		}
		return expect(deref(res.Name) == name, "name %q", deref(res.Name))
	}
	r.check("storage.BeginCreate (200/202 + poller)", func() error { return create("stconf001", map[string]*string{"a": to.Ptr("1"), "b": to.Ptr("2")}) })
	r.check("storage.BeginCreate second account", func() error { return create("stconf002", nil) })
	r.check("storage.GetProperties Succeeded", func() error {
		res, err := c.GetProperties(ctx, group, "stconf001", nil)
		if err != nil {
			return err
		}
		return expect(res.Properties != nil && deref(res.Properties.ProvisioningState) == armstorage.ProvisioningStateSucceeded, "state %v", res.Properties)
	})
	r.check("storage.ListKeys returns two distinct keys per account", func() error {
		a, err := c.ListKeys(ctx, group, "stconf001", nil)
		if err != nil {
			return err
		}
		b, err := c.ListKeys(ctx, group, "stconf002", nil)
		if err != nil {
			return err
		}
		if len(a.Keys) != 2 || len(b.Keys) != 2 {
			return fmt.Errorf("got %d and %d keys", len(a.Keys), len(b.Keys))
		}
		k1, k2, k3 := deref(a.Keys[0].Value), deref(a.Keys[1].Value), deref(b.Keys[0].Value)
		return expect(k1 != "" && k1 != k2 && k1 != k3, "keys not distinct: %q %q %q", k1, k2, k3)
	})
	r.check("storage.ListKeys is deterministic", func() error {
		a, err := c.ListKeys(ctx, group, "stconf001", nil)
		if err != nil {
			return err
		}
		b, err := c.ListKeys(ctx, group, "stconf001", nil)
		if err != nil {
			return err
		}
		return expect(deref(a.Keys[0].Value) == deref(b.Keys[0].Value), "key changed between calls")
	})
	r.check("storage.ListAccountSAS returns a token", func() error {
		res, err := c.ListAccountSAS(ctx, group, "stconf001", armstorage.AccountSasParameters{
			Permissions: to.Ptr(armstorage.PermissionsR), ResourceTypes: to.Ptr(armstorage.SignedResourceTypesS),
			Services: to.Ptr(armstorage.ServicesB), SharedAccessExpiryTime: to.Ptr(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)),
		}, nil)
		if err != nil {
			return err
		}
		return expect(strings.Contains(deref(res.AccountSasToken), "sig="), "token %q", deref(res.AccountSasToken))
	})
	r.check("storage.CheckNameAvailability taken name", func() error {
		res, err := c.CheckNameAvailability(ctx, armstorage.AccountCheckNameAvailabilityParameters{Name: to.Ptr("stconf001"), Type: to.Ptr("Microsoft.Storage/storageAccounts")}, nil)
		if err != nil {
			return err
		}
		return expect(!deref(res.NameAvailable) && deref(res.Reason) == armstorage.ReasonAlreadyExists, "available=%v reason=%v", deref(res.NameAvailable), deref(res.Reason))
	})
	r.check("storage.CheckNameAvailability free name", func() error {
		res, err := c.CheckNameAvailability(ctx, armstorage.AccountCheckNameAvailabilityParameters{Name: to.Ptr("stconffree99"), Type: to.Ptr("Microsoft.Storage/storageAccounts")}, nil)
		if err != nil {
			return err
		}
		return expect(deref(res.NameAvailable), "a free name reported taken")
	})
	r.check("storage.CheckNameAvailability invalid name", func() error {
		res, err := c.CheckNameAvailability(ctx, armstorage.AccountCheckNameAvailabilityParameters{Name: to.Ptr("Not_Valid"), Type: to.Ptr("Microsoft.Storage/storageAccounts")}, nil)
		if err != nil {
			return err
		}
		return expect(!deref(res.NameAvailable) && deref(res.Reason) == armstorage.ReasonAccountNameInvalid, "available=%v reason=%v", deref(res.NameAvailable), deref(res.Reason))
	})
	r.check("storage.Update (PATCH) replaces the tag set", func() error {
		_, err := c.Update(ctx, group, "stconf001", armstorage.AccountUpdateParameters{Tags: map[string]*string{"c": to.Ptr("3")}}, nil)
		if err != nil {
			return err
		}
		res, err := c.GetProperties(ctx, group, "stconf001", nil)
		if err != nil {
			return err
		}
		return expect(len(res.Tags) == 1 && deref(res.Tags["c"]) == "3", "tags %v", keys(res.Tags))
	})
	r.check("storage blobServices/default exists (implicit child)", func() error {
		bs, _ := armstorage.NewBlobServicesClient(e.sub, e.cred, e.opts)
		res, err := bs.GetServiceProperties(ctx, group, "stconf001", nil)
		if err != nil {
			return err
		}
		return expect(deref(res.Name) == "default", "name %q", deref(res.Name))
	})
	r.check("storage fileServices/default exists (implicit child)", func() error {
		fs, _ := armstorage.NewFileServicesClient(e.sub, e.cred, e.opts)
		res, err := fs.GetServiceProperties(ctx, group, "stconf001", nil)
		if err != nil {
			return err
		}
		return expect(deref(res.Name) == "default", "name %q", deref(res.Name))
	})
	r.check("storage blob container create and get", func() error {
		bc, _ := armstorage.NewBlobContainersClient(e.sub, e.cred, e.opts)
		if _, err := bc.Create(ctx, group, "stconf001", "data", armstorage.BlobContainer{}, nil); err != nil {
			return err
		}
		_, err := bc.Get(ctx, group, "stconf001", "data", nil)
		return err
	})
	r.check("storage pager lists both accounts", func() error {
		n, err := countAll(ctx, c.NewListByResourceGroupPager(group, nil))
		if err != nil {
			return err
		}
		return expect(n == 2, "listed %d accounts, want 2", n)
	})
	r.check("storage.Create with an invalid name is 400", func() error {
		p, err := c.BeginCreate(ctx, group, "Bad_Name", storageV2(nil), nil)
		if err == nil {
			_, err = p.PollUntilDone(ctx, e.poll())
		}
		return wantError(err, 400, "AccountNameInvalid")
	})
	r.check("storage.Delete then GetProperties is 404", func() error {
		if _, err := c.Delete(ctx, group, "stconf002", nil); err != nil {
			return err
		}
		_, err := c.GetProperties(ctx, group, "stconf002", nil)
		return wantError(err, 404, "ResourceNotFound")
	})
}

func keys[T any](m map[string]T) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func network(ctx context.Context, e *env, r *runner) {
	nsgs, _ := armnetwork.NewSecurityGroupsClient(e.sub, e.cred, e.opts)
	rules, _ := armnetwork.NewSecurityRulesClient(e.sub, e.cred, e.opts)
	vnets, _ := armnetwork.NewVirtualNetworksClient(e.sub, e.cred, e.opts)
	subnets, _ := armnetwork.NewSubnetsClient(e.sub, e.cred, e.opts)
	nics, _ := armnetwork.NewInterfacesClient(e.sub, e.cred, e.opts)
	pips, _ := armnetwork.NewPublicIPAddressesClient(e.sub, e.cred, e.opts)
	var nsgID string
	r.check("network NSG create with an inline rule", func() error {
		p, err := nsgs.BeginCreateOrUpdate(ctx, group, "nsg-conf", armnetwork.SecurityGroup{Location: to.Ptr(location),
			Properties: &armnetwork.SecurityGroupPropertiesFormat{SecurityRules: []*armnetwork.SecurityRule{{
				Name: to.Ptr("allow-https"),
				Properties: &armnetwork.SecurityRulePropertiesFormat{Priority: to.Ptr[int32](100), Direction: to.Ptr(armnetwork.SecurityRuleDirectionInbound),
					Access: to.Ptr(armnetwork.SecurityRuleAccessAllow), Protocol: to.Ptr(armnetwork.SecurityRuleProtocolTCP),
					SourceAddressPrefix: to.Ptr("*"), SourcePortRange: to.Ptr("*"), DestinationAddressPrefix: to.Ptr("*"), DestinationPortRange: to.Ptr("443")},
			}}}}, nil)
		if err != nil {
			return err
		}
		res, err := p.PollUntilDone(ctx, e.poll())
		if err != nil {
			return err
		}
		nsgID = deref(res.ID)
		return nil
	})
	r.check("network NSG has the six default rules", func() error {
		res, err := nsgs.Get(ctx, group, "nsg-conf", nil)
		if err != nil {
			return err
		}
		return expect(res.Properties != nil && len(res.Properties.DefaultSecurityRules) == 6, "default rules: %d", len(res.Properties.DefaultSecurityRules))
	})
	r.check("network SecurityRules.Get finds the inline rule", func() error {
		res, err := rules.Get(ctx, group, "nsg-conf", "allow-https", nil)
		if err != nil {
			return err
		}
		return expect(strings.HasSuffix(deref(res.ID), "/securityRules/allow-https"), "id %q", deref(res.ID))
	})
	r.check("network vnet create with inline subnets", func() error {
		p, err := vnets.BeginCreateOrUpdate(ctx, group, "vnet-conf", armnetwork.VirtualNetwork{Location: to.Ptr(location),
			Properties: &armnetwork.VirtualNetworkPropertiesFormat{
				AddressSpace: &armnetwork.AddressSpace{AddressPrefixes: []*string{to.Ptr("10.40.0.0/16")}},
				Subnets: []*armnetwork.Subnet{
					{Name: to.Ptr("app"), Properties: &armnetwork.SubnetPropertiesFormat{AddressPrefix: to.Ptr("10.40.1.0/24"), NetworkSecurityGroup: &armnetwork.SecurityGroup{ID: to.Ptr(nsgID)}}},
					{Name: to.Ptr("data"), Properties: &armnetwork.SubnetPropertiesFormat{AddressPrefix: to.Ptr("10.40.2.0/24")}},
				},
			}}, nil)
		if err != nil {
			return err
		}
		res, err := p.PollUntilDone(ctx, e.poll())
		if err != nil {
			return err
		}
		if len(res.Properties.Subnets) != 2 {
			return fmt.Errorf("%d subnets", len(res.Properties.Subnets))
		}
		id := deref(res.Properties.Subnets[0].ID)
		return expect(strings.HasSuffix(strings.ToLower(id), "/virtualnetworks/vnet-conf/subnets/"+strings.ToLower(deref(res.Properties.Subnets[0].Name))), "subnet id %q", id)
	})
	r.check("network Subnets.Get finds an inline subnet", func() error {
		res, err := subnets.Get(ctx, group, "vnet-conf", "data", nil)
		if err != nil {
			return err
		}
		return expect(deref(res.Properties.AddressPrefix) == "10.40.2.0/24", "prefix %q", deref(res.Properties.AddressPrefix))
	})
	r.check("network Subnets pager lists inline subnets", func() error {
		n, err := countAll(ctx, subnets.NewListPager(group, "vnet-conf", nil))
		if err != nil {
			return err
		}
		return expect(n == 2, "%d subnets", n)
	})
	r.check("network subnet created alone appears in the vnet", func() error {
		p, err := subnets.BeginCreateOrUpdate(ctx, group, "vnet-conf", "extra", armnetwork.Subnet{Properties: &armnetwork.SubnetPropertiesFormat{AddressPrefix: to.Ptr("10.40.3.0/24")}}, nil)
		if err := settle(ctx, e, p, err); err != nil {
			return err
		}
		v, err := vnets.Get(ctx, group, "vnet-conf", nil)
		if err != nil {
			return err
		}
		return expect(len(v.Properties.Subnets) == 3, "vnet shows %d subnets", len(v.Properties.Subnets))
	})
	r.check("network subnet deleted alone leaves the vnet", func() error {
		p, err := subnets.BeginDelete(ctx, group, "vnet-conf", "extra", nil)
		if err := settle(ctx, e, p, err); err != nil {
			return err
		}
		v, err := vnets.Get(ctx, group, "vnet-conf", nil)
		if err != nil {
			return err
		}
		return expect(len(v.Properties.Subnets) == 2, "vnet shows %d subnets", len(v.Properties.Subnets))
	})
	r.check("network NIC on a missing subnet is 400 InvalidResourceReference", func() error {
		_, err := nics.BeginCreateOrUpdate(ctx, group, "nic-bad", armnetwork.Interface{Location: to.Ptr(location),
			Properties: &armnetwork.InterfacePropertiesFormat{IPConfigurations: []*armnetwork.InterfaceIPConfiguration{{
				Name: to.Ptr("ipc"), Properties: &armnetwork.InterfaceIPConfigurationPropertiesFormat{
					Subnet: &armnetwork.Subnet{ID: to.Ptr(e.rg(group) + "/providers/Microsoft.Network/virtualNetworks/vnet-conf/subnets/missing")}},
			}}}}, nil)
		return wantError(err, 400, "InvalidResourceReference")
	})
	r.check("network NIC on an existing subnet", func() error {
		p, err := nics.BeginCreateOrUpdate(ctx, group, "nic-ok", armnetwork.Interface{Location: to.Ptr(location),
			Properties: &armnetwork.InterfacePropertiesFormat{IPConfigurations: []*armnetwork.InterfaceIPConfiguration{{
				Name: to.Ptr("ipc"), Properties: &armnetwork.InterfaceIPConfigurationPropertiesFormat{
					Subnet: &armnetwork.Subnet{ID: to.Ptr(e.rg(group) + "/providers/Microsoft.Network/virtualNetworks/vnet-conf/subnets/app")}},
			}}}}, nil)
		if err != nil {
			return err
		}
		res, err := p.PollUntilDone(ctx, e.poll())
		if err != nil {
			return err
		}
		ip := deref(res.Properties.IPConfigurations[0].Properties.PrivateIPAddress)
		return expect(strings.HasPrefix(ip, "10.40.1.") && ip != "10.40.1.0", "private IP %q is not in the subnet 10.40.1.0/24", ip)
	})
	r.check("network deleting a subnet a NIC uses is 400 InUseSubnetCannotBeDeleted", func() error {
		_, err := subnets.BeginDelete(ctx, group, "vnet-conf", "app", nil)
		return wantError(err, 400, "InUseSubnetCannotBeDeleted")
	})
	r.check("network deleting an NSG a subnet uses is 400 InUseNetworkSecurityGroupCannotBeDeleted", func() error {
		_, err := nsgs.BeginDelete(ctx, group, "nsg-conf", nil)
		return wantError(err, 400, "InUseNetworkSecurityGroupCannotBeDeleted")
	})
	ips := map[string]bool{}
	for _, name := range []string{"pip-a", "pip-b"} {
		r.check("network public IP "+name+" gets its own address", func() error {
			p, err := pips.BeginCreateOrUpdate(ctx, group, name, armnetwork.PublicIPAddress{Location: to.Ptr(location),
				SKU:        &armnetwork.PublicIPAddressSKU{Name: to.Ptr(armnetwork.PublicIPAddressSKUNameStandard)},
				Properties: &armnetwork.PublicIPAddressPropertiesFormat{PublicIPAllocationMethod: to.Ptr(armnetwork.IPAllocationMethodStatic)}}, nil)
			if err != nil {
				return err
			}
			res, err := p.PollUntilDone(ctx, e.poll())
			if err != nil {
				return err
			}
			ip := deref(res.Properties.IPAddress)
			if ip == "" || ips[ip] {
				return fmt.Errorf("address %q is empty or shared", ip)
			}
			ips[ip] = true
			return nil
		})
	}
	r.check("network concurrent sibling subnet writes: one gets 409 AnotherOperationInProgress", func() error {
		p1, err := subnets.BeginCreateOrUpdate(ctx, group, "vnet-conf", "s1", armnetwork.Subnet{Properties: &armnetwork.SubnetPropertiesFormat{AddressPrefix: to.Ptr("10.40.10.0/24")}}, nil)
		if err != nil {
			return err
		}
		_, err2 := subnets.BeginCreateOrUpdate(ctx, group, "vnet-conf", "s2", armnetwork.Subnet{Properties: &armnetwork.SubnetPropertiesFormat{AddressPrefix: to.Ptr("10.40.11.0/24")}}, nil)
		if _, err := p1.PollUntilDone(ctx, e.poll()); err != nil {
			return err
		}
		return wantError(err2, 409, "AnotherOperationInProgress", "RetryableError")
	})
}

func identities(ctx context.Context, e *env, r *runner) {
	c, _ := armmsi.NewUserAssignedIdentitiesClient(e.sub, e.cred, e.opts)
	seen := map[string]bool{}
	for _, name := range []string{"id-a", "id-b"} {
		r.check("msi identity "+name+" has its own principal and client IDs", func() error {
			res, err := c.CreateOrUpdate(ctx, group, name, armmsi.Identity{Location: to.Ptr(location)}, nil)
			if err != nil {
				return err
			}
			pid, cid := deref(res.Properties.PrincipalID), deref(res.Properties.ClientID)
			if pid == "" || cid == "" || seen[pid] || seen[cid] || pid == cid {
				return fmt.Errorf("principalId %q clientId %q not distinct", pid, cid)
			}
			seen[pid], seen[cid] = true, true
			return nil
		})
	}
	r.check("msi identity Get is stable", func() error {
		a, err := c.Get(ctx, group, "id-a", nil)
		if err != nil {
			return err
		}
		b, err := c.Get(ctx, group, "id-a", nil)
		if err != nil {
			return err
		}
		return expect(deref(a.Properties.PrincipalID) == deref(b.Properties.PrincipalID), "principalId changed")
	})
	r.check("msi identity Update (PATCH) replaces tags", func() error {
		if _, err := c.Update(ctx, group, "id-a", armmsi.IdentityUpdate{Tags: map[string]*string{"x": to.Ptr("1"), "y": to.Ptr("2")}}, nil); err != nil {
			return err
		}
		res, err := c.Update(ctx, group, "id-a", armmsi.IdentityUpdate{Tags: map[string]*string{"z": to.Ptr("3")}}, nil)
		if err != nil {
			return err
		}
		return expect(len(res.Tags) == 1 && deref(res.Tags["z"]) == "3", "tags %v", keys(res.Tags))
	})
}

func keyVault(ctx context.Context, e *env, r *runner) {
	c, _ := armkeyvault.NewVaultsClient(e.sub, e.cred, e.opts)
	r.check("keyvault create", func() error {
		p, err := c.BeginCreateOrUpdate(ctx, group, "kv-conf-001", armkeyvault.VaultCreateOrUpdateParameters{Location: to.Ptr(location),
			Properties: &armkeyvault.VaultProperties{TenantID: to.Ptr("72f988bf-86f1-41af-91ab-2d7cd011db47"),
				SKU: &armkeyvault.SKU{Family: to.Ptr(armkeyvault.SKUFamilyA), Name: to.Ptr(armkeyvault.SKUNameStandard)}, EnableRbacAuthorization: to.Ptr(true)}}, nil)
		if err != nil {
			return err
		}
		res, err := p.PollUntilDone(ctx, e.poll())
		if err != nil {
			return err
		}
		return expect(deref(res.Properties.VaultURI) == "https://kv-conf-001.vault.azure.net/", "vaultUri %q", deref(res.Properties.VaultURI))
	})
	r.check("keyvault CheckNameAvailability taken", func() error {
		res, err := c.CheckNameAvailability(ctx, armkeyvault.VaultCheckNameAvailabilityParameters{Name: to.Ptr("kv-conf-001"), Type: to.Ptr("Microsoft.KeyVault/vaults")}, nil)
		if err != nil {
			return err
		}
		return expect(!deref(res.NameAvailable), "taken name reported available")
	})
	r.check("keyvault CheckNameAvailability free", func() error {
		res, err := c.CheckNameAvailability(ctx, armkeyvault.VaultCheckNameAvailabilityParameters{Name: to.Ptr("kv-conf-free"), Type: to.Ptr("Microsoft.KeyVault/vaults")}, nil)
		if err != nil {
			return err
		}
		return expect(deref(res.NameAvailable), "free name reported taken")
	})
}

func aks(ctx context.Context, e *env, r *runner) {
	c, _ := armcontainerservice.NewManagedClustersClient(e.sub, e.cred, e.opts)
	pools, _ := armcontainerservice.NewAgentPoolsClient(e.sub, e.cred, e.opts)
	var fqdn string
	r.check("aks create with an agent pool profile", func() error {
		p, err := c.BeginCreateOrUpdate(ctx, group, "aks-conf", armcontainerservice.ManagedCluster{Location: to.Ptr(location),
			Identity: &armcontainerservice.ManagedClusterIdentity{Type: to.Ptr(armcontainerservice.ResourceIdentityTypeSystemAssigned)},
			Properties: &armcontainerservice.ManagedClusterProperties{DNSPrefix: to.Ptr("aksconf"),
				AgentPoolProfiles: []*armcontainerservice.ManagedClusterAgentPoolProfile{{
					Name: to.Ptr("system"), Count: to.Ptr[int32](1), VMSize: to.Ptr("Standard_D2s_v5"), Mode: to.Ptr(armcontainerservice.AgentPoolModeSystem)}}}}, nil)
		if err != nil {
			return err
		}
		res, err := p.PollUntilDone(ctx, e.poll())
		if err != nil {
			return err
		}
		fqdn = deref(res.Properties.Fqdn)
		if !strings.HasPrefix(fqdn, "aksconf-") {
			return fmt.Errorf("fqdn %q is not derived from dnsPrefix", fqdn)
		}
		return expect(res.Identity != nil && deref(res.Identity.PrincipalID) != "", "no system-assigned principalId")
	})
	r.check("aks AgentPools.Get finds the inline pool", func() error {
		res, err := pools.Get(ctx, group, "aks-conf", "system", nil)
		if err != nil {
			return err
		}
		return expect(deref(res.Properties.Count) == 1, "count %d", deref(res.Properties.Count))
	})
	r.check("aks agent pool added alone appears in the cluster", func() error {
		p, err := pools.BeginCreateOrUpdate(ctx, group, "aks-conf", "user1", armcontainerservice.AgentPool{Properties: &armcontainerservice.ManagedClusterAgentPoolProfileProperties{
			Count: to.Ptr[int32](2), VMSize: to.Ptr("Standard_D2s_v5"), Mode: to.Ptr(armcontainerservice.AgentPoolModeUser)}}, nil)
		if err != nil {
			return err
		}
		if _, err := p.PollUntilDone(ctx, e.poll()); err != nil {
			return err
		}
		res, err := c.Get(ctx, group, "aks-conf", nil)
		if err != nil {
			return err
		}
		return expect(len(res.Properties.AgentPoolProfiles) == 2, "%d pools in the cluster", len(res.Properties.AgentPoolProfiles))
	})
	r.check("aks ListClusterUserCredentials returns a kubeconfig for the cluster", func() error {
		res, err := c.ListClusterUserCredentials(ctx, group, "aks-conf", nil)
		if err != nil {
			return err
		}
		if len(res.Kubeconfigs) == 0 {
			return fmt.Errorf("no kubeconfigs")
		}
		cfg := string(res.Kubeconfigs[0].Value)
		if dec, err := base64.StdEncoding.DecodeString(cfg); err == nil {
			cfg = string(dec)
		}
		return expect(strings.Contains(cfg, fqdn) && strings.Contains(cfg, "apiVersion: v1"), "kubeconfig does not name %q", fqdn)
	})
	r.check("aks admin and user credentials differ", func() error {
		u, err := c.ListClusterUserCredentials(ctx, group, "aks-conf", nil)
		if err != nil {
			return err
		}
		a, err := c.ListClusterAdminCredentials(ctx, group, "aks-conf", nil)
		if err != nil {
			return err
		}
		return expect(len(a.Kubeconfigs) > 0 && string(a.Kubeconfigs[0].Value) != string(u.Kubeconfigs[0].Value), "same credentials")
	})
}

func roleAssignments(ctx context.Context, e *env, r *runner) {
	c, _ := armauthorization.NewRoleAssignmentsClient(e.sub, e.cred, e.opts)
	scope := e.rg(group) + "/providers/Microsoft.Storage/storageAccounts/stconf001"
	name := "3f0c8a3e-6d4b-4f7e-9a52-1c2b7d9e0a22"
	role := "/subscriptions/" + e.sub + "/providers/Microsoft.Authorization/roleDefinitions/ba92f5b4-2d11-453d-a403-e96b0029c9fe"
	r.check("role assignment create on a storage account", func() error {
		_, err := c.Create(ctx, scope, name, armauthorization.RoleAssignmentCreateParameters{Properties: &armauthorization.RoleAssignmentProperties{
			PrincipalID: to.Ptr("5b1a7c9e-2f44-4d0b-8e61-0c7f3a9d2b58"), RoleDefinitionID: to.Ptr(role), PrincipalType: to.Ptr(armauthorization.PrincipalTypeGroup)}}, nil)
		return err
	})
	r.check("role assignment get", func() error {
		res, err := c.Get(ctx, scope, name, nil)
		if err != nil {
			return err
		}
		return expect(strings.EqualFold(deref(res.Properties.RoleDefinitionID), role), "roleDefinitionId %q", deref(res.Properties.RoleDefinitionID))
	})
	// The client sends $filter as given, so callers escape it themselves.
	r.check("role assignment list at scope with $filter assignedTo", func() error {
		n, err := countAll(ctx, c.NewListForScopePager(scope, &armauthorization.RoleAssignmentsClientListForScopeOptions{Filter: to.Ptr(url.PathEscape("atScope() and assignedTo('5b1a7c9e-2f44-4d0b-8e61-0c7f3a9d2b58')"))}))
		if err != nil {
			return err
		}
		return expect(n == 1, "%d assignments", n)
	})
	r.check("role assignment with a non-GUID name is 400", func() error {
		_, err := c.Create(ctx, scope, "not-a-guid", armauthorization.RoleAssignmentCreateParameters{Properties: &armauthorization.RoleAssignmentProperties{
			PrincipalID: to.Ptr("5b1a7c9e-2f44-4d0b-8e61-0c7f3a9d2b58"), RoleDefinitionID: to.Ptr(role)}}, nil)
		return wantError(err, 400, "InvalidRoleAssignmentId")
	})
	r.check("role assignment delete", func() error {
		_, err := c.Delete(ctx, scope, name, nil)
		return err
	})
}
