package scenario

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

// The mixed layout of issue 34: many resource groups, each holding a few
// resources of many types (security groups, public IPs, identities, route
// tables, application security groups, a virtual network, storage
// accounts, NAT gateways, local network gateways, a private DNS zone, a
// Log Analytics workspace): 20 resources of 11 types per group. Lists per
// (group, type) then hold one to three members each, so the read cost
// depends on the planner using subscription-wide lists.

// mixedPerGroup is the resources one group holds (the group itself not
// counted).
const mixedPerGroup = 20

// writeMixed writes groups resource groups of the mixed layout into dir
// and returns the number of resources (groups included).
func writeMixed(t testing.TB, dir, prefix string, groups int) int {
	t.Helper()
	var b strings.Builder
	doc := func(name, typ, rg, body string) {
		fmt.Fprintf(&b, "---\napiVersion: azure.kubectl.io/v1alpha1\nkind: Resource\nmetadata:\n  name: %s\nspec:\n  type: %s\n", name, typ)
		if rg != "" {
			fmt.Fprintf(&b, "  resourceGroup: %s\n", rg)
		}
		fmt.Fprintf(&b, "  body:\n%s", body)
	}
	loc := "    location: westeurope\n"
	tags := func(g, i int) string {
		return fmt.Sprintf("    tags: {env: bench, group: \"%d\", index: \"%d\"}\n", g, i)
	}
	n := 0
	for g := range groups {
		rg := fmt.Sprintf("rg-%s-%03d", prefix, g)
		doc(rg, "Microsoft.Resources/resourceGroups@2021-04-01", "", loc)
		n++
		i := 0
		add := func(name, typ, body string) {
			doc(name, typ, rg, body+tags(g, i))
			i++
			n++
		}
		for k := range 2 {
			add(fmt.Sprintf("nsg-%d", k), "Microsoft.Network/networkSecurityGroups@2023-09-01", loc)
			add(fmt.Sprintf("pip-%d", k), "Microsoft.Network/publicIPAddresses@2023-09-01",
				loc+"    sku: {name: Standard}\n    properties: {publicIPAllocationMethod: Static}\n")
			add(fmt.Sprintf("rt-%d", k), "Microsoft.Network/routeTables@2023-09-01", loc)
			add(fmt.Sprintf("asg-%d", k), "Microsoft.Network/applicationSecurityGroups@2023-09-01", loc)
			add(fmt.Sprintf("st%s%03d%d", strings.ToLower(prefix), g, k), "Microsoft.Storage/storageAccounts@2023-01-01",
				loc+"    kind: StorageV2\n    sku: {name: Standard_LRS}\n")
			add(fmt.Sprintf("nat-%d", k), "Microsoft.Network/natGateways@2023-09-01", loc+"    sku: {name: Standard}\n")
			add(fmt.Sprintf("lgw-%d", k), "Microsoft.Network/localNetworkGateways@2023-09-01",
				loc+fmt.Sprintf("    properties: {gatewayIpAddress: 203.0.113.%d, localNetworkAddressSpace: {addressPrefixes: [10.%d.%d.0/24]}}\n", 1+k, 100+k, g%250))
		}
		for k := range 3 {
			add(fmt.Sprintf("id-%d", k), "Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31", loc)
		}
		add("vnet", "Microsoft.Network/virtualNetworks@2023-09-01",
			loc+fmt.Sprintf("    properties: {addressSpace: {addressPrefixes: [10.%d.0.0/16]}}\n", g%250))
		add(fmt.Sprintf("zone-%s-%03d.internal", prefix, g), "Microsoft.Network/privateDnsZones@2020-06-01", "    location: global\n")
		add("logs", "Microsoft.OperationalInsights/workspaces@2022-10-01", loc+"    properties: {sku: {name: PerGB2018}}\n")
		if i != mixedPerGroup {
			t.Fatalf("mixed layout: %d resources per group, want %d", i, mixedPerGroup)
		}
	}
	harness.WriteFile(t, filepath.Join(dir, "mixed.yaml"), b.String())
	return n
}

// mixedSteadyState applies the mixed layout against an unthrottled
// emulator, then carries it over to the realistic one.
func mixedSteadyState(b *testing.B, groups int) (a *harness.ARM, dir, state string, n int) {
	b.Helper()
	a, dir, state = startFixture(b)
	n = writeMixed(b, dir, "mx", groups)
	applyFixture(b, a, dir, state, fmt.Sprintf("%d resources in %d groups", n, groups))
	a.Reconfigure(realistic())
	return a, dir, state, n
}

// benchMixedPlan runs a no-change plan of the mixed layout and reports
// its reads (per resource), writes, 429s and wall time. Targets (issue
// 34): 1,000 resources ≤ 25 reads and ≤ 1.5 s; 10,000 ≤ 60 reads.
func benchMixedPlan(b *testing.B, groups int, maxReads int64) {
	bin := cli(b)
	a, dir, state, n := mixedSteadyState(b, groups)
	// The steady state is one whose last apply is older than --cache-lag
	// (5 minutes by default): the benchmark plans with a lag of
	// mixedCacheLag, above the emulator's 2 s, and waits it out.
	time.Sleep(mixedCacheLag)
	for i := 0; i < b.N; i++ {
		if i > 0 {
			time.Sleep(12 * time.Second) // let the read bucket refill
		}
		before := a.Stats()
		b.ResetTimer()
		r := runMeasured(b, bin, append(global(a, state), "diff", "-f", dir, "--cache-lag", mixedCacheLag.String())...)
		wall, rss, out, code := r.wall, r.rssKB, r.out, r.code
		b.StopTimer()
		after := a.Stats()
		if code != 0 {
			b.Fatalf("steady-state diff exited %d (want 0: nothing changed):\n%s", code, tail(out))
		}
		gets := after.Requests["GET"] - before.Requests["GET"]
		b.ReportMetric(float64(gets), "GETs")
		b.ReportMetric(float64(gets)/float64(n), "reads/resource")
		b.ReportMetric(float64(harness.Writes(after)-harness.Writes(before)), "writes")
		b.ReportMetric(float64(after.Throttled-before.Throttled), "429s")
		b.ReportMetric(wall.Seconds(), "wall-s")
		b.ReportMetric(float64(rss)/1024, "peak-MB")
		b.ReportMetric(float64(r.anonKB)/1024, "peak-anon-MB")
		if gets > maxReads {
			b.Logf("%d reads for %d resources: above the target of %d", gets, n, maxReads)
		}
	}
}

// mixedCacheLag is the --cache-lag of the mixed plans: how old their
// state's last write is taken to be enough for ARM's generic list.
const mixedCacheLag = 5 * time.Second

// BenchmarkPlanMixed1000: 50 groups x 20 resources of 11 types (1,050
// with the groups), no change.
func BenchmarkPlanMixed1000(b *testing.B) { benchMixedPlan(b, 50, 25) }

// BenchmarkPlanMixed10000: 500 groups x 20 (10,500 with the groups).
func BenchmarkPlanMixed10000(b *testing.B) { benchMixedPlan(b, 500, 60) }
