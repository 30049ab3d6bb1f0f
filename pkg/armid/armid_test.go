package armid

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	const sub = "/subscriptions/s1"
	const rg = sub + "/resourceGroups/rg"
	cases := []struct {
		id                  string
		subID, group, typ   string
		name, scope, parent string
		types               string
	}{
		{id: sub, subID: "s1", typ: SubscriptionType, name: "s1", types: "subscriptions"},
		{id: rg, subID: "s1", group: "rg", typ: ResourceGroupType, name: "rg", scope: sub, parent: sub, types: "resourceGroups"},
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
		{id: rg + "/providers/Microsoft.Web/sites/my%20app", subID: "s1", group: "rg", typ: "Microsoft.Web/sites", name: "my app", scope: rg, parent: rg, types: "sites"},
		// A percent-escape in the scope is decoded there too.
		{id: sub + "/resourceGroups/my%20rg/providers/Microsoft.Web/sites/st/providers/Microsoft.Authorization/locks/l", subID: "s1", group: "my rg",
			typ: "Microsoft.Authorization/locks", name: "l", scope: sub + "/resourceGroups/my rg/providers/Microsoft.Web/sites/st",
			parent: sub + "/resourceGroups/my rg/providers/Microsoft.Web/sites/st", types: "locks"},
	}
	for _, c := range cases {
		id, err := Parse(c.id)
		if err != nil {
			t.Errorf("%s: %v", c.id, err)
			continue
		}
		if id.Subscription != c.subID || id.ResourceGroup != c.group || id.Type() != c.typ || id.Name() != c.name || id.Scope != c.scope || strings.Join(id.Types, ",") != c.types {
			t.Errorf("%s: got %+v (type %s)", c.id, id, id.Type())
		}
		p, ok := id.Parent()
		if ok != (c.parent != "") || (ok && p.String() != c.parent) {
			t.Errorf("%s: Parent() = %s, %v; want %s", c.id, p.String(), ok, c.parent)
		}
	}
}

// TestParseRejects covers IDs ARM (or an HTTP stack in between) would read
// as a different path than the one written, and malformed layouts.
func TestParseRejects(t *testing.T) {
	const rg = "/subscriptions/s1/resourceGroups/rg"
	for _, bad := range []string{
		"", "subscriptions/s1", "/subscriptions", "/subscriptions/s1/resourceGroups",
		rg + "/providers/Microsoft.Web",
		rg + "/providers/Microsoft.Web/sites",
		"/subscriptions/s1//resourceGroups/rg", "/foo/bar",
		rg + "/x/y/providers/Microsoft.Authorization/locks/l",
		rg + "/providers/Microsoft.Network/virtualNetworks/vnet/subnets/..",
		rg + "/providers/Microsoft.Network/virtualNetworks/vnet/subnets/.",
		"/subscriptions/s1/resourceGroups/..",
		"/subscriptions/s1/resourceGroups/%2e%2e",
		"/subscriptions/s1/resourceGroups/a%2Fb",
		"/subscriptions/s1/resourceGroups/a%zz",
		rg + "/providers/Microsoft.Web/sites/a?b",
		rg + "/providers/Microsoft.Web/sites/a#b",
		rg + "/providers/Microsoft.Web/sites/a\x00b",
		rg + "/providers/Microsoft.Web/sites/a\rb",
		rg + "/providers/Microsoft.Web/sites/a\x1b[31mb",
		rg + "/providers/Microsoft.Web/sites/a\u202eb",
		rg + "/providers/Microsoft.Web/sites/a\u200bb",
		rg + "/providers/Microsoft.Web/sites/a\\b",
		rg + "/providers/Microsoft.Web/sites/app.",
		rg + "/providers/Microsoft.Web/sites/app ",
		rg + "/providers/Microsoft.Web/sites/a\tb",
	} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted an invalid ID", bad)
		} else if strings.ContainsAny(err.Error(), "\x00\r\x1b\u202e") {
			t.Errorf("Parse(%q): error prints a raw control character: %q", bad, err)
		}
	}
}

