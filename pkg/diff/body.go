package diff

import (
	"sort"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

type leaf struct {
	path bodypath.Path
	sp   schema.Path
}

// leafPaths lists the owned leaves of a user-side body: scalars, scalar and
// positional arrays, empty objects; keyed array items are descended into.
// Envelope and readonly paths are skipped: they are never owned.
func leafPaths(f *facts, body map[string]any) []leaf {
	var out []leaf
	walkOwnable(f, body, func(p bodypath.Path, sp schema.Path, v any, keyed, root bool) {
		switch t := v.(type) {
		case map[string]any:
			if len(t) > 0 || root {
				return
			}
		case []any:
			if keyed {
				return
			}
			if len(t) == 0 {
				// An empty array of objects owns no items (children managed
				// elsewhere stay untouched); an empty scalar array is a value.
				if p := f.prop(sp.Item()); p != nil && p.Type == schema.TypeObject {
					return
				}
				if f.children[sp] {
					return
				}
			}
		}
		out = append(out, leaf{p.Clone(), sp})
	})
	return out
}

// walkOwnable calls visit for every value of a user-side body that can be
// owned, parents before children, with its path and schema path: members
// of objects (ownableMembers) and the items of keyed arrays (keyed says
// visit sees such an array; its items follow).
func walkOwnable(f *facts, body map[string]any, visit func(p bodypath.Path, sp schema.Path, v any, keyed, root bool)) {
	if body == nil {
		return
	}
	c := comparer{f: f}
	var walk func(sp schema.Path, v any, root bool)
	walk = func(sp schema.Path, v any, root bool) {
		switch t := v.(type) {
		case map[string]any:
			visit(c.path, sp, v, false, root)
			c.ownableMembers(sp, t, root, func(csp schema.Path, cv any) { walk(csp, cv, false) })
		case []any:
			var ids []string
			keyed := false
			if len(t) > 0 {
				var kind arrayKind
				kind, ids = c.classify(sp, t, nil)
				keyed = kind == arrayKeyed
			}
			visit(c.path, sp, v, keyed, root)
			if !keyed {
				return
			}
			for _, it := range t {
				m := it.(map[string]any)
				c.push(keyedSeg(m, ids))
				walk(sp.Item(), m, false)
				c.pop()
			}
		default:
			visit(c.path, sp, v, false, root)
		}
	}
	walk("", body, true)
}

// ownableMembers calls fn for every member of a user-side object that can
// be owned, with c.path extended by it: envelope members of the root and
// read-only properties never are.
func (c *comparer) ownableMembers(sp schema.Path, m map[string]any, root bool, fn func(csp schema.Path, v any)) {
	isMap := c.f.isMap(sp)
	for k, v := range m {
		if root && envelope[k] {
			continue
		}
		csp := sp.Child(k, isMap)
		if c.f.isReadOnly(csp) {
			continue
		}
		c.push(bodypath.Field(k))
		fn(csp, v)
		c.pop()
	}
}

func ownedPaths(f *facts, d, l map[string]any) []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, body := range []map[string]any{d, l} {
		for _, lp := range leafPaths(f, body) {
			add(lp.path.String())
		}
	}
	// Declared collections are owned whole: B keeps every item live holds
	// right after our write, so the items the service added then are
	// never mistaken for drift.
	for _, cp := range declaredCollections(f, d) {
		add(cp)
	}
	sort.Strings(out)
	return out
}

// declaredCollections lists the non-empty keyed arrays and maps of a
// user-side body in owned-path form with a whole-collection marker:
// properties.subnets[*], tags.*.
func declaredCollections(f *facts, body map[string]any) []string {
	var out []string
	walkOwnable(f, body, func(p bodypath.Path, sp schema.Path, v any, keyed, root bool) {
		switch t := v.(type) {
		case map[string]any:
			if len(t) > 0 && !root && f.isMap(sp) {
				out = append(out, p.String()+".*")
			}
		case []any:
			if keyed {
				out = append(out, p.String()+"[*]")
			}
		}
	})
	return out
}

// Owned returns the owned paths of D and L (docs/architecture.md) using heuristics
// only; Compute's Result.Owned is the same list refined by the schema.
func Owned(desired, lastApplied map[string]any) []string {
	return ownedPaths(factsFor(nil, nil), desired, lastApplied)
}

// get reads the value at a structured path. Keyed segments match items by
// identifier values case-insensitively, as ARM does for names and IDs.
func get(root map[string]any, p bodypath.Path) (any, bool) {
	return getIndexed(root, p, nil)
}

// getIndexed is get with keyed lookups through an index per array, cached
// by the array's path, so recording nested collections of a large array
// stays linear. A nil cache searches each array instead.
func getIndexed(root map[string]any, p bodypath.Path, cache map[string]itemIndex) (any, bool) {
	if root == nil {
		return nil, false
	}
	var cur any = root
	for i, s := range p {
		switch s.Kind {
		case bodypath.Member:
			m, ok := cur.(map[string]any)
			if !ok {
				return nil, false
			}
			// members are bound case-insensitively by ARM
			if cur, ok = lookupExactFold(m, s.Name); !ok {
				return nil, false
			}
		case bodypath.Index:
			a, ok := cur.([]any)
			if !ok || s.Index < 0 || s.Index >= len(a) {
				return nil, false
			}
			cur = a[s.Index]
		case bodypath.Keyed:
			a, ok := cur.([]any)
			if !ok {
				return nil, false
			}
			j := -1
			if cache == nil {
				j = findKeyed(a, s)
			} else {
				j = cachedItem(a, p[:i], s, cache)
			}
			if j < 0 {
				return nil, false
			}
			cur = a[j]
		}
	}
	return cur, true
}

// cachedItem finds a keyed item through the index of its array.
func cachedItem(a []any, at bodypath.Path, s bodypath.Seg, cache map[string]itemIndex) int {
	ck := segsKey(at) + "\x00" + strings.Join(s.Keys, "\x00")
	idx, ok := cache[ck]
	if !ok {
		idx = keyIndex(a, s.Keys)
		cache[ck] = idx
	}
	if j, ok := idx[normKey(s.Values)]; ok {
		return j
	}
	return -1
}

func findKeyed(a []any, s bodypath.Seg) int {
	for i, it := range a {
		m, ok := it.(map[string]any)
		if !ok {
			continue
		}
		match := true
		for j, id := range s.Keys {
			v, ok := identValue(m, id)
			if !ok {
				match = false
				break
			}
			vs, _ := scalarString(v)
			if !strings.EqualFold(strings.TrimRight(vs, "/"), strings.TrimRight(s.Values[j], "/")) {
				match = false
				break
			}
		}
		if match {
			return i
		}
	}
	return -1
}

// CopyValue returns a deep copy of a JSON value (maps, arrays, scalars):
// bodypath.Copy, kept for the packages that call it through diff.
func CopyValue(v any) any { return bodypath.Copy(v) }

// CopyBody returns a deep copy of a body; nil stays nil.
func CopyBody(m map[string]any) map[string]any { return bodypath.CopyMap(m) }
