package apply

import (
	"slices"
	"sort"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
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

// depths gives each item its distance from the items that depend on
// nothing: 0 for those, else one more than its deepest dependency. Items
// of one depth do not depend on each other. An item on a cycle (the loader
// refuses those) counts its cycle once.
func depths(items []*item) map[*item]int {
	depth := make(map[*item]int, len(items))
	var d func(*item) int
	d = func(it *item) int {
		if v, ok := depth[it]; ok {
			return v
		}
		depth[it] = 0
		m := 0
		for _, x := range it.deps {
			if v := d(x) + 1; v > m {
				m = v
			}
		}
		depth[it] = m
		return m
	}
	for _, it := range items {
		d(it)
	}
	return depth
}

// planChunkSize bounds how many resources a plan reads and decides at once.
// A chunk's live and recorded bodies are in memory together; a decided
// resource gives its bodies up unless it will be written or is read by
// another. 1,000 keeps a plan of 10,000 small resources within its memory
// budget and still lets the ARM client list ten collections in parallel
// (BENCHMARKS.md, Plan10000Memory).
const planChunkSize = 1000

// planChunks splits items into chunks to read and decide in turn:
// dependencies in earlier chunks (by depth), and a chunk is cut only
// between collections (same parent, type and api-version), so collection
// reads are never split.
func planChunks(items []*item) [][]*item {
	depth := depths(items)
	coll := make(map[*item]string, len(items))
	for _, it := range items {
		coll[it] = armid.ParentKey(it.id) + "|" + strings.ToLower(it.typ) + "@" + strings.ToLower(it.ver)
	}
	sorted := slices.Clone(items)
	sort.SliceStable(sorted, func(a, b int) bool {
		x, y := sorted[a], sorted[b]
		if depth[x] != depth[y] {
			return depth[x] < depth[y]
		}
		return coll[x] < coll[y]
	})
	var out [][]*item
	start := 0
	for i := 1; i <= len(sorted); i++ {
		if i == len(sorted) || depth[sorted[i]] != depth[sorted[start]] ||
			(i-start >= planChunkSize && coll[sorted[i]] != coll[sorted[i-1]]) {
			out = append(out, sorted[start:i])
			start = i
		}
	}
	return out
}

// enclosing calls visit with every path prefix of an ID key that ends
// before a '/', longest first (the keys of whatever may contain it: a
// parent, a scope, a resource group), until visit returns false. Keys
// compare without parsing, so this is cheap enough for every resource of
// a large plan.
func enclosing(key string, visit func(prefix string) bool) {
	for i := strings.LastIndexByte(key, '/'); i > 0; i = strings.LastIndexByte(key[:i], '/') {
		if !visit(key[:i]) {
			return
		}
	}
}

func recordsOf(items []*item) []*state.Record {
	out := make([]*state.Record, 0, len(items))
	for _, it := range items {
		if it.record != nil {
			out = append(out, it.record)
		}
	}
	return out
}
