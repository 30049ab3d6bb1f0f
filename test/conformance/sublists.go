package main

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/msi/armmsi"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v6"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"
)

// subscriptionLists checks ARM's subscription-wide list of a type that lives
// in resource groups: GET /subscriptions/{s}/providers/{ns}/{type} returns
// the type's resources in every group of the subscription, full bodies,
// paged with nextLink. Sources: ARM REST "Virtual Networks - List All"
// ("Gets all virtual networks in a subscription") and "User Assigned
// Identities - List By Subscription" (Microsoft Learn REST reference), whose
// SDK pagers are VirtualNetworksClient.NewListAllPager and
// UserAssignedIdentitiesClient.NewListBySubscriptionPager.
func subscriptionLists(ctx context.Context, e *env, r *runner) {
	groups, _ := armresources.NewResourceGroupsClient(e.sub, e.cred, e.opts)
	ids, _ := armmsi.NewUserAssignedIdentitiesClient(e.sub, e.cred, e.opts)
	vnets, _ := armnetwork.NewVirtualNetworksClient(e.sub, e.cred, e.opts)
	const other = "rg-conformance-sublist"
	want := map[string]bool{}
	r.check("subscription list: identities and vnets in two groups", func() error {
		if _, err := groups.CreateOrUpdate(ctx, other, armresources.ResourceGroup{Location: to.Ptr(location)}, nil); err != nil {
			return err
		}
		for i, g := range []string{group, other} {
			name := fmt.Sprintf("id-sublist-%d", i)
			if _, err := ids.CreateOrUpdate(ctx, g, name, armmsi.Identity{Location: to.Ptr(location)}, nil); err != nil {
				return err
			}
			want[strings.ToLower(e.rg(g)+"/providers/Microsoft.ManagedIdentity/userAssignedIdentities/"+name)] = true
			vn := fmt.Sprintf("vnet-sublist-%d", i)
			p, err := vnets.BeginCreateOrUpdate(ctx, g, vn, armnetwork.VirtualNetwork{Location: to.Ptr(location),
				Properties: &armnetwork.VirtualNetworkPropertiesFormat{
					AddressSpace: &armnetwork.AddressSpace{AddressPrefixes: []*string{to.Ptr(fmt.Sprintf("10.9%d.0.0/16", i))}},
				}}, nil)
			if err := settle(ctx, e, p, err); err != nil {
				return err
			}
			want[strings.ToLower(e.rg(g)+"/providers/Microsoft.Network/virtualNetworks/"+vn)] = true
		}
		return nil
	})
	// covers checks that listed (lower-cased ID -> what its body lacks, ""
	// for nothing) holds every item of typ this suite created, each with
	// its full body. Only this suite's own items count: another suite seeds
	// a bare body.
	covers := func(typ string, listed map[string]string) error {
		var miss []string
		for id := range want {
			if !strings.Contains(id, strings.ToLower(typ)) {
				continue
			}
			lacks, ok := listed[id]
			if !ok {
				miss = append(miss, id)
			} else if lacks != "" {
				return fmt.Errorf("%s: list item lacks %s", id, lacks)
			}
		}
		sort.Strings(miss)
		return expect(len(miss) == 0, "the subscription-wide list lacks %v", miss)
	}
	r.check("subscription list: UserAssignedIdentities NewListBySubscriptionPager covers every group, full bodies", func() error {
		items, err := listAll[*armmsi.Identity](ctx, ids.NewListBySubscriptionPager(nil))
		if err != nil {
			return err
		}
		listed := map[string]string{}
		for _, it := range items {
			listed[strings.ToLower(deref(it.ID))] = lacking(it.Properties == nil || deref(it.Properties.PrincipalID) == "", "properties.principalId")
		}
		return covers("/userAssignedIdentities/", listed)
	})
	r.check("subscription list: VirtualNetworks NewListAllPager covers every group, full bodies", func() error {
		items, err := listAll[*armnetwork.VirtualNetwork](ctx, vnets.NewListAllPager(nil))
		if err != nil {
			return err
		}
		listed := map[string]string{}
		for _, it := range items {
			listed[strings.ToLower(deref(it.ID))] = lacking(it.Properties == nil || it.Properties.AddressSpace == nil || len(it.Properties.AddressSpace.AddressPrefixes) == 0, "properties.addressSpace")
		}
		return covers("/virtualNetworks/", listed)
	})
}

// lacking is what when bare holds, else "".
func lacking(bare bool, what string) string {
	if bare {
		return what
	}
	return ""
}
