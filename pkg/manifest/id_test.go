package manifest

import (
	"strings"
	"testing"
)

func TestParseID(t *testing.T) {
	const sub = "/subscriptions/s1"
	const rg = sub + "/resourceGroups/rg"
	cases := []struct {
		id                  string
		subID, group, typ   string
		name, scope, parent string
		types               string
	}{
		{id: sub, subID: "s1", typ: "Microsoft.Resources/subscriptions", name: "s1", scope: "", parent: "", types: "subscriptions"},
		{id: rg, subID: "s1", group: "rg", typ: "Microsoft.Resources/resourceGroups", name: "rg", scope: sub, parent: sub, types: "resourceGroups"},
		{id: rg + "/providers/Microsoft.Network/virtualNetworks/vnet/subnets/snet", subID: "s1", group: "rg",
			typ: "Microsoft.Network/virtualNetworks/subnets", name: "snet", scope: rg,
			parent: rg + "/providers/Microsoft.Network/virtualNetworks/vnet", types: "virtualNetworks,subnets"},
		{id: rg + "/providers/Microsoft.Storage/storageAccounts/st/providers/Microsoft.Authorization/roleAssignments/ra", subID: "s1", group: "rg",
			typ: "Microsoft.Authorization/roleAssignments", name: "ra", scope: rg + "/providers/Microsoft.Storage/storageAccounts/st",
			parent: rg + "/providers/Microsoft.Storage/storageAccounts/st", types: "roleAssignments"},
		{id: sub + "/providers/Microsoft.Authorization/roleDefinitions/rd", subID: "s1", typ: "Microsoft.Authorization/roleDefinitions",
			name: "rd", scope: sub, parent: sub, types: "roleDefinitions"},
		{id: "/providers/Microsoft.Management/managementGroups/mg", typ: "Microsoft.Management/managementGroups", name: "mg", types: "managementGroups"},
		{id: rg + "/providers/Microsoft.Web/sites/app/", subID: "s1", group: "rg", typ: "Microsoft.Web/sites", name: "app", scope: rg, parent: rg, types: "sites"},
	}
	for _, c := range cases {
		id, err := ParseID(c.id)
		if err != nil {
			t.Errorf("%s: %v", c.id, err)
			continue
		}
		if id.Subscription != c.subID || id.ResourceGroup != c.group || id.Type() != c.typ || id.Name() != c.name || id.Scope != c.scope || strings.Join(id.Types, ",") != c.types {
			t.Errorf("%s: got %+v (type %s)", c.id, id, id.Type())
		}
		if got := id.String(); !EqualIDs(got, c.id) {
			t.Errorf("%s: String() = %s", c.id, got)
		}
		p, ok := id.Parent()
		if ok != (c.parent != "") || (ok && p.String() != c.parent) {
			t.Errorf("%s: Parent() = %s, %v; want %s", c.id, p.String(), ok, c.parent)
		}
	}
	for _, bad := range []string{
		"", "subscriptions/s1", "/subscriptions", "/subscriptions/s1/resourceGroups",
		"/subscriptions/s1/resourceGroups/rg/providers/Microsoft.Web",
		"/subscriptions/s1/resourceGroups/rg/providers/Microsoft.Web/sites",
		"/subscriptions/s1//resourceGroups/rg", "/foo/bar",
		"/subscriptions/s1/resourceGroups/rg/x/y/providers/Microsoft.Authorization/locks/l",
	} {
		if _, err := ParseID(bad); err == nil {
			t.Errorf("ParseID(%q) accepted an invalid ID", bad)
		}
	}
	if !EqualIDs("/subscriptions/S1/resourcegroups/RG", "/subscriptions/s1/resourceGroups/rg/") {
		t.Error("EqualIDs must ignore case and a trailing slash")
	}
	if EqualIDs("/subscriptions/s1/resourceGroups/rg1", "/subscriptions/s1/resourceGroups/rg") {
		t.Error("EqualIDs matched different IDs")
	}
}

func TestTopoSortCycle(t *testing.T) {
	a := &Resource{Origin: Origin{"f.yaml", 0}, ID: "/subscriptions/s/resourceGroups/a", DependsOn: []string{"/subscriptions/s/resourceGroups/B"}}
	b := &Resource{Origin: Origin{"f.yaml", 1}, ID: "/subscriptions/s/resourceGroups/b", DependsOn: []string{"/subscriptions/s/resourceGroups/a", "/elsewhere"}}
	if _, err := TopoSort([]*Resource{a, b}); err == nil || !strings.Contains(err.Error(), "dependency cycle") {
		t.Fatalf("want cycle error, got %v", err)
	}
	b.DependsOn = []string{"/elsewhere"}
	out, err := TopoSort([]*Resource{a, b})
	if err != nil || out[0] != b || out[1] != a {
		t.Fatalf("want b before a, got %v %v", out, err)
	}
}
