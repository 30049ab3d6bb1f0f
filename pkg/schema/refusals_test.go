package schema_test

import (
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// A member the Network provider does not know is refused by it (400
// InvalidRequestFormat), so validation calls it an error on the exact
// api-version; other providers ignore such members: a warning.
func TestUnknownMembersOfAStrictProviderAreErrors(t *testing.T) {
	reg := schema.Default()
	for _, tc := range []struct {
		typ, version string
		body         map[string]any
		want         schema.Severity
	}{
		{"Microsoft.Network/routeTables", "2023-09-01", map[string]any{"location": "westeurope", "properties": map[string]any{"disableBgpRoutPropagation": true}}, schema.Error},
		{"Microsoft.Network/privateDnsZones", "2020-06-01", map[string]any{"location": "global", "properties": map[string]any{"notAMember": 1}}, schema.Warning},
		{"Microsoft.Storage/storageAccounts", "2023-05-01", map[string]any{"location": "westeurope", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}, "properties": map[string]any{"notAMember": 1}}, schema.Warning},
		// A member a later api-version added: the provider's model knows
		// it (public templates deploy sku.tier with 2019-11-01), a warning.
		{"Microsoft.Network/publicIPAddresses", "2019-11-01", map[string]any{"location": "westeurope", "sku": map[string]any{"name": "Standard", "tier": "Regional"}}, schema.Warning},
		// A member no api-version declares stays an error.
		{"Microsoft.Network/publicIPAddresses", "2019-11-01", map[string]any{"location": "westeurope", "sku": map[string]any{"name": "Standard", "nmae": "Regional"}}, schema.Error},
		// No schema for the exact version: judged on a neighbour, never an error.
		{"Microsoft.Network/routeTables", "2023-09-02", map[string]any{"location": "westeurope", "properties": map[string]any{"notAMember": 1}}, schema.Warning},
	} {
		typ, _ := reg.Lookup(tc.typ, tc.version)
		if typ == nil {
			t.Fatalf("%s@%s: no schema", tc.typ, tc.version)
		}
		var got []schema.Issue
		for _, is := range typ.Validate(tc.body) {
			if is.Kind == schema.KindUnknown {
				got = append(got, is)
			}
		}
		if len(got) != 1 || got[0].Severity != tc.want {
			t.Errorf("%s@%s: unknown-property findings %v, want one %s", tc.typ, tc.version, got, tc.want)
			continue
		}
		if tc.typ == "Microsoft.Network/publicIPAddresses" && tc.want == schema.Warning && !strings.Contains(got[0].Message, "api-version 2020-") {
			t.Errorf("%s@%s: %q does not name the version that declares it", tc.typ, tc.version, got[0].Message)
		}
		if tc.want == schema.Error && tc.typ == "Microsoft.Network/routeTables" && !strings.Contains(got[0].Message, "did you mean") {
			t.Errorf("%s@%s: %q lacks the suggestion", tc.typ, tc.version, got[0].Message)
		}
	}
}

// ARM's tag limits hold for every type and api-version, and a message
// never quotes a tag's value (it may be a secret).
func TestTagRulesAreErrors(t *testing.T) {
	typ, _ := schema.Default().Lookup("Microsoft.Resources/resourceGroups", "2021-04-01")
	long := strings.Repeat("s3cret", 50)
	many := map[string]any{}
	for i := range 51 {
		many[string(rune('a'+i%26))+strings.Repeat("x", i)] = "v"
	}
	for _, tc := range []struct {
		name string
		tags map[string]any
		path string
	}{
		{"long value", map[string]any{"owner": long}, "tags.owner"},
		{"long name", map[string]any{strings.Repeat("n", 513): "v"}, "tags." + strings.Repeat("n", 513)},
		{"too many", many, "tags"},
	} {
		var errs []schema.Issue
		for _, is := range typ.Validate(map[string]any{"location": "westeurope", "tags": tc.tags}) {
			if is.Severity == schema.Error {
				errs = append(errs, is)
			}
		}
		if len(errs) != 1 || errs[0].Path != tc.path || strings.Contains(errs[0].Message, "s3cret") {
			t.Errorf("%s: errors %v, want one at %s that quotes no value", tc.name, errs, tc.path)
		}
	}
	if is := typ.Validate(map[string]any{"location": "westeurope", "tags": map[string]any{"ok": "fine", "empty": "", "hidden-link:/subscriptions/x": "Resource"}}); len(is) != 0 {
		t.Errorf("valid tags: %v", is)
	}
}

// Members public templates deploy with although no spec declares them are
// taken; any other undeclared Network member is still refused.
func TestNetworkTakesUndeclaredMembersTemplatesDeployWith(t *testing.T) {
	for _, c := range []struct {
		typ, path string
		refused   bool
	}{
		{"Microsoft.Network/applicationGateways", "properties.probes[0].properties.backendHttpSettings", false},
		{"Microsoft.Network/applicationGateways", "properties.backendAddressPools[2].properties.requestRoutingRules", false},
		{"Microsoft.Network/applicationGateways", "properties.rewriteRuleSets[0].type", false},
		{"Microsoft.Network/networkInterfaces", "properties.ipConfigurations[0].properties.networkSecurityGroup", false},
		{"Microsoft.Network/applicationGateways", "properties.probes[0].properties.bogus", true},
		{"Microsoft.Network/networkInterfaces", "properties.networkSecurityGroupz", true},
	} {
		if got := schema.RefusesUnknownMember(c.typ, c.path); got != c.refused {
			t.Errorf("RefusesUnknownMember(%s, %s) = %v, want %v", c.typ, c.path, got, c.refused)
		}
	}
}
