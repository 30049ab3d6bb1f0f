package emulator

import (
	"math"
	"net/http"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// Page sizes: how many items one page of a list holds before ARM (or the
// resource provider behind it) adds a nextLink, when the client sends no
// $top. Each figure names its public source; a type with none gets
// defaultPageSize. Options.PageSize (--page-size) overrides all of them
// for tests that need many pages from few resources.
//
// What the evidence does not settle is left at the default rather than
// guessed: Microsoft.Network's other lists (NSGs, virtual networks,
// public IPs, route tables, ASGs, NAT and local network gateways),
// managed identities, role assignments and diagnostic settings mark their
// lists x-ms-pageable with a nextLink but document no size, and no public
// recording found holds a list long enough to show one (Azure PowerShell's
// and the SDKs' network recordings list 1 to 30 items).
const (
	// defaultPageSize is the size the most providers document for lists
	// that state one (the others: policy's 500, support tickets' 25 and
	// 10): "If not specified, returns up to 100" for DNS zones,
	// record sets, private DNS zones, virtual-network links and DNS
	// resolvers (specification/dns, privatedns, dnsresolver $top),
	// notification hubs and Microsoft.Resources/changes ($top default 100).
	defaultPageSize = 100

	// genericListPageSize is the page of ARM's own generic lists,
	// /subscriptions/{id}/resources and .../resourceGroups/{rg}/resources
	// (Resources - List, List By Resource Group): 1,000 items, and $top
	// above 1,000 is refused with InvalidTopInQueryString. Observed by the
	// Azure SDK for JS team against the service (azure-sdk-for-js issue
	// 18535: a full subscription answers 1,000 items a page; $top=1001
	// answers 400 InvalidTopInQueryString) and by ManageIQ's client
	// (azure-armrest PR 231: "capped at 1000 results").
	genericListPageSize = 1000

	// unpagedList marks a list ARM answers whole, in one response with no
	// nextLink.
	unpagedList = math.MaxInt32
)

// pageSizeByType holds the types with evidence of their own page size,
// keyed by lower-cased full type.
var pageSizeByType = map[string]int{
	// "If not specified, returns up to 100 zones / record sets / virtual
	// network links" ($top of the DNS and private DNS list operations,
	// specification/dns and privatedns, stable). Same as the default, but
	// documented, so listed.
	"microsoft.network/dnszones":                                  100,
	"microsoft.network/privatednszones":                           100,
	"microsoft.network/privatednszones/virtualnetworklinks":       100,
	"microsoft.network/dnsresolvers":                              100,
	"microsoft.network/dnsforwardingrulesets":                     100,
	"microsoft.network/dnsforwardingrulesets/forwardingrules":     100,
	"microsoft.network/dnsforwardingrulesets/virtualnetworklinks": 100,
	"microsoft.network/dnsresolvers/inboundendpoints":             100,
	"microsoft.network/dnsresolvers/outboundendpoints":            100,

	// Microsoft.Network's own lists: the one observed figure is 100 (IP
	// groups: the REST list of a subscription with 130 answered 100 and a
	// nextLink, azure-cli-extensions issue 2902). The other Network types
	// get the same 100 as the default, which this observation supports
	// but does not prove.
	"microsoft.network/ipgroups": 100,

	// "When the $top filter is not provided, it will return 500 records"
	// (maximum 1,000): policy assignments, definitions and set definitions
	// (specification/resources, Microsoft.Authorization policy, stable
	// 2023-04-01 and 2024-04-01).
	"microsoft.authorization/policyassignments":    500,
	"microsoft.authorization/policydefinitions":    500,
	"microsoft.authorization/policysetdefinitions": 500,

	// Storage accounts: a subscription of about 120 accounts is normally
	// answered in one page, with a nextLink only now and then
	// (azure-libraries-for-net issue 1193), and one of 2,000+ in several
	// (azure-rest-api-specs issue 14186). The exact size is not public;
	// 100 would contradict the first observation, so the emulator uses
	// the 1,000 of ARM's own generic lists, the one figure in range.
	"microsoft.storage/storageaccounts": 1000,

	// The subscription's resource groups: "If null is passed, returns all
	// resource groups" ($top of Resource Groups - List, specification/
	// resources, every stable version 2016-09-01 to 2024-03-01), and a
	// subscription holds at most 980 of them (Azure subscription and
	// service limits; azure-docs pull request 6924 raised it from 800).
	// $top still pages them (azure-sdk-for-net issue 15715).
	"microsoft.resources/resourcegroups": unpagedList,

	// Log Analytics workspaces: both lists are x-ms-pageable with
	// nextLinkName null and WorkspaceListResult has no nextLink property
	// (specification/operationalinsights, Workspaces.json, every stable
	// version 2020-08-01 to 2023-09-01), so no client generated from the
	// spec could follow a second page: the service answers them whole.
	"microsoft.operationalinsights/workspaces": unpagedList,
}

// maxTopByType is the largest $top a list accepts where the service
// refuses larger ones; larger values answer 400 InvalidTopInQueryString.
var maxTopByType = map[string]int{
	"resources": genericListPageSize, // generic lists (azure-sdk-for-js issue 18535)
	"microsoft.authorization/policyassignments":    1000, // $top maximum in the spec
	"microsoft.authorization/policydefinitions":    1000,
	"microsoft.authorization/policysetdefinitions": 1000,
}

// listKind names the list a request reads for the tables above: "resources"
// for ARM's generic lists, the lower-cased full type for a collection or
// the subscription's resource groups, "" for anything else
// (subscriptions, providers, locations).
func listKind(r *http.Request) string {
	p, ok := armid.ParsePath(r.URL.Path)
	if !ok {
		return ""
	}
	switch p.Kind {
	case armid.PathGroupResources, armid.PathSubscriptionResources:
		return "resources"
	case armid.PathCollection, armid.PathResourceGroups:
		return strings.ToLower(p.Type())
	}
	return ""
}

// pageSize is the page size for the list r reads, and the largest $top it
// accepts (0: no limit).
func (s *Server) pageSize(r *http.Request) (size, maxTop int) {
	k := listKind(r)
	maxTop = maxTopByType[k]
	if s.opts.PageSize > 0 {
		return s.opts.PageSize, maxTop
	}
	switch {
	case k == "resources":
		return genericListPageSize, maxTop
	case pageSizeByType[k] > 0:
		return pageSizeByType[k], maxTop
	}
	return defaultPageSize, maxTop
}
