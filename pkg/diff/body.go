package diff

import (
	"sort"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

type leaf struct {
	path bodypath.Path
	sp   string
}

// leafPaths lists the owned leaves of a user-side body: scalars, scalar and
// positional arrays, empty objects; keyed array items are descended into.
// Envelope and readonly paths are skipped: they are never owned.
func leafPaths(f *facts, body map[string]any) []leaf {
	var out []leaf
	c := comparer{f: f}
	var walk func(sp string, v any, root bool)
	walk = func(sp string, v any, root bool) {
		switch t := v.(type) {
		case map[string]any:
			if len(t) == 0 && !root {
				out = append(out, leaf{c.path.Clone(), sp})
				return
			}
			c.ownableMembers(sp, t, root, func(csp string, cv any) { walk(csp, cv, false) })
		case []any:
			if len(t) == 0 {
				// An empty array of objects owns no items (children managed
				// elsewhere stay untouched); an empty scalar array is a value.
				if p := f.prop(sp + "[]"); p != nil && p.Type == schema.TypeObject {
					return
				}
				if f.children[sp] {
					return
				}
				out = append(out, leaf{c.path.Clone(), sp})
				return
			}
			kind, ids := c.classify(sp, t, nil)
			if kind != arrayKeyed {
				out = append(out, leaf{c.path.Clone(), sp})
				return
			}
			for _, it := range t {
				m := it.(map[string]any)
				c.push(keyedSeg(m, ids))
				walk(sp+"[]", m, false)
				c.pop()
			}
		default:
			out = append(out, leaf{c.path.Clone(), sp})
		}
	}
	if body != nil {
		walk("", body, true)
	}
	return out
}

// ownableMembers calls fn for every member of a user-side object that can
// be owned, with c.path extended by it: envelope members of the root and
// read-only properties never are.
func (c *comparer) ownableMembers(sp string, m map[string]any, root bool, fn func(csp string, v any)) {
	isMap := c.f.isMap(sp)
	for k, v := range m {
		if root && envelope[k] {
			continue
		}
		csp := childSchemaPath(sp, k, isMap)
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
	c := comparer{f: f}
	var walk func(sp string, v any, root bool)
	walk = func(sp string, v any, root bool) {
		switch t := v.(type) {
		case map[string]any:
			if len(t) > 0 && !root && f.isMap(sp) {
				out = append(out, c.path.String()+".*")
			}
			c.ownableMembers(sp, t, root, func(csp string, cv any) { walk(csp, cv, false) })
		case []any:
			if len(t) == 0 {
				return
			}
			kind, ids := c.classify(sp, t, nil)
			if kind != arrayKeyed {
				return
			}
			out = append(out, c.path.String()+"[*]")
			for _, it := range t {
				m := it.(map[string]any)
				c.push(keyedSeg(m, ids))
				walk(sp+"[]", m, false)
				c.pop()
			}
		}
	}
	if body != nil {
		walk("", body, true)
	}
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

// HashSecrets returns the L (or B) to store: a copy of body with every
// secret value replaced by its salted HMAC (secret.Hash), so state never
// holds a secret in clear yet a later D can be compared with it. Secrets
// are what the schema marks secret, string values under credential names
// (secret.Name), everything inside a credential container
// (secret.Container), and the values at secretPaths (valueFrom, in the
// display syntax of bodypath.JoinMember).
func HashSecrets(body map[string]any, s *schema.Type, key []byte, secretPaths ...string) map[string]any {
	if body == nil {
		return nil
	}
	f := factsFor(s, nil)
	out := bodypath.CopyMap(body)
	var forced []bodypath.Path
	for _, p := range parsePatterns(secretPaths) {
		forced = append(forced, resolve(f, out, p)...)
	}
	c := comparer{f: f}
	var walk func(sp string, m map[string]any, under bool)
	var walkVal func(sp, k string, v any, under bool) any
	walkVal = func(sp, k string, v any, under bool) any {
		if v == nil {
			return v
		}
		under = under || underAny(c.path, forced)
		if isScalar(v) && (under || secretPath(f, sp, k, v) || secret.UnderContainer(c.path)) {
			if secret.IsHash(v) {
				return v
			}
			return secret.Hash(key, sp, v)
		}
		switch t := v.(type) {
		case map[string]any:
			walk(sp, t, under || secretContainer(k))
		case []any:
			kind, ids := c.classify(sp, t, nil)
			for i := range t {
				m, ok := t[i].(map[string]any)
				if ok && kind == arrayKeyed {
					c.push(keyedSeg(m, ids))
				} else {
					c.push(bodypath.At(i))
				}
				t[i] = walkVal(sp+"[]", k, t[i], under || secretContainer(k))
				c.pop()
			}
		}
		return v
	}
	walk = func(sp string, m map[string]any, under bool) {
		isMap := f.isMap(sp)
		for k, v := range m {
			if under && (k == "name" || k == "id" || k == "type") {
				continue // identifiers of secret entries are not secret
			}
			c.push(bodypath.Field(k))
			m[k] = walkVal(childSchemaPath(sp, k, isMap), k, v, under)
			c.pop()
		}
	}
	walk("", out, false)
	return out
}
