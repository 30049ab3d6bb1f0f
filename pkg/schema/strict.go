package schema

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
