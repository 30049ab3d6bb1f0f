package emulator

import "testing"

// TestParsePathLevels pins the fixed prefix of ARM paths: each of
// subscriptions and resourceGroups addresses its collection, one item, or
// the item's generic resource list, and only in that nesting.
func TestParsePathLevels(t *testing.T) {
	for _, c := range []struct {
		in        string
		ok        bool
		kind      kind
		sub, rg   string
		typ, name string
	}{
		{in: "/subscriptions", ok: true, kind: kindSubscriptions, typ: "Microsoft.Resources/subscriptions"},
		{in: "/SUBSCRIPTIONS/s/", ok: true, kind: kindSubscription, sub: "s", typ: "Microsoft.Resources/subscriptions", name: "s"},
		{in: "/subscriptions/s/resources", ok: true, kind: kindSubResources, sub: "s"},
		{in: "/subscriptions/s/resourceGroups", ok: true, kind: kindGroups, sub: "s", typ: "Microsoft.Resources/resourceGroups"},
		{in: "/subscriptions/s/resourcegroups/g", ok: true, kind: kindGroup, sub: "s", rg: "g", typ: "Microsoft.Resources/resourceGroups", name: "g"},
		{in: "/subscriptions/s/resourceGroups/g/Resources", ok: true, kind: kindGroupResources, sub: "s", rg: "g"},
		{in: "/subscriptions/s/resourceGroups/g/providers/A.B/c", ok: true, kind: kindCollection, sub: "s", rg: "g", typ: "A.B/c"},
		{in: "/subscriptions/s/providers/A.B/c/n", ok: true, kind: kindResource, sub: "s", typ: "A.B/c", name: "n"},
		{in: "/resourceGroups/g"},
		{in: "/subscriptions/s/resources/x"},
		{in: "/subscriptions/s/resourceGroups/g/resources/x"},
		{in: "/subscriptions/s/resourceGroups/g/x"},
		{in: "/subscriptions/s/x"},
		{in: "/subscriptions//resourceGroups"},
		{in: "/subscriptions/s/resourceGroups/g/resourceGroups/h"},
	} {
		p, ok := parsePath(c.in)
		if ok != c.ok {
			t.Errorf("parsePath(%q) ok = %v, want %v", c.in, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		if p.Kind != c.kind || p.Sub != c.sub || p.Group != c.rg || p.Name() != c.name || (c.typ != "" && p.Type() != c.typ) {
			t.Errorf("parsePath(%q) = kind %v sub %q group %q type %q name %q; want kind %v sub %q group %q type %q name %q",
				c.in, p.Kind, p.Sub, p.Group, p.Type(), p.Name(), c.kind, c.sub, c.rg, c.typ, c.name)
		}
	}
}
