package diff

import (
	"reflect"
	"sort"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

type leaf struct {
	path []seg
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
				out = append(out, leaf{clonePath(c.path), sp})
				return
			}
			isMap := f.isMap(sp)
			for k, cv := range t {
				if root && envelope[k] {
					continue
				}
				csp := childSchemaPath(sp, k, isMap)
				if f.isReadOnly(csp) {
					continue
				}
				c.push(seg{kind: segField, name: k})
				walk(csp, cv, false)
				c.pop()
			}
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
				out = append(out, leaf{clonePath(c.path), sp})
				return
			}
			kind, ids := c.classify(sp, t, nil)
			if kind != arrayKeyed {
				out = append(out, leaf{clonePath(c.path), sp})
				return
			}
			for _, it := range t {
				m := it.(map[string]any)
				c.push(keyedSeg(m, ids))
				walk(sp+"[]", m, false)
				c.pop()
			}
		default:
			out = append(out, leaf{clonePath(c.path), sp})
		}
	}
	if body != nil {
		walk("", body, true)
	}
	return out
}

func ownedPaths(f *facts, d, l map[string]any) []string {
	seen := map[string]bool{}
	var out []string
	for _, body := range []map[string]any{d, l} {
		for _, lp := range leafPaths(f, body) {
			s := renderOwned(lp.path)
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Owned returns the owned paths of D and L (DESIGN §3) using heuristics
// only; Compute's Result.Owned is the same list refined by the schema.
func Owned(desired, lastApplied map[string]any) []string {
	return ownedPaths(factsFor(nil, nil), desired, lastApplied)
}

// get reads the value at a structured path. Keyed segments match items by
// identifier values case-insensitively, as ARM does for names and IDs.
func get(root map[string]any, p []seg) (any, bool) {
	var cur any = root
	if root == nil {
		return nil, false
	}
	for _, s := range p {
		switch s.kind {
		case segField:
			m, ok := cur.(map[string]any)
			if !ok {
				return nil, false
			}
			if cur, ok = m[s.name]; !ok {
				// members are bound case-insensitively by ARM
				if cur, ok = lookupFold(m, s.name); !ok {
					return nil, false
				}
			}
		case segIndex:
			a, ok := cur.([]any)
			if !ok || s.idx < 0 || s.idx >= len(a) {
				return nil, false
			}
			cur = a[s.idx]
		case segKeyed:
			a, ok := cur.([]any)
			if !ok {
				return nil, false
			}
			i := findKeyed(a, s)
			if i < 0 {
				return nil, false
			}
			cur = a[i]
		}
	}
	return cur, true
}

func findKeyed(a []any, s seg) int {
	for i, it := range a {
		m, ok := it.(map[string]any)
		if !ok {
			continue
		}
		match := true
		for j, id := range s.keys {
			v, ok := identValue(m, id)
			if !ok {
				match = false
				break
			}
			vs, _ := scalarString(v)
			if !strings.EqualFold(strings.TrimRight(vs, "/"), strings.TrimRight(s.vals[j], "/")) {
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

// Project builds a baseline B: the parts of live at the owned paths
// (DESIGN §3), in the owned-path form of Result.Owned. Keyed items keep
// live's order; paths live does not hold are left out.
func Project(live map[string]any, owned []string) map[string]any {
	out := map[string]any{}
	if live == nil {
		return out
	}
	for _, o := range owned {
		p, err := parseOwned(o)
		if err != nil || len(p) == 0 {
			continue
		}
		projectPath(out, live, p)
	}
	// Items were appended in owned-path order; B must keep live's order or
	// a positional array would show as drift right after a write.
	reorderLike(out, live)
	return out
}

// reorderLike sorts every array in dst, a projection of src, into the order
// its items have in src.
func reorderLike(dst, src any) {
	switch d := dst.(type) {
	case map[string]any:
		s, ok := src.(map[string]any)
		if !ok {
			return
		}
		for k, dv := range d {
			sv, ok := s[k]
			if !ok {
				sv, ok = lookupFold(s, k)
			}
			if ok {
				reorderLike(dv, sv)
			}
		}
	case []any:
		s, ok := src.([]any)
		if !ok || len(d) < 1 {
			return
		}
		pos := make([]int, len(d))
		used := make([]bool, len(s))
		for i, it := range d {
			pos[i] = len(s) // unmatched items keep their relative order at the end
			for j, sv := range s {
				if !used[j] && subsetOf(it, sv) {
					pos[i], used[j] = j, true
					reorderLike(it, sv)
					break
				}
			}
		}
		idx := make([]int, len(d))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return pos[idx[a]] < pos[idx[b]] })
		sorted := make([]any, len(d))
		for i, j := range idx {
			sorted[i] = d[j]
		}
		copy(d, sorted)
	}
}

// subsetOf reports whether a (a projection) is contained in b.
func subsetOf(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !subsetOf(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok {
			return false
		}
		for _, v := range x {
			found := false
			for _, w := range y {
				if subsetOf(v, w) {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	default:
		return reflect.DeepEqual(a, b)
	}
}

func projectPath(dst map[string]any, src map[string]any, p []seg) {
	s := p[0]
	if s.kind != segField {
		return
	}
	v, ok := src[s.name]
	if !ok {
		if v, ok = lookupFold(src, s.name); !ok {
			return
		}
	}
	if len(p) == 1 {
		dst[s.name] = deepCopy(v)
		return
	}
	next := p[1]
	switch next.kind {
	case segField:
		sm, ok := v.(map[string]any)
		if !ok {
			return
		}
		dm, ok := dst[s.name].(map[string]any)
		if !ok {
			dm = map[string]any{}
		}
		projectPath(dm, sm, p[1:])
		if len(dm) > 0 || len(p) == 2 {
			dst[s.name] = dm
		}
	case segKeyed, segIndex:
		sa, ok := v.([]any)
		if !ok {
			return
		}
		var i int
		if next.kind == segKeyed {
			i = findKeyed(sa, next)
		} else {
			i = next.idx
		}
		if i < 0 || i >= len(sa) {
			return
		}
		item, ok := sa[i].(map[string]any)
		if !ok {
			return
		}
		da, _ := dst[s.name].([]any)
		// Reuse the projected item if another owned path created it.
		j := -1
		if next.kind == segKeyed {
			j = findKeyed(da, next)
		}
		var ditem map[string]any
		if j >= 0 {
			ditem = da[j].(map[string]any)
		} else {
			ditem = map[string]any{}
			// identifiers always travel with the item so B stays keyable
			for _, id := range next.keys {
				if iv, ok := item[id]; ok && !strings.Contains(id, "/") {
					ditem[id] = deepCopy(iv)
				}
			}
		}
		if len(p) > 2 {
			projectPath(ditem, item, p[2:])
		} else {
			for k, v := range item {
				ditem[k] = deepCopy(v)
			}
		}
		if j < 0 {
			dst[s.name] = append(da, ditem)
		}
	}
}

func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		return deepCopyMap(t)
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = deepCopy(x)
		}
		return out
	}
	return v
}

func deepCopyMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = deepCopy(v)
	}
	return out
}

// HashSecrets returns the L to store: a copy of desired with every secret
// value replaced by its salted HMAC, so state never holds a secret in clear
// yet a later D can be compared with it. Secrets are what the schema marks
// x-ms-secret, credential-named fields (password, clientSecret, ...) and
// everything inside a credential container (protectedSettings, secrets).
func HashSecrets(desired map[string]any, s *schema.Type, key []byte) map[string]any {
	if desired == nil {
		return nil
	}
	f := factsFor(s, nil)
	out := deepCopyMap(desired)
	var walk func(sp string, m map[string]any, under bool)
	var walkVal func(sp, k string, v any, under bool) any
	walkVal = func(sp, k string, v any, under bool) any {
		if v == nil {
			return v
		}
		if isScalar(v) && (under || secretPath(f, sp, k, v)) {
			if str, ok := v.(string); ok && strings.HasPrefix(str, hashPrefix) {
				return v
			}
			return hashValue(key, sp, v)
		}
		switch t := v.(type) {
		case map[string]any:
			walk(sp, t, under || secretContainer(k))
		case []any:
			for i := range t {
				t[i] = walkVal(sp+"[]", k, t[i], under || secretContainer(k))
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
			m[k] = walkVal(childSchemaPath(sp, k, isMap), k, v, under)
		}
	}
	walk("", out, false)
	return out
}
