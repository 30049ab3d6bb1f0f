package diff

import (
	"sort"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
)

// Project builds a baseline B: the parts of live at the owned paths, in the
// owned-path form of Result.Owned. Items keep live's order; paths live does
// not hold are left out. For each declared collection (an owned path ending
// in [*] or .*) B also records, under WholeCollectionsKey, the keys of every
// item live holds: those the service added at our write are then never
// mistaken for drift. It walks live once, matching items by hashed
// identifiers: linear in the size of live plus the owned paths.
func Project(live map[string]any, owned []string) map[string]any {
	out := map[string]any{}
	if live == nil {
		return out
	}
	root := &pnode{}
	var colls []bodypath.Path
	var markers []string
	for _, o := range owned {
		c := strings.TrimSuffix(strings.TrimSuffix(o, "[*]"), ".*")
		p, err := parseOwned(c)
		if err != nil || len(p) == 0 || p[0].Kind != bodypath.Member {
			continue
		}
		if c != o {
			colls, markers = append(colls, p), append(markers, o)
			continue
		}
		root.insert(p)
	}
	if v, ok := root.project(live); ok {
		if m, ok := v.(map[string]any); ok {
			out = m
		}
	}
	if rec := root.recordCollections(live, colls, markers); len(rec) > 0 {
		out[WholeCollectionsKey] = rec
	}
	return out
}

// WholeCollectionsKey is the member of a baseline that records, per
// declared collection (its owned path with the [*] or .* marker), the keys
// of the items live held right after our write: {"ids": [...], "keys":
// [...]} for keyed arrays, {"keys": [...]} for maps. Only recorded
// collections are judged for items added outside this tool: a baseline
// without the record cannot tell them from those the service added.
const WholeCollectionsKey = "$collections"

// collRecord is one recorded collection.
type collRecord struct {
	ids  []string // nil for a map
	keys map[string]bool
}

// recordCollections lists the item keys of each declared collection.
func (n *pnode) recordCollections(live map[string]any, colls []bodypath.Path, markers []string) map[string]any {
	rec := map[string]any{}
	cache := map[string]itemIndex{}
	for i, p := range colls {
		v, ok := getIndexed(live, p, cache)
		if !ok {
			continue
		}
		var keys []any
		entry := map[string]any{}
		switch t := v.(type) {
		case map[string]any:
			for k := range t {
				keys = append(keys, strings.ToLower(k))
			}
		case []any:
			ids := n.idsAt(p)
			for _, it := range t {
				if m, ok := it.(map[string]any); ok {
					if k, ok := liveKey(m, ids); ok {
						keys = append(keys, k)
					}
				}
			}
			idv := make([]any, len(ids))
			for j, id := range ids {
				idv[j] = id
			}
			entry["ids"] = idv
		default:
			continue
		}
		sort.Slice(keys, func(a, b int) bool { return keys[a].(string) < keys[b].(string) })
		if keys == nil {
			keys = []any{}
		}
		entry["keys"] = keys
		rec[markers[i]] = entry
	}
	return rec
}

// idsAt is the identifier list the owned item paths use in the array at
// p, name when none does.
func (n *pnode) idsAt(p bodypath.Path) []string {
	cur := n
	for _, s := range p {
		if cur == nil {
			break
		}
		if s.Kind == bodypath.Member {
			cur = cur.fields[s.Name]
			continue
		}
		var next *pnode
		for _, g := range cur.keyed {
			if c := g.items[normKey(s.Values)]; c != nil {
				next = c
			}
		}
		cur = next
	}
	if cur != nil && len(cur.keyed) > 0 {
		return cur.keyed[0].ids
	}
	return []string{"name"}
}

// wholeCollections reads and removes the collection record from b.
func wholeCollections(b map[string]any) (map[string]any, map[string]collRecord) {
	raw, has := b[WholeCollectionsKey]
	if !has {
		return b, nil
	}
	out := make(map[string]any, len(b))
	for k, v := range b {
		if k != WholeCollectionsKey {
			out[k] = v
		}
	}
	recs, _ := raw.(map[string]any)
	set := make(map[string]collRecord, len(recs))
	for marker, v := range recs {
		e, ok := v.(map[string]any)
		if !ok {
			continue
		}
		p, err := parseOwned(strings.TrimSuffix(strings.TrimSuffix(marker, "[*]"), ".*"))
		if err != nil {
			continue
		}
		cr := collRecord{keys: map[string]bool{}}
		if ids, ok := e["ids"].([]any); ok {
			for _, id := range ids {
				if s, ok := id.(string); ok {
					cr.ids = append(cr.ids, s)
				}
			}
		}
		keys, _ := e["keys"].([]any)
		for _, k := range keys {
			if s, ok := k.(string); ok {
				cr.keys[s] = true
			}
		}
		set[segsKey(p)] = cr
	}
	return out, set
}

// pnode is one step of a trie of owned paths.
type pnode struct {
	leaf   bool // copy live's whole value here
	fields map[string]*pnode
	index  map[int]*pnode
	keyed  []*keyGroup
}

