package printer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// Every resource with changes gets a file of its own: same-named resources
// in different groups or subscriptions, and names differing only in case,
// never share one, so each change reaches the reviewer.
func TestDiffTreesOneFilePerResource(t *testing.T) {
	const st = "Microsoft.Storage/storageAccounts"
	id := func(sub, rg, name string) string {
		return "/subscriptions/" + sub + "/resourceGroups/" + rg + "/providers/" + st + "/" + name
	}
	const a, b = "00000000-0000-0000-0000-00000000000a", "00000000-0000-0000-0000-00000000000b"
	ids := []string{
		id(a, "rg-a", "st1"), id(a, "rg-b", "st1"), id(a, "rg-c", "st1"), id(b, "rg-a", "st1"),
		id(a, "rg-a", "ST1"), id(a, "rg-a_Microsoft.Storage_storageAccounts", "st1"),
		"/subscriptions/" + a + "/resourceGroups/rg-a",
	}
	p := &plan.Plan{}
	for i, x := range ids {
		typ := st
		if !strings.Contains(x, "/providers/") {
			typ = "Microsoft.Resources/resourceGroups"
		}
		p.Resources = append(p.Resources, plan.Resource{ID: x, Type: typ, APIVersion: "2023-05-01", Action: plan.ActionUpdate,
			Changes: []plan.Change{{Path: "tags.n", Before: "old", After: strings.Repeat("x", i+1)}}})
	}
	dir := t.TempDir()
	live, merged := filepath.Join(dir, "LIVE"), filepath.Join(dir, "MERGED")
	for _, d := range []string{live, merged} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteDiffTrees(live, merged, p, secret.NewRegistry()); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{live, merged} {
		entries, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		lower := map[string]bool{}
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(d, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				ID string `json:"id"`
			}
			if err := yaml.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			got[doc.ID] = e.Name()
			if lower[strings.ToLower(e.Name())] {
				t.Errorf("%s: two files differ only in case", e.Name())
			}
			lower[strings.ToLower(e.Name())] = true
		}
		if len(entries) != len(ids) || len(got) != len(ids) {
			t.Fatalf("%s holds %d files for %d resources: %v", filepath.Base(d), len(entries), len(ids), got)
		}
		if n := got[id(a, "rg-b", "st1")]; n != "rg-b_Microsoft.Storage_storageAccounts_st1.yaml" {
			t.Errorf("the file of st1 in rg-b is %q, want it to name the group", n)
		}
	}
}
