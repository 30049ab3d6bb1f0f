package main

import (
	"context"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v6"
)

// refusals: what ARM's providers convert or refuse, so that what passes
// against the emulator also passes against Azure.
//   - A quoted number for an integer is read as the number (the provider's
//     JSON reader converts it), and the SDK's typed model reads it back.
//   - A singleton child of a storage account takes only the name
//     "default": Storage answers another 404 HttpResourceNotFound
//     (pulumi-azure-native issue 4022, Azure/bicep issue 17199).
//   - The Network provider refuses a member it does not know with 400
//     InvalidRequestFormat (Azure/azure-powershell issue 13544).
func refusals(ctx context.Context, e *env, r *runner) {
	nsg := e.rg(group) + "/providers/Microsoft.Network/networkSecurityGroups/nsg-conf-quoted"
	nsgs, _ := armnetwork.NewSecurityGroupsClient(e.sub, e.cred, e.opts)
	r.check("refusals: a quoted security rule priority is answered as a number", func() error {
		if err := e.put(ctx, nsg, "2023-09-01", `{"location":"westeurope","properties":{"securityRules":[{"name":"https","properties":{"priority":"100","direction":"Inbound","access":"Allow","protocol":"Tcp","sourceAddressPrefix":"*","sourcePortRange":"*","destinationAddressPrefix":"*","destinationPortRange":443}}]}}`); err != nil {
			return err
		}
		res, err := nsgs.Get(ctx, group, "nsg-conf-quoted", nil)
		if err != nil {
			return err // the SDK's model cannot read a string priority
		}
		rules := res.Properties.SecurityRules
		if len(rules) != 1 || rules[0].Properties.Priority == nil || rules[0].Properties.DestinationPortRange == nil {
			return expect(false, "rules %v", rules)
		}
		p := rules[0].Properties
		return expect(*p.Priority == 100 && *p.DestinationPortRange == "443", "priority %d, port %q", *p.Priority, *p.DestinationPortRange)
	})
	sa := e.rg(group) + "/providers/Microsoft.Storage/storageAccounts/stconfsftp1"
	r.check("refusals: blobServices named other than default is 404 HttpResourceNotFound", func() error {
		res, b, err := e.rawDo(ctx, http.MethodPut, sa+"/blobServices/default-prod?api-version=2023-05-01", `{"properties":{}}`)
		if err != nil {
			return err
		}
		return expect(res.StatusCode == 404 && errorCode(b) == "HttpResourceNotFound", "%d %s", res.StatusCode, errorCode(b))
	})
	r.check("refusals: a Network PUT with a member the provider does not know is 400 InvalidRequestFormat", func() error {
		res, b, err := e.rawDo(ctx, http.MethodPut, e.rg(group)+"/providers/Microsoft.Network/routeTables/rt-conf-unknown?api-version=2023-09-01",
			`{"location":"westeurope","properties":{"disableBgpRoutePropagation":true,"notAMember":1}}`)
		if err != nil {
			return err
		}
		return expect(res.StatusCode == 400 && errorCode(b) == "InvalidRequestFormat", "%d %s", res.StatusCode, errorCode(b))
	})
}
