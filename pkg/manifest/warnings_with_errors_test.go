package manifest

import (
	"strings"
	"testing"
)

// TestWarningsKeptWithErrors: a misspelt property (a warning) in one
// document is still reported when another document has an error, so CI
// sees every problem in one run.
func TestWarningsKeptWithErrors(t *testing.T) {
	o := docs(
		doc(rgDocT, rgType, "", "{location: westeurope}"),
		doc("st1", "Microsoft.Storage/storageAccounts@2023-05-01", "resourceGroup: rg-demo",
			"{location: westeurope, sku: {name: Standard_LRS}, kind: StorageV2, properties: {minimumTlsVersoin: TLS1_2}}"),
		doc("bad", "Microsoft.Storage/storageAccounts@2023-5-1", "resourceGroup: rg-demo", "{location: westeurope}"),
	)
	ve := loadErr(t, o)
	var errs, warns int
	for _, p := range ve.Problems {
		switch p.Severity {
		case SeverityError:
			errs++
		case SeverityWarning:
			warns++
			if !strings.Contains(p.Message, "minimumTlsVersion") || p.Line == 0 {
				t.Errorf("warning = %+v, want a did-you-mean for minimumTlsVersion with a line", p)
			}
		}
	}
	if errs != 1 || warns != 1 {
		t.Fatalf("errors=%d warnings=%d, want 1 and 1: %v", errs, warns, ve.Problems)
	}
	if !strings.Contains(ve.Error(), "warning: ") {
		t.Errorf("Error() does not mark the warning: %s", ve.Error())
	}
}

// TestLiteralIDCycleGivesWay: two vnets peered both ways, one through
// ${ref:...} and one by its ID written out, load with one edge and a
// warning on the literal; two ${ref:...} both ways stay a cycle error.
func TestLiteralIDCycleGivesWay(t *testing.T) {
	vnet := "Microsoft.Network/virtualNetworks@2024-05-01"
	peer := func(to string) string {
		return "{location: westeurope, properties: {addressSpace: {addressPrefixes: [10.0.0.0/16]}, virtualNetworkPeerings: [{name: p, properties: {remoteVirtualNetwork: {id: '" + to + "'}}}]}}"
	}
	aID := "/subscriptions/${subscriptionId}/resourceGroups/rg-demo/providers/Microsoft.Network/virtualNetworks/a"
	s := load(t, docs(
		doc(rgDocT, rgType, "", "{location: westeurope}"),
		doc("a", vnet, "resourceGroup: rg-demo", peer("${ref:b}")),
		doc("b", vnet, "resourceGroup: rg-demo", peer(aID)),
	))
	a, b := byName(t, s, "a"), byName(t, s, "b")
	if !strings.Contains(strings.Join(a.DependsOn, ","), "/virtualNetworks/b") {
		t.Errorf("a must depend on b: %v", a.DependsOn)
	}
	if strings.Contains(strings.Join(b.DependsOn, ","), "/virtualNetworks/a") {
		t.Errorf("b's literal ID of a closes the cycle and must give way: %v", b.DependsOn)
	}
	warned := false
	for _, f := range s.Findings {
		warned = warned || strings.Contains(f.Message, "would close a dependency cycle")
	}
	if !warned {
		t.Errorf("no warning about the broken cycle: %v", s.Findings)
	}
	ve := loadErr(t, docs(
		doc(rgDocT, rgType, "", "{location: westeurope}"),
		doc("a", vnet, "resourceGroup: rg-demo", peer("${ref:b}")),
		doc("b", vnet, "resourceGroup: rg-demo", peer("${ref:a}")),
	))
	if !strings.Contains(ve.Error(), "dependency cycle") {
		t.Errorf("references both ways must stay an error: %v", ve)
	}
}
