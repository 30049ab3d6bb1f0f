// Package layout generates the benchmark workloads as plain data, so the
// same resources can be written as kubectl-azure manifests (the scenario
// benchmarks) or as a Terraform configuration of azapi resources (the peer
// comparison in docs/peer-comparison.md). One description, two renderings:
// the comparison stays fair only if both tools see the same resources.
package layout

import (
	"fmt"
	"strings"
)

// Resource is one ARM resource of a layout.
type Resource struct {
	// Name is the ARM name (and the manifest's metadata.name).
	Name string
	// Type is TYPE@API-VERSION, as manifests write it.
	Type string
	// Group is the resource group, "" for a resource group itself.
	Group string
	// Body is the request body: location, tags, sku, kind, properties.
	Body map[string]any
}

// MixedPerGroup is the resources one mixed group holds, the group itself
// not counted.
const MixedPerGroup = 20

// Mixed is the layout issue 34 measures: groups resource groups, each
// holding 20 resources of 11 types (network security groups, public IPs,
// route tables, application security groups, storage accounts, NAT
// gateways, local network gateways, identities, a virtual network, a
// private DNS zone, a Log Analytics workspace). Lists per (group, type)
// hold one to three members, so read costs depend on subscription-wide
// lists. Resource groups come first, then each group's members.
func Mixed(prefix string, groups int) []Resource {
	out := make([]Resource, 0, groups*(MixedPerGroup+1))
	loc := func(extra map[string]any) map[string]any {
		b := map[string]any{"location": "westeurope"}
		for k, v := range extra {
			b[k] = v
		}
		return b
	}
	for g := range groups {
		rg := fmt.Sprintf("rg-%s-%03d", prefix, g)
		out = append(out, Resource{Name: rg, Type: "Microsoft.Resources/resourceGroups@2021-04-01", Body: loc(nil)})
		i := 0
		add := func(name, typ string, body map[string]any) {
			body["tags"] = map[string]any{"env": "bench", "group": fmt.Sprint(g), "index": fmt.Sprint(i)}
			out = append(out, Resource{Name: name, Type: typ, Group: rg, Body: body})
			i++
		}
		for k := range 2 {
			add(fmt.Sprintf("nsg-%d", k), "Microsoft.Network/networkSecurityGroups@2023-09-01", loc(nil))
			add(fmt.Sprintf("pip-%d", k), "Microsoft.Network/publicIPAddresses@2023-09-01", loc(map[string]any{
				"sku":        map[string]any{"name": "Standard"},
				"properties": map[string]any{"publicIPAllocationMethod": "Static"},
			}))
			add(fmt.Sprintf("rt-%d", k), "Microsoft.Network/routeTables@2023-09-01", loc(nil))
			add(fmt.Sprintf("asg-%d", k), "Microsoft.Network/applicationSecurityGroups@2023-09-01", loc(nil))
			add(fmt.Sprintf("st%s%03d%d", strings.ToLower(prefix), g, k), "Microsoft.Storage/storageAccounts@2023-01-01", loc(map[string]any{
				"kind": "StorageV2",
				"sku":  map[string]any{"name": "Standard_LRS"},
			}))
			add(fmt.Sprintf("nat-%d", k), "Microsoft.Network/natGateways@2023-09-01", loc(map[string]any{
				"sku": map[string]any{"name": "Standard"},
			}))
			add(fmt.Sprintf("lgw-%d", k), "Microsoft.Network/localNetworkGateways@2023-09-01", loc(map[string]any{
				"properties": map[string]any{
					"gatewayIpAddress":         fmt.Sprintf("203.0.113.%d", 1+k),
					"localNetworkAddressSpace": map[string]any{"addressPrefixes": []any{fmt.Sprintf("10.%d.%d.0/24", 100+k, g%250)}},
				},
			}))
		}
		for k := range 3 {
			add(fmt.Sprintf("id-%d", k), "Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31", loc(nil))
		}
		add("vnet", "Microsoft.Network/virtualNetworks@2023-09-01", loc(map[string]any{
			"properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{fmt.Sprintf("10.%d.0.0/16", g%250)}}},
		}))
		add(fmt.Sprintf("zone-%s-%03d.internal", prefix, g), "Microsoft.Network/privateDnsZones@2020-06-01", map[string]any{"location": "global"})
		add("logs", "Microsoft.OperationalInsights/workspaces@2022-10-01", loc(map[string]any{
			"properties": map[string]any{"sku": map[string]any{"name": "PerGB2018"}},
		}))
	}
	return out
}
