package apply

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
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

func TestDepthsPutDependenciesFirstAndTolerateCycles(t *testing.T) {
	a := &item{id: "/a"}
	b := &item{id: "/b", deps: []*item{a}}
	c := &item{id: "/c", deps: []*item{b, a}}
	d := depths([]*item{c, b, a})
	if d[a] != 0 || d[b] != 1 || d[c] != 2 {
		t.Fatalf("depths a=%d b=%d c=%d", d[a], d[b], d[c])
	}
	// A cycle the loader should have refused still gives every item a depth.
	a.deps = []*item{c}
	if d := depths([]*item{a, b, c}); len(d) != 3 {
		t.Fatalf("depths over a cycle = %d items", len(d))
	}
}

// TestPlanChunks: chunks keep dependencies in earlier chunks, are cut at
// planChunkSize only between collections, and hold every item once.
func TestPlanChunks(t *testing.T) {
	rg := func(n int) string { return fmt.Sprintf("/subscriptions/s/resourceGroups/rg%d", n) }
	var items []*item
	var groups []*item
	for g := range 3 {
		grp := &item{id: rg(g), typ: "Microsoft.Resources/resourceGroups", ver: "2021-04-01"}
		groups = append(groups, grp)
		items = append(items, grp)
	}
	// 3 collections of 600 identities, interleaved as a manifest may list them.
	for i := range 1800 {
		g := i % 3
		items = append(items, &item{id: fmt.Sprintf("%s/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id%d", rg(g), i),
			typ: "Microsoft.ManagedIdentity/userAssignedIdentities", ver: "2023-01-31", deps: []*item{groups[g]}})
	}
	chunks := planChunks(items)
	var sizes []int
	seen := map[*item]int{}
	for n, c := range chunks {
		sizes = append(sizes, len(c))
		for _, it := range c {
			seen[it] = n
		}
	}
	// The groups first; then 600+600 (cut after the second collection
	// passes 1,000, not inside it), then the last 600.
	if want := []int{3, 1200, 600}; !reflect.DeepEqual(sizes, want) {
		t.Fatalf("chunk sizes = %v, want %v", sizes, want)
	}
	if len(seen) != len(items) {
		t.Fatalf("%d of %d items chunked", len(seen), len(items))
	}
	for _, it := range items {
		for _, d := range it.deps {
			if seen[d] >= seen[it] {
				t.Fatalf("%s (chunk %d) before its dependency %s (chunk %d)", it.id, seen[it], d.id, seen[d])
			}
		}
	}
}

func TestSchemaPathAndSecrets(t *testing.T) {
	if got := schemaPath("properties.env[1].value"); got != "properties.env[].value" {
		t.Fatalf("schemaPath = %q", got)
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

// TestSavedPlanNumbersAreExact: a saved plan read back compares numbers
// as written, not as float64 (issue 27 item 12).
func TestSavedPlanNumbersAreExact(t *testing.T) {
	change := func(n string) []plan.Change {
		return []plan.Change{{Path: "properties.big", Before: nil, After: json.Number(n), Reason: "r", Kind: plan.KindAdd}}
	}
	saved := &plan.Plan{FormatVersion: plan.FormatVersion, Resources: []plan.Resource{{ID: idA, Action: plan.ActionUpdate, Method: "PUT", Changes: change("12345678901234567000")}}}
	path := filepath.Join(t.TempDir(), "plan.json")
	if err := WriteSaved(path, saved, Source{}); err != nil {
		t.Fatal(err)
	}
	sp, err := ReadSaved(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := sp.Resources[0].Changes[0].After; got != json.Number("12345678901234567000") {
		t.Fatalf("read back %#v, want the exact number", got)
	}
	fresh := &plan.Plan{Resources: []plan.Resource{{ID: idA, Action: plan.ActionUpdate, Method: "PUT", Changes: change("12345678901234567999")}}}
	if d := Matches(&sp.Plan, fresh); len(d) == 0 {
		t.Fatal("a plan whose number changed in the last digits matched the saved one")
	}
	fresh.Resources[0].Changes = change("12345678901234567000")
	if d := Matches(&sp.Plan, fresh); len(d) != 0 {
		t.Fatalf("the same plan did not match: %v", d)
	}
}
