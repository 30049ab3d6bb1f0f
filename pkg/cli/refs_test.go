package cli

import (
	"strings"
	"testing"
)

func TestResolveRef(t *testing.T) {
	const sub = "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg"
	cs := []candidate{
		{id: sub + "/providers/Microsoft.Storage/storageAccounts/st1", typ: "Microsoft.Storage/storageAccounts", name: "logs"},
		{id: sub + "/providers/Microsoft.Network/virtualNetworks/vnet/subnets/app", typ: "Microsoft.Network/virtualNetworks/subnets"},
		{id: sub + "/providers/Microsoft.Network/networkSecurityGroups/app", typ: "Microsoft.Network/networkSecurityGroups"},
		{id: sub + "/providers/Microsoft.Network/networkSecurityGroups/nsg9", typ: "Microsoft.Network/networkSecurityGroups", name: "shared"},
		{id: sub, typ: "Microsoft.Resources/resourceGroups"},
		{id: sub + "/providers/Microsoft.Storage/storageAccounts/shared", typ: "Microsoft.Storage/storageAccounts"},
	}
	cases := []struct {
		ref  string
		want int // -1: an error with exit 2
	}{
		{"Microsoft.Storage/storageAccounts/st1", 0},
		{"microsoft.storage/STORAGEACCOUNTS/st1", 0},
		{"storageAccounts/st1", 0},
		{"logs", 0},
		{sub + "/providers/Microsoft.Storage/storageAccounts/ST1/", 0},
		{"subnets/app", 1},
		{"virtualNetworks/vnet/subnets/app", 1},
		{"networkSecurityGroups/app", 2},
		{"app", -1},   // two resources are named app: ambiguous
		{"s/app", -1}, // not a whole segment
		{"st1", 0},    // a bare resource name, as state list prints it
		{"/subscriptions/x", -1},
		// The names state list and plans print: parent/child, the full
		// child type with the child's name, and with parent/child.
		{"vnet/app", 1},
		{"VNET/App", 1},
		{"Microsoft.Network/virtualNetworks/subnets/app", 1},
		{"Microsoft.Network/virtualNetworks/subnets/vnet/app", 1},
		{"virtualNetworks/subnets/vnet/app", 1},
		{"Microsoft.Network/virtualNetworks/vnet/subnets/app", 1},
		{"Microsoft.Network/virtualNetworks/subnets/other/app", -1},
		{"other/app", -1},
		{"vnet", -1}, // the parent is not a candidate
		// A manifest name is never made ambiguous by a resource's name.
		{"shared", 3},
		{"rg", 4},
		{"Microsoft.Resources/resourceGroups/rg", 4},
	}
	for _, tc := range cases {
		got, err := resolveRef(tc.ref, cs)
		if tc.want < 0 {
			if err == nil || exitCode(err) != ExitValidation {
				t.Errorf("%q: got %d, %v; want exit 2", tc.ref, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: got %d, %v; want %d", tc.ref, got, err, tc.want)
		}
	}
}

// TestResolveRefMessages: an ambiguous ref lists the full IDs it names;
// with no manifest given, the hint does not offer a manifest name.
func TestResolveRefMessages(t *testing.T) {
	const rg = "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg"
	recs := []candidate{
		{id: rg + "/providers/Microsoft.Network/virtualNetworks/a/subnets/app", typ: "Microsoft.Network/virtualNetworks/subnets"},
		{id: rg + "/providers/Microsoft.Network/virtualNetworks/b/subnets/app", typ: "Microsoft.Network/virtualNetworks/subnets"},
	}
	_, err := resolveRef("subnets/app", recs)
	if err == nil || !strings.Contains(err.Error(), "ambiguous") || !strings.Contains(err.Error(), recs[0].id) || !strings.Contains(err.Error(), recs[1].id) {
		t.Errorf("ambiguous ref: %v", err)
	}
	_, err = resolveRef("nope/x", recs)
	if err == nil || strings.Contains(err.Error(), "manifest name") {
		t.Errorf("no manifest given, yet: %v", err)
	}
	recs[0].name = "snet"
	_, err = resolveRef("nope/x", recs)
	if err == nil || !strings.Contains(err.Error(), "manifest name") {
		t.Errorf("with manifests: %v", err)
	}
}

func FuzzResolveRef(f *testing.F) {
	cs := []candidate{{id: "/subscriptions/s/resourceGroups/rg/providers/A.B/c/d", typ: "A.B/c", name: "d"}}
	for _, s := range []string{"A.B/c/d", "d", "/", "", "c/d/", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		i, err := resolveRef(ref, cs)
		if err == nil && i != 0 {
			t.Fatalf("%q resolved to %d", ref, i)
		}
	})
}
