package diff

import (
	"strings"
)

// Project builds a baseline B: the parts of live at the owned paths, in the
// owned-path form of Result.Owned. A path ending in [*] or .* keeps the whole
// collection live holds (what the service added at our write included).
// Items keep live's order; paths live does not hold are left out. It walks
// live once, matching items by hashed identifiers: linear in the size of
// live plus the owned paths.
func Project(live map[string]any, owned []string) map[string]any {
	out := map[string]any{}
	if live == nil {
		return out
	}
	root := &pnode{}
	var whole []any
	for _, o := range owned {
		// A whole-collection marker owns the collection itself.
		if c := strings.TrimSuffix(strings.TrimSuffix(o, "[*]"), ".*"); c != o {
			o = c
			whole = append(whole, c)
		}
		p, err := parseOwned(o)
		if err != nil || len(p) == 0 || p[0].kind != segField {
			continue
		}
		root.insert(p)
	}
	if v, ok := root.project(live); ok {
		if m, ok := v.(map[string]any); ok {
			out = m
		}
	}
	if len(whole) > 0 {
		out[WholeCollectionsKey] = whole
	}
	return out
}

// WholeCollectionsKey is the member of a baseline listing the collections
// it holds whole (owned paths, as in Result.Owned without the [*] or .*
// marker). Only those are judged for items added outside this tool: a
// baseline without it (written before collections were recorded whole)
// cannot tell such items from those the service added.
const WholeCollectionsKey = "$wholeCollections"

// wholeCollections reads and removes the list from a copy of b.
func wholeCollections(b map[string]any) (map[string]any, map[string]bool) {
	raw, ok := b[WholeCollectionsKey].([]any)
	if !ok {
		if _, has := b[WholeCollectionsKey]; !has {
			return b, nil
		}
	}
	set := map[string]bool{}
	for _, v := range raw {
		s, ok := v.(string)
		if !ok {
			continue
		}
		if p, err := parseOwned(s); err == nil {
			set[segsKey(p)] = true
		}
	}
	out := make(map[string]any, len(b))
	for k, v := range b {
		if k != WholeCollectionsKey {
			out[k] = v
		}
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

func (n *pnode) insert(p []seg) {
	cur := n
	for i, s := range p {
		if cur.leaf {
			return
		}
		var next *pnode
		switch s.kind {
		case segField:
			if cur.fields == nil {
				cur.fields = map[string]*pnode{}
			}
			if next = cur.fields[s.name]; next == nil {
				next = &pnode{}
				cur.fields[s.name] = next
			}
		case segIndex:
			if cur.index == nil {
				cur.index = map[int]*pnode{}
			}
			if next = cur.index[s.idx]; next == nil {
				next = &pnode{}
				cur.index[s.idx] = next
			}
		case segKeyed:
			g := cur.group(s.keys)
			k := normKey(s.vals)
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
// case-insensitive and IDs may carry a trailing slash.
func normKey(vals []string) string {
	var b strings.Builder
	for i, v := range vals {
		if i > 0 {
			b.WriteByte(0)
		}
		b.WriteString(strings.ToLower(strings.TrimRight(v, "/")))
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
		return deepCopy(v), true
	}
	switch t := v.(type) {
	case map[string]any:
		if len(n.fields) == 0 {
			return nil, false
		}
		out := map[string]any{}
		for name, c := range n.fields {
			cv, ok := t[name]
			if !ok {
				if cv, ok = lookupFold(t, name); !ok {
					continue
				}
			}
			if pv, ok := c.project(cv); ok {
				out[name] = pv
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
					item[id] = deepCopy(iv)
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
