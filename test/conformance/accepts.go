package main

import (
	"context"
	"net/http"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v6"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"
)

// accepts: what ARM accepts must not be refused.
//   - api-versions ARM serves that a type's spec lacks: the official SFTP
//     quickstart template (azure-quickstart-templates, storage-sftp) writes
//     storageAccounts/localUsers@2021-04-01; ARM served it.
//   - References to a load balancer's inline parts (inboundNatPools) from a
//     scale set: the documented VMSS-behind-a-load-balancer templates
//     (Microsoft Learn "Networking for Virtual Machine Scale Sets").
//   - A "hidden-link:/subscriptions/…" tag on an App Insights web test: the
//     recorded round trip of test_appinsights_webtest_crud
//     (Azure/azure-cli-extensions recordings) stores one.
//   - An App Insights component without kind (2020-02-02-preview), as
//     public templates deploy it.
//   - A Log Analytics workspace's listKeys answers primarySharedKey, as the
//     templates that call listKeys(workspace) read it.
func accepts(ctx context.Context, e *env, r *runner) {
	ai := e.rg(group) + "/providers/Microsoft.Insights/components/ai-conf"
	r.check("accepts: an App Insights component without kind", func() error {
		return e.put(ctx, ai, "2020-02-02-preview", `{"location":"westeurope","properties":{"Application_Type":"web"}}`)
	})
	r.check("accepts: a web test with a hidden-link tag (test_appinsights_webtest_crud)", func() error {
		wt := e.rg(group) + "/providers/Microsoft.Insights/webtests/wt-conf"
		tag := "hidden-link:" + ai
		if err := e.put(ctx, wt, "2022-06-15", `{"location":"westeurope","kind":"ping","tags":{"`+tag+`":"Resource"},"properties":{"SyntheticMonitorId":"wt-conf","Name":"wt-conf","Locations":[{"Id":"us-fl-mia-edge"}]}}`); err != nil {
			return err
		}
		b, err := e.getOK(ctx, wt, "2022-06-15")
		if err != nil {
			return err
		}
		tags, _ := b["tags"].(map[string]any)
		return expect(tags[tag] == "Resource", "tags %v", tags)
	})
	r.check("accepts: a workspace's listKeys answers primarySharedKey", func() error {
		ws := e.rg(group) + "/providers/Microsoft.OperationalInsights/workspaces/law-conf"
		if err := e.put(ctx, ws, "2022-10-01", `{"location":"westeurope","properties":{"sku":{"name":"PerGB2018"}}}`); err != nil {
			return err
		}
		b, err := e.postOK(ctx, ws+"/listKeys", "2020-08-01")
		if err != nil {
			return err
		}
		k, _ := b["primarySharedKey"].(string)
		return expect(k != "", "listKeys answered %v", b)
	})
	sa := e.rg(group) + "/providers/Microsoft.Storage/storageAccounts/stconfsftp1"
	r.check("accepts: storageAccounts/localUsers@2021-04-01 (SFTP quickstart)", func() error {
		if err := e.put(ctx, sa, "2021-04-01", `{"location":"westeurope","kind":"StorageV2","sku":{"name":"Standard_LRS"},"properties":{"isHnsEnabled":true,"isSftpEnabled":true}}`); err != nil {
			return err
		}
		return e.put(ctx, sa+"/localUsers/sftpuser", "2021-04-01", `{"properties":{"hasSshPassword":true,"homeDirectory":"data"}}`)
	})
	providers, _ := armresources.NewProvidersClient(e.sub, e.cred, e.opts)
	r.check("accepts: the providers API lists localUsers@2021-04-01 (a version ARM served)", func() error {
		res, err := providers.Get(ctx, "Microsoft.Storage", nil)
		if err != nil {
			return err
		}
		for _, rt := range res.ResourceTypes {
			if !strings.EqualFold(deref(rt.ResourceType), "storageAccounts/localUsers") {
				continue
			}
			for _, v := range rt.APIVersions {
				if deref(v) == "2021-04-01" {
					return nil
				}
			}
			return expect(false, "versions lack 2021-04-01")
		}
		return expect(false, "no storageAccounts/localUsers")
	})
	lbs, _ := armnetwork.NewLoadBalancersClient(e.sub, e.cred, e.opts)
	lb := e.rg(group) + "/providers/Microsoft.Network/loadBalancers/lb-conf"
	r.check("accepts: a scale set may reference a load balancer's inboundNatPools and backendAddressPools", func() error {
		p, err := lbs.BeginCreateOrUpdate(ctx, group, "lb-conf", armnetwork.LoadBalancer{Location: to.Ptr(location),
			SKU: &armnetwork.LoadBalancerSKU{Name: to.Ptr(armnetwork.LoadBalancerSKUNameStandard)},
			Properties: &armnetwork.LoadBalancerPropertiesFormat{
				FrontendIPConfigurations: []*armnetwork.FrontendIPConfiguration{{Name: to.Ptr("fe"), Properties: &armnetwork.FrontendIPConfigurationPropertiesFormat{
					PrivateIPAllocationMethod: to.Ptr(armnetwork.IPAllocationMethodDynamic),
					Subnet:                    &armnetwork.Subnet{ID: to.Ptr(e.rg(group) + "/providers/Microsoft.Network/virtualNetworks/vnet-conf/subnets/data")}}}},
				BackendAddressPools: []*armnetwork.BackendAddressPool{{Name: to.Ptr("be")}},
				InboundNatPools: []*armnetwork.InboundNatPool{{Name: to.Ptr("ssh"), Properties: &armnetwork.InboundNatPoolPropertiesFormat{
					FrontendIPConfiguration: &armnetwork.SubResource{ID: to.Ptr(lb + "/frontendIPConfigurations/fe")},
					Protocol:                to.Ptr(armnetwork.TransportProtocolTCP), FrontendPortRangeStart: to.Ptr[int32](50000),
					FrontendPortRangeEnd: to.Ptr[int32](50100), BackendPort: to.Ptr[int32](22)}}},
			}}, nil)
		if err := settle(ctx, e, p, err); err != nil {
			return err
		}
		return e.put(ctx, e.rg(group)+"/providers/Microsoft.Compute/virtualMachineScaleSets/vmss-conf", "2024-03-01",
			`{"location":"westeurope","sku":{"name":"Standard_B1s","capacity":1},"properties":{"virtualMachineProfile":{"networkProfile":{"networkInterfaceConfigurations":[{"name":"nic","properties":{"primary":true,"ipConfigurations":[{"name":"ip","properties":{"subnet":{"id":"`+e.rg(group)+`/providers/Microsoft.Network/virtualNetworks/vnet-conf/subnets/data"},"loadBalancerBackendAddressPools":[{"id":"`+lb+`/backendAddressPools/be"}],"loadBalancerInboundNatPools":[{"id":"`+lb+`/inboundNatPools/ssh"}]}}]}}]}}}}`)
	})
	r.check("accepts: a reference to a missing inline part is still 400 InvalidResourceReference", func() error {
		res, b, err := e.rawDo(ctx, http.MethodPut, e.rg(group)+"/providers/Microsoft.Compute/virtualMachineScaleSets/vmss-conf2?api-version=2024-03-01",
			`{"location":"westeurope","sku":{"name":"Standard_B1s","capacity":1},"properties":{"virtualMachineProfile":{"networkProfile":{"networkInterfaceConfigurations":[{"name":"nic","properties":{"primary":true,"ipConfigurations":[{"name":"ip","properties":{"loadBalancerInboundNatPools":[{"id":"`+lb+`/inboundNatPools/absent"}]}}]}}]}}}}`)
		if err != nil {
			return err
		}
		return expect(res.StatusCode == 400 && errorCode(b) == "InvalidResourceReference", "%d %s", res.StatusCode, errorCode(b))
	})
}
