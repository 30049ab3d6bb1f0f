package emulator

import (
	"net/http"
	"strings"
	"testing"
)

func vnetBody(space string, subnets ...[2]string) map[string]any {
	var sn []any
	for _, s := range subnets {
		sn = append(sn, map[string]any{"name": s[0], "properties": map[string]any{"addressPrefix": s[1]}})
	}
	return map[string]any{"location": "westeurope", "properties": map[string]any{
		"addressSpace": map[string]any{"addressPrefixes": []any{space}}, "subnets": sn,
	}}
}

func TestSubnetRangesAreCheckedAsARMDoes(t *testing.T) {
	u, g := startWithGroup(t, "rg-net")
	q := "?api-version=2023-11-01"
	vnet := u + g + "/providers/Microsoft.Network/virtualNetworks/vnet-a"
	cases := []struct {
		name string
		body map[string]any
		code string
	}{
		{"inside and apart", vnetBody("10.0.0.0/16", [2]string{"a", "10.0.0.0/24"}, [2]string{"b", "10.0.1.0/24"}), ""},
		{"outside the space", vnetBody("10.0.0.0/16", [2]string{"a", "10.9.0.0/24"}), "NetcfgSubnetRangeOutsideVnet"},
		{"wider than the space", vnetBody("10.0.0.0/16", [2]string{"a", "10.0.0.0/8"}), "NetcfgSubnetRangeOutsideVnet"},
		{"overlapping", vnetBody("10.0.0.0/16", [2]string{"a", "10.0.0.0/24"}, [2]string{"b", "10.0.0.128/25"}), "NetcfgSubnetRangesOverlap"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := do(t, http.MethodPut, vnet+q, c.body)
			if got := errCode(r); got != c.code {
				t.Fatalf("PUT vnet: %d %s, want code %q", r.Status, r.Raw, c.code)
			}
		})
	}
	// A subnet written on its own is checked against the space and the
	// subnets already there.
	do(t, http.MethodPut, vnet+q, vnetBody("10.0.0.0/16", [2]string{"a", "10.0.0.0/24"}))
	sub := func(name, prefix string) resp {
		return do(t, http.MethodPut, vnet+"/subnets/"+name+q, map[string]any{"properties": map[string]any{"addressPrefix": prefix}})
	}
	if r := sub("b", "10.0.0.128/25"); errCode(r) != "NetcfgSubnetRangesOverlap" || !strings.Contains(r.Raw, "existing subnet 'a' in virtual network 'vnet-a'") {
		t.Errorf("overlapping child subnet: %d %s", r.Status, r.Raw)
	}
	if r := sub("c", "192.168.0.0/24"); errCode(r) != "NetcfgSubnetRangeOutsideVnet" {
		t.Errorf("child subnet outside: %d %s", r.Status, r.Raw)
	}
	if r := sub("d", "10.0.2.0/24"); r.Status >= 300 {
		t.Errorf("a free range: %d %s", r.Status, r.Raw)
	}
	// Rewriting a subnet with its own range is no overlap with itself.
	if r := sub("a", "10.0.0.0/24"); r.Status >= 300 {
		t.Errorf("rewrite of a subnet: %d %s", r.Status, r.Raw)
	}
}

func TestSecurityRulePrioritiesAreUniquePerDirection(t *testing.T) {
	u, g := startWithGroup(t, "rg-nsg")
	q := "?api-version=2023-11-01"
	nsg := u + g + "/providers/Microsoft.Network/networkSecurityGroups/nsg-a"
	rule := func(name, dir string, prio int) map[string]any {
		return map[string]any{"name": name, "properties": map[string]any{
			"priority": prio, "direction": dir, "access": "Allow", "protocol": "Tcp",
			"sourcePortRange": "*", "destinationPortRange": "443", "sourceAddressPrefix": "*", "destinationAddressPrefix": "*",
		}}
	}
	body := func(rules ...any) map[string]any {
		return map[string]any{"location": "westeurope", "properties": map[string]any{"securityRules": rules}}
	}
	if r := do(t, http.MethodPut, nsg+q, body(rule("a", "Inbound", 100), rule("b", "Inbound", 100))); errCode(r) != "SecurityRuleConflict" ||
		!strings.Contains(r.Raw, "Rules cannot have the same Priority and Direction") {
		t.Fatalf("two inbound rules at 100: %d %s", r.Status, r.Raw)
	}
	if r := do(t, http.MethodPut, nsg+q, body(rule("a", "Inbound", 100), rule("b", "Outbound", 100))); r.Status >= 300 {
		t.Fatalf("one priority in two directions: %d %s", r.Status, r.Raw)
	}
	child := func(name string, prio int) resp {
		b := rule(name, "Inbound", prio)
		delete(b, "name")
		return do(t, http.MethodPut, nsg+"/securityRules/"+name+q, b)
	}
	if r := child("c", 100); errCode(r) != "SecurityRuleConflict" || !strings.Contains(r.Raw, "Security rule c conflicts with rule a") {
		t.Errorf("child rule at a taken priority: %d %s", r.Status, r.Raw)
	}
	if r := child("a", 100); r.Status >= 300 {
		t.Errorf("rewrite of a rule with its own priority: %d %s", r.Status, r.Raw)
	}
	if r := child("c", 110); r.Status >= 300 {
		t.Errorf("a free priority: %d %s", r.Status, r.Raw)
	}
}

func TestPurgeProtectionCannotBeFalse(t *testing.T) {
	u, g := startWithGroup(t, "rg-kv")
	q := "?api-version=2023-07-01"
	kv := u + g + "/providers/Microsoft.KeyVault/vaults/kv-purge-a"
	body := func(purge any) map[string]any {
		props := map[string]any{"tenantId": emulatorTenant, "sku": map[string]any{"family": "A", "name": "standard"}, "enableRbacAuthorization": true}
		if purge != nil {
			props["enablePurgeProtection"] = purge
		}
		return map[string]any{"location": "westeurope", "properties": props}
	}
	if r := do(t, http.MethodPut, kv+q, body(false)); errCode(r) != "BadRequest" || !strings.Contains(r.Raw, "irreversible") {
		t.Fatalf("create with false: %d %s", r.Status, r.Raw)
	}
	if r := do(t, http.MethodPut, kv+q, body(true)); r.Status >= 300 {
		t.Fatalf("create with true: %d %s", r.Status, r.Raw)
	}
	if r := do(t, http.MethodPatch, kv+q, map[string]any{"properties": map[string]any{"enablePurgeProtection": false}}); errCode(r) != "BadRequest" {
		t.Errorf("turning it off: %d %s", r.Status, r.Raw)
	}
}