// keyGroup holds the keyed children matched by one identifier list.
type keyGroup struct {
	ids   []string
	items map[string]*pnode
}

func (n *pnode) insert(p bodypath.Path) {
	cur := n
	for i, s := range p {
		if cur.leaf {
			return
		}
		var next *pnode
		switch s.Kind {
		case bodypath.Member:
			if cur.fields == nil {
				cur.fields = map[string]*pnode{}
			}
			if next = cur.fields[s.Name]; next == nil {
				next = &pnode{}
				cur.fields[s.Name] = next
			}
		case bodypath.Index:
			if cur.index == nil {
				cur.index = map[int]*pnode{}
			}
			if next = cur.index[s.Index]; next == nil {
				next = &pnode{}
				cur.index[s.Index] = next
			}
		case bodypath.Keyed:
			g := cur.group(s.Keys)
			k := normKey(s.Values)
			if next = g.items[k]; next == nil {
				next = &pnode{}
				g.items[k] = next
			}
		}
		if i == len(p)-1 {
			next.leaf = true
			next.fields, next.index, next.keyed = nil, nil, nil
		}
		cur = next
	}
}

func (n *pnode) group(ids []string) *keyGroup {
	for _, g := range n.keyed {
		if equalStrings(g.ids, ids) {
			return g
		}
	}
	g := &keyGroup{ids: ids, items: map[string]*pnode{}}
	n.keyed = append(n.keyed, g)
	return g
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// normKey is the matching key of identifier values: ARM names and IDs are
// case-insensitive, IDs may carry a trailing slash, and region names are
// answered with or without spaces ("Central US EUAP", "centraluseuap").
func normKey(vals []string) string {
	var b strings.Builder
	for i, v := range vals {
		if i > 0 {
			b.WriteByte(0)
		}
		b.WriteString(strings.ReplaceAll(strings.ToLower(strings.TrimRight(v, "/")), " ", ""))
	}
	return b.String()
}

// liveKey is normKey of an item's identifier values.
func liveKey(m map[string]any, ids []string) (string, bool) {
	vals := make([]string, len(ids))
	for i, id := range ids {
		v, ok := identValue(m, id)
		if !ok {
			return "", false
		}
		if vals[i], ok = scalarString(v); !ok {
			return "", false
		}
	}
	return normKey(vals), true
}

// hasLeafField reports whether a member of n is owned as a whole; the
// object holding it is then kept even when live lacks that member.
func (n *pnode) hasLeafField() bool {
	for _, c := range n.fields {
		if c.leaf {
			return true
		}
	}
	return false
}

func (n *pnode) project(v any) (any, bool) {
	if n.leaf {
		return bodypath.Copy(v), true
	}
	switch t := v.(type) {
	case map[string]any:
		if len(n.fields) == 0 {
			return nil, false
		}
		out := map[string]any{}
		for name, c := range n.fields {
			key := name
			cv, ok := t[name]
			if !ok {
				// B mirrors live, spelling included: drift compares B with
				// S, where map keys match exactly.
				if key, ok = foldKey(t, name); !ok {
					continue
				}
				cv = t[key]
			}
			if pv, ok := c.project(cv); ok {
				out[key] = pv
			}
		}
		return out, len(out) > 0 || n.hasLeafField()
	case []any:
		return n.projectArray(t)
	}
	return nil, false
}

func (n *pnode) projectArray(a []any) (any, bool) {
	if len(n.index) == 0 && len(n.keyed) == 0 {
		return nil, false
	}
	used := map[*pnode]bool{}
	var out []any
	for i, it := range a {
		m, ok := it.(map[string]any)
		if !ok {
			continue
		}
		var item map[string]any
		take := func(c *pnode, ids []string) {
			if c == nil || used[c] {
				return
			}
			used[c] = true
			if item == nil {
				item = map[string]any{}
			}
			// identifiers always travel with the item so B stays keyable
			for _, id := range ids {
				if iv, ok := m[id]; ok && !strings.Contains(id, "/") {
					item[id] = bodypath.Copy(iv)
				}
			}
			if pv, ok := c.project(m); ok {
				if pm, ok := pv.(map[string]any); ok {
					mergeInto(item, pm)
				}
			}
		}
		take(n.index[i], nil)
		for _, g := range n.keyed {
			if k, ok := liveKey(m, g.ids); ok {
				take(g.items[k], g.ids)
			}
		}
		if item != nil {
			out = append(out, item)
		}
	}
	if len(out) == 0 {
		return nil, false
	}
	return out, true
}

// mergeInto adds src's members to dst, merging nested objects.
func mergeInto(dst, src map[string]any) {
	for k, v := range src {
		dm, ok1 := dst[k].(map[string]any)
		sm, ok2 := v.(map[string]any)
		if ok1 && ok2 {
			mergeInto(dm, sm)
			continue
		}
		dst[k] = v
	}
}

// foldKey finds the member of m whose name matches k case-insensitively.
func foldKey(m map[string]any, k string) (string, bool) {
	for mk := range m {
		if strings.EqualFold(mk, k) {
			return mk, true
		}
	}
	return "", false
}
