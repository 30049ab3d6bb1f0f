package schema

// What providers refuse that their specs leave open: members they do not
// know, and names other than a singleton's.

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

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

// RefusesUnknownMember reports whether the provider of typ refuses the
// undeclared member at path (dotted, as Type.Undeclared gives it). ARM's
// front door reads the request envelope itself: ids, names, etag,
// systemData, and location, which it judges for every type. The Network
// provider takes a location where its model has none: public templates
// that deploy today write one on privateEndpoints/privateDnsZoneGroups
// (a child resource without a location). The refusal evidence
// (RefusesUnknownMembers) is about members inside the provider's model.
func RefusesUnknownMember(typ, path string) bool {
	if frontDoorMembers[path] || takenUndeclared[strings.ToLower(typ)][indexless(path)] {
		return false
	}
	return RefusesUnknownMembers(typ)
}

// takenUndeclared are members no api-version's spec declares that the
// Network provider takes all the same: public templates with them deploy
// (Azure/azure-quickstart-templates at ef296f0f, each run by the
// repository's pipeline), so its model knows them. Keys: lower-cased type,
// then the body path without array indexes. Evidence, in order:
// web-app-with-app-gateway-v2 (a probe's backendHttpSettings),
// multi-tier-loadbalancing (a backend pool's requestRoutingRules),
// application-gateway-rewrite (a rewrite rule set's type),
// kemp-loadmaster-ha-pair (an IP configuration's networkSecurityGroup at
// 2015-06-15).
var takenUndeclared = map[string]map[string]bool{
	"microsoft.network/applicationgateways": {
		"properties.probes.properties.backendHttpSettings":              true,
		"properties.backendAddressPools.properties.requestRoutingRules": true,
		"properties.rewriteRuleSets.type":                               true,
	},
	"microsoft.network/networkinterfaces": {
		"properties.ipConfigurations.properties.networkSecurityGroup": true,
	},
}

// indexless is a body path without its array indexes ("a[0].b" → "a.b").
func indexless(path string) string {
	if !strings.Contains(path, "[") {
		return path
	}
	var b strings.Builder
	depth := 0
	for _, c := range path {
		switch {
		case c == '[':
			depth++
		case c == ']':
			depth--
		case depth == 0:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// frontDoorMembers are top-level members ARM reads before the provider.
var frontDoorMembers = map[string]bool{"id": true, "name": true, "type": true, "etag": true, "systemData": true, "location": true}

// RefusesMissing reports whether a create of typ at apiVersion without
// the top-level member is refused, on recorded evidence rather than on the
// spec's required flag alone:
//   - location: ARM itself answers 400 LocationRequired for a tracked
//     resource without one, whatever the provider.
//   - a storage account's sku, and its kind up to api-version 2016-12-01:
//     the Storage provider refused an account without them at 2016-01-01
//     (Azure/azure-quickstart-templates pull request 2332 had to add both
//     for its template to deploy). Public templates that deploy today omit
//     kind at 2021-01-01 and 2021-02-01 (2-vms-loadbalancer-natrules,
//     docker-ckan, vmss-windows-jumpbox …): later versions fill it in.
func RefusesMissing(typ, apiVersion, member string) bool {
	if member == "location" {
		return true
	}
	last, ok := refusedWhenMissing[strings.ToLower(typ)][member]
	return ok && (last == "" || apiVersion <= last)
}

// refusedWhenMissing: type → member → the last api-version refused
// without it ("" for every version).
var refusedWhenMissing = map[string]map[string]string{
	"microsoft.storage/storageaccounts": {"sku": "", "kind": "2016-12-01"},
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

// ARM's own tag limits, the same for every type and api-version (Microsoft
// Learn "Use tags to organize your Azure resources"): at most 50 tags,
// names up to 512 characters, values up to 256. ARM answers 400 otherwise
// (InvalidTags, InvalidTagName, InvalidTagValueLength). The characters the
// same page forbids in names (< > % & \ ? /) are not judged here: ARM
// took "hidden-link:/subscriptions/…" names on Application Insights web
// tests (azure-cli-extensions recordings in testdata/corpus). A number or
// boolean value is converted to its text (azure-cli issue 15946: a value
// the CLI sent as the number 9 was stored as "9"); the schema's type check
// warns about it.
const (
	MaxTags     = 50
	MaxTagName  = 512
	MaxTagValue = 256
)

// tags reports what ARM refuses in a body's tags. Messages never quote a
// value: a tag may hold a secret.
func (v *validator) tags(body map[string]any) {
	raw, ok := body["tags"]
	if !ok || raw == nil {
		return
	}
	tags, ok := raw.(map[string]any)
	if !ok {
		return // the schema's type check reports it
	}
	refuse := func(path []string, format string, args ...any) {
		v.issues = append(v.issues, Issue{Path: JoinPath(path), Severity: Error, Kind: KindLimit, Message: fmt.Sprintf(format, args...) + "; ARM refuses it for every resource type"})
	}
	if len(tags) > MaxTags {
		refuse([]string{"tags"}, "%d tags, at most %d allowed", len(tags), MaxTags)
	}
	names := make([]string, 0, len(tags))
	for k := range tags {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		path := []string{"tags", k}
		switch {
		case strings.TrimSpace(k) == "":
			refuse(path, "an empty tag name")
		case utf8.RuneCountInString(k) > MaxTagName:
			refuse(path, "a tag name of %d characters, at most %d allowed", utf8.RuneCountInString(k), MaxTagName)
		}
		if val, ok := tags[k].(string); ok {
			if n := utf8.RuneCountInString(val); n > MaxTagValue {
				refuse(path, "a tag value of %d characters, at most %d allowed", n, MaxTagValue)
			}
		}
	}
}
