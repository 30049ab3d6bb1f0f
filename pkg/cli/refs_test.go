package cli

import (
	"testing"
)

func TestResolveRef(t *testing.T) {
	const sub = "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg"
	cs := []candidate{
		{id: sub + "/providers/Microsoft.Storage/storageAccounts/st1", typ: "Microsoft.Storage/storageAccounts", name: "logs"},
		{id: sub + "/providers/Microsoft.Network/virtualNetworks/vnet/subnets/app", typ: "Microsoft.Network/virtualNetworks/subnets"},
		{id: sub + "/providers/Microsoft.Network/networkSecurityGroups/app", typ: "Microsoft.Network/networkSecurityGroups"},
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
		{"app", -1},   // a bare name matches manifest names only
		{"s/app", -1}, // not a whole segment
		{"st1", -1},   // resource names need a type; manifest names do not
		{"/subscriptions/x", -1},
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
