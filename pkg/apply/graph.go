package apply

import (
	"sort"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// linkDeps fills each item's deps from declared dependencies (parents,
// scopes, references) and from ID containment, limited to items in the run.
// Cycles among manifests are reported by the manifest loader; containment
// edges follow the same parents, so they add none.
func linkDeps(items []*item) {
	byKey := make(map[string]*item, len(items))
	for _, it := range items {
		if it.key == "" {
			it.key = armid.Key(it.id)
		}
		byKey[it.key] = it
	}
	for _, it := range items {
		seen := map[*item]bool{}
		add := func(d *item) {
			if d != nil && d != it && !seen[d] {
				seen[d] = true
				it.deps = append(it.deps, d)
			}
		}
		for _, d := range it.declaredDeps {
			add(byKey[armid.Key(d)])
		}
		// Nearest managed ancestor only: transitive edges add nothing.
		for p := armid.ParentKey(it.id); p != ""; p = armid.ParentKey(p) {
			if d := byKey[p]; d != nil {
				add(d)
				break
			}
		}
		sort.Slice(it.deps, func(i, j int) bool { return it.deps[i].key < it.deps[j].key })
	}
}

// topo returns items with every item after its dependencies. It does not
// look for cycles (the loader did); an item on one is placed once.
func topo(items []*item) []*item {
	out := make([]*item, 0, len(items))
	seen := make(map[*item]bool, len(items))
	var visit func(*item)
	visit = func(it *item) {
		if seen[it] {
			return
		}
		seen[it] = true
		for _, d := range it.deps {
			visit(d)
		}
		out = append(out, it)
	}
	for _, it := range items {
		visit(it)
	}
	return out
}