func TestValidateName(t *testing.T) {
	good := []string{"a", "vnet-demo", "snet_app", "my app", "contoso.com", "@", "x.y.z", "0f3a", "名前"}
	for _, s := range good {
		if err := ValidateName(s); err != nil {
			t.Errorf("ValidateName(%q) = %v, want ok", s, err)
		}
	}
	bad := []string{"", ".", "..", "a/b", "a\\b", "a?b", "a#b", "a%b", "a\x00", "a\r\n", "\x1b[2J", "a\u202e", "a\u2066", "\ufeffa", "a.", "a ", string([]byte{0xff})}
	for _, s := range bad {
		if err := ValidateName(s); err == nil {
			t.Errorf("ValidateName(%q) accepted", s)
		}
	}
}

func TestKeyContains(t *testing.T) {
	if !Equal("/subscriptions/S1/resourcegroups/RG", "/subscriptions/s1/resourceGroups/rg/") {
		t.Error("Equal must ignore case and a trailing slash")
	}
	rg := "/subscriptions/s1/resourceGroups/rg"
	if !Contains(rg, rg+"/providers/Microsoft.Web/sites/a") || Contains(rg, rg) || Contains(rg, rg+"2/providers/x/y/z") {
		t.Error("Contains")
	}
	if got := SubscriptionOf("/subscriptions/ABC/resourceGroups/x"); got != "abc" {
		t.Errorf("SubscriptionOf = %q", got)
	}
	if got := Printable("a\x1bb\u202e"); got != `a\u001bb\u202e` {
		t.Errorf("Printable = %q", got)
	}
}

// TestEqualContainsFollowKey: Equal and Contains compare ASCII IDs without
// lowering them, and must agree with Key on every ID, ASCII or not.
func TestEqualContainsFollowKey(t *testing.T) {
	rg := "/subscriptions/s1/resourceGroups/rg"
	ids := []string{
		rg, rg + "/", strings.ToUpper(rg), rg + "2", rg + "/providers/Microsoft.Web/sites/a",
		rg + "/providers/Microsoft.Web/sites/A/", rg + "/providers/Microsoft.Web/sites/\u00c4", rg + "/providers/Microsoft.Web/sites/\u00e4",
		rg + "/providers/Microsoft.Web/sites/\u212a", rg + "/providers/Microsoft.Web/sites/k", rg + "/providers/Microsoft.Web/sites/\u017f",
		rg + "/providers/Microsoft.Web/sites/s", "/SUBSCRIPTIONS/S1/RESOURCEGROUPS/RG/providers/Microsoft.Web/sites/\u00c4", "", "/",
	}
	for _, a := range ids {
		for _, b := range ids {
			if got, want := Equal(a, b), Key(a) == Key(b); got != want {
				t.Errorf("Equal(%q, %q) = %v, Key says %v", a, b, got, want)
			}
			ka, kb := Key(a), Key(b)
			want := len(kb) > len(ka) && strings.HasPrefix(kb, ka) && kb[len(ka)] == '/'
			if got := Contains(a, b); got != want {
				t.Errorf("Contains(%q, %q) = %v, Key says %v", a, b, got, want)
			}
		}
	}
}

func BenchmarkParseEqual(b *testing.B) {
	id := "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-bench/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-0001"
	other := strings.ToLower(id)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Parse(id); err != nil || !Equal(id, other) || !Contains(id[:len("/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-bench")], other) {
			b.Fatal(err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("/subscriptions/s1/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/s")
	f.Add("/providers/Microsoft.Management/managementGroups/mg")
	f.Fuzz(func(t *testing.T, s string) {
		id, err := Parse(s)
		if err != nil {
			return
		}
		again, err := Parse(id.String())
		if err != nil {
			t.Fatalf("String() of a parsed ID does not parse: %q -> %q: %v", s, id.String(), err)
		}
		if again.Key() != id.Key() {
			t.Fatalf("round trip changed the ID: %q -> %q", id.String(), again.String())
		}
		if !Equal(s, id.String()) && Key(s) == Key(id.String()) {
			t.Fatalf("Equal disagrees with Key on %q", s)
		}
	})
}
