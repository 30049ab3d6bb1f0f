package schema

// What providers refuse that their specs leave open: members they do not
// know, and names other than a singleton's.

import "strings"

// RefusesUnknownMembers reports whether the provider of typ refuses a
// request body member its model does not know, instead of ignoring it as
// most providers do. The Network provider reads requests strictly: 400
// InvalidRequestFormat "Cannot parse the request." with an InvalidJson
// detail "Could not find member '…' on object of type '…'" (a full
// response body in Azure/azure-powershell issue 13544; a public IP's
// 'Sku' under properties in microsoft/sql-server-samples pull request
// 1294). The families other providers serve under Microsoft.Network (DNS,
// private DNS, Traffic Manager, Front Door, DNS resolver) have no such
// evidence and are left out.
func RefusesUnknownMembers(typ string) bool {
	ns, rest, _ := strings.Cut(strings.ToLower(typ), "/")
	if ns != "microsoft.network" {
		return false
	}
	first, _, _ := strings.Cut(rest, "/")
	switch first {
	case "dnszones", "privatednszones", "trafficmanagerprofiles", "frontdoors",
		"frontdoorwebapplicationfirewallpolicies", "dnsresolvers", "dnsforwardingrulesets",
		"dnsresolverpolicies", "dnssecuritypolicies", "dnsresolverdomainlists":
		return false
	}
	return true
}

// FixedNames lists the only names the type takes, nil when any name goes:
// a closed enum on the resource's name (blobServices, fileServices,
// queueServices and tableServices are "default", a SQL server's
// automaticTuning "current", Key Vault accessPolicies add|replace|remove),
// and in Microsoft.Storage a one-value "default" enum the spec leaves open
// (managementPolicies, inventoryPolicies, accountMigrations): the Storage
// provider routes no other name (Azure/bicep issue 17199:
// managementPolicies/notDefault is "The request url … is not found.").
func (t *Type) FixedNames() []string {
	if t == nil {
		return nil
	}
	p := t.Properties["name"]
	if p == nil || len(p.Enum) == 0 {
		return nil
	}
	if p.EnumClosed {
		return p.Enum
	}
	if ns, _, _ := strings.Cut(t.Name, "/"); strings.EqualFold(ns, "Microsoft.Storage") && len(p.Enum) == 1 && strings.EqualFold(p.Enum[0], "default") {
		return p.Enum
	}
	return nil
}
