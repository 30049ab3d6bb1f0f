package armid

import "testing"

// TestParsePathLevels pins the fixed prefix of ARM paths: each of
// subscriptions and resourceGroups addresses its collection, one item, or
// the item's generic resource list, and only in that nesting.
func TestParsePathLevels(t *testing.T) {
	for _, c := range []struct {
		in        string
		ok        bool
		kind      PathKind
		sub, rg   string
		typ, name string
		parent    string
	}{
		{in: "/subscriptions", ok: true, kind: PathSubscriptions, typ: SubscriptionType},
		{in: "/SUBSCRIPTIONS/s/", ok: true, kind: PathSubscription, sub: "s", typ: SubscriptionType, name: "s"},
		{in: "/subscriptions/s/resources", ok: true, kind: PathSubscriptionResources, sub: "s"},
		{in: "/subscriptions/s/resourceGroups", ok: true, kind: PathResourceGroups, sub: "s", typ: ResourceGroupType},
		{in: "/subscriptions/s/resourcegroups/g", ok: true, kind: PathResourceGroup, sub: "s", rg: "g", typ: ResourceGroupType, name: "g", parent: "/subscriptions/s"},
		{in: "/subscriptions/s/resourceGroups/g/Resources", ok: true, kind: PathGroupResources, sub: "s", rg: "g"},
		{in: "/subscriptions/s/resourceGroups/g/providers/A.B/c", ok: true, kind: PathCollection, sub: "s", rg: "g", typ: "A.B/c", parent: "/subscriptions/s/resourceGroups/g"},
		{in: "/subscriptions/s/providers/A.B/c/n", ok: true, kind: PathResource, sub: "s", typ: "A.B/c", name: "n", parent: "/subscriptions/s"},
		{in: "/subscriptions/s/resourceGroups/g/providers/A.B/c/n/d/m", ok: true, kind: PathResource, sub: "s", rg: "g", typ: "A.B/c/d", name: "m", parent: "/subscriptions/s/resourceGroups/g/providers/A.B/c/n"},
		{in: "/subscriptions/s/resourceGroups/g/providers/A.B/c/n/d", ok: true, kind: PathCollection, sub: "s", rg: "g", typ: "A.B/c/d", name: "n", parent: "/subscriptions/s/resourceGroups/g/providers/A.B/c/n"},
		{in: "/subscriptions/s/resourceGroups/g/providers/A.B/c/n/providers/X.Y/z/w", ok: true, kind: PathResource, sub: "s", rg: "g", typ: "X.Y/z", name: "w", parent: "/subscriptions/s/resourceGroups/g/providers/A.B/c/n"},
		{in: "/providers/A.B/c/n", ok: true, kind: PathResource, typ: "A.B/c", name: "n"},
		// Names are not validated: a server refuses them with ARM's code.
		{in: "/subscriptions/s/resourceGroups/g/providers/A.B/c/bad.", ok: true, kind: PathResource, sub: "s", rg: "g", typ: "A.B/c", name: "bad.", parent: "/subscriptions/s/resourceGroups/g"},
		{in: "/resourceGroups/g"},
		{in: "/subscriptions/s/resources/x"},
		{in: "/subscriptions/s/resourceGroups/g/resources/x"},
		{in: "/subscriptions/s/resourceGroups/g/x"},
		{in: "/subscriptions/s/x"},
		{in: "/subscriptions//resourceGroups"},
		{in: "/subscriptions/s/resourceGroups/g/resourceGroups/h"},
		{in: "/subscriptions/s/providers/A.B/c/providers/X.Y/z/w"},
		{in: "/subscriptions/s/providers/A.B"},
	} {
		p, ok := ParsePath(c.in)
		if ok != c.ok {
			t.Errorf("ParsePath(%q) ok = %v, want %v", c.in, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		if p.Kind != c.kind || p.Subscription != c.sub || p.ResourceGroup != c.rg || p.Name() != c.name || (c.typ != "" && p.Type() != c.typ) || p.ParentID() != c.parent {
			t.Errorf("ParsePath(%q) = kind %v sub %q group %q type %q name %q parent %q; want kind %v sub %q group %q type %q name %q parent %q",
				c.in, p.Kind, p.Subscription, p.ResourceGroup, p.Type(), p.Name(), p.ParentID(), c.kind, c.sub, c.rg, c.typ, c.name, c.parent)
		}
	}
}

// TestParsePathTypesAndParents pins type and parent for the paths the
// emulator routes: children, extension resources, tenant level, groups.
func TestParsePathTypesAndParents(t *testing.T) {
	for _, c := range []struct {
		in, typ, parent string
		kind            PathKind
	}{
		{"/subscriptions/s/resourceGroups/g/providers/Microsoft.Network/virtualNetworks/v/subnets/x", "Microsoft.Network/virtualNetworks/subnets", "/subscriptions/s/resourceGroups/g/providers/Microsoft.Network/virtualNetworks/v", PathResource},
		{"/subscriptions/s/resourcegroups/g/providers/Microsoft.Network/virtualNetworks", "Microsoft.Network/virtualNetworks", "/subscriptions/s/resourcegroups/g", PathCollection},
		{"/subscriptions/s/resourceGroups/g/providers/A.B/c/d/providers/Microsoft.Authorization/roleAssignments/r", "Microsoft.Authorization/roleAssignments", "/subscriptions/s/resourceGroups/g/providers/A.B/c/d", PathResource},
		{"/providers/Microsoft.Management/managementGroups/m", "Microsoft.Management/managementGroups", "", PathResource},
		{"/subscriptions/s/resourceGroups/g", "Microsoft.Resources/resourceGroups", "/subscriptions/s", PathResourceGroup},
		{"/subscriptions/s/resourceGroups/g/resources", "", "", PathGroupResources},
	} {
		p, ok := ParsePath(c.in)
		if !ok || p.Kind != c.kind || (c.typ != "" && p.Type() != c.typ) || (c.typ != "" && p.ParentID() != c.parent) {
			t.Errorf("ParsePath(%s) = %+v ok=%v; want kind %v type %s parent %s", c.in, p, ok, c.kind, c.typ, c.parent)
		}
	}
	for _, bad := range []string{"/foo", "/subscriptions/s/resourceGroups/g/providers/X", "/subscriptions/s/resourceGroups/g/providers/A.B/c/providers/C.D/e/f"} {
		if _, ok := ParsePath(bad); ok {
			t.Errorf("ParsePath(%s) accepted", bad)
		}
	}
}
