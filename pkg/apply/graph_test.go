package apply

import (
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

func TestLinkDepsUsesNearestManagedAncestorAndDeclaredEdges(t *testing.T) {
	rg := &item{id: "/subscriptions/s/resourceGroups/RG", typ: "rg", name: "rg"}
	vnet := &item{id: "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v", typ: "vnet", name: "v"}
	subnet := &item{id: vnet.id + "/subnets/s", typ: "subnet", name: "s"}
	st := &item{id: "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/st", typ: "st", name: "st",
		declaredDeps: []string{strings.ToUpper(subnet.id)}}
	linkDeps([]*item{rg, vnet, subnet, st})
	names := func(it *item) string {
		var n []string
		for _, d := range it.deps {
			n = append(n, d.name)
		}
		return strings.Join(n, ",")
	}
	for it, want := range map[*item]string{rg: "", vnet: "rg", subnet: "v", st: "rg,s"} {
		if got := names(it); got != want {
			t.Errorf("%s deps = %q, want %q", it.name, got, want)
		}
	}
}

func TestTopoPutsDependenciesFirstAndToleratesCycles(t *testing.T) {
	a := &item{id: "/a"}
	b := &item{id: "/b", deps: []*item{a}}
	c := &item{id: "/c", deps: []*item{b, a}}
	got := topo([]*item{c, b, a})
	if got[0] != a || got[1] != b || got[2] != c {
		t.Fatalf("topo order = %s %s %s", got[0].id, got[1].id, got[2].id)
	}
	// A cycle the loader should have refused still yields every item once.
	a.deps = []*item{c}
	if got := topo([]*item{a, b, c}); len(got) != 3 {
		t.Fatalf("topo over a cycle = %d items", len(got))
	}
}

func TestSchemaPathAndSecrets(t *testing.T) {
	if got := schemaPath("properties.env[1].value"); got != "properties.env[].value" {
		t.Fatalf("schemaPath = %q", got)
	}
	cs := markSensitive([]plan.Change{{Path: "properties.env[1].value", Before: "old", After: "new"}, {Path: "tags.a", After: "x"}},
		[]string{"properties.env[1].value"})
	if cs[0].Before != plan.Sensitive || cs[0].After != plan.Sensitive || !cs[0].Sensitive {
		t.Fatalf("secret change not hidden: %+v", cs[0])
	}
	if cs[1].Sensitive || cs[1].After != "x" {
		t.Fatalf("non-secret change altered: %+v", cs[1])
	}
	s := withSecrets(nil, "X.Y/z", "2020-01-01", []string{"properties.env[1].value"})
	if p := s.Prop("properties.env[].value"); p == nil || !p.Secret {
		t.Fatalf("withSecrets did not mark the path: %+v", p)
	}
}

func TestMatchesDetectsMovedLiveAndChangedPlans(t *testing.T) {
	base := &plan.Plan{Resources: []plan.Resource{{ID: "/a", Action: plan.ActionUpdate, Method: "PATCH", LiveHash: "h1",
		Changes: []plan.Change{{Path: "tags.x", Before: 1, After: 2}}}}}
	same := &plan.Plan{Resources: []plan.Resource{{ID: "/A", Action: plan.ActionUpdate, Method: "PATCH", LiveHash: "h1",
		Changes: []plan.Change{{Path: "tags.x", Before: 1.0, After: 2.0}}}}}
	if d := Matches(base, same); len(d) != 0 {
		t.Fatalf("identical plans differ: %v", d)
	}
	moved := &plan.Plan{Resources: []plan.Resource{{ID: "/a", Action: plan.ActionUpdate, Method: "PATCH", LiveHash: "h2",
		Changes: base.Resources[0].Changes}}}
	if d := Matches(base, moved); len(d) != 1 || !strings.Contains(d[0], "changed in Azure") {
		t.Fatalf("moved live not detected: %v", d)
	}
	extra := &plan.Plan{Resources: append(append([]plan.Resource{}, same.Resources...), plan.Resource{ID: "/b", Action: plan.ActionCreate})}
	if d := Matches(base, extra); len(d) != 1 || !strings.Contains(d[0], "not in the saved plan") {
		t.Fatalf("new resource not detected: %v", d)
	}
}
