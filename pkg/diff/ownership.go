package diff

import (
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// collectionDrift finds the items and keys live holds in the collections D
// declares that are neither in D nor in B (live right after our last
// write) nor owned by another manifest: they were added outside this tool.
// A collection B has no record of (declared since the last write, or a
// baseline from before collections were recorded; see WholeCollectionsKey)
// cannot be judged and is skipped. Each entry's y is the live value.
func collectionDrift(p prepared) []entry {
	c := comparer{f: p.f, mode: modeOwner}
	var out []entry
	var walk func(sp schema.Path, d, b, s any, root bool)
	walk = func(sp schema.Path, d, b, s any, root bool) {
		switch dv := d.(type) {
		case map[string]any:
			sm, ok := s.(map[string]any)
			if !ok {
				return
			}
			bm, _ := b.(map[string]any)
			isMap := p.f.isMap(sp)
			rec, recorded := p.whole[segsKey(c.path)]
			if isMap && !root && len(dv) > 0 && recorded {
				for k, sv := range sm {
					if hasFold(dv, k) || rec.keys[strings.ToLower(k)] {
						continue
					}
					c.push(bodypath.Field(k))
					out = append(out, entry{path: c.path.Clone(), sp: sp.Child(k, true), kind: plan.KindRemove, y: sv})
					c.pop()
				}
			}
			for k, x := range dv {
				if root && envelope[k] {
					continue
				}
				csp := sp.Child(k, isMap)
				if p.f.isReadOnly(csp) {
					continue
				}
				sv, ok := lookupExactFold(sm, k)
				if !ok {
					continue
				}
				bv, _ := lookupExactFold(bm, k)
				c.push(bodypath.Field(k))
				walk(csp, x, bv, sv, false)
				c.pop()
			}
		case []any:
			sa, ok := s.([]any)
			if !ok || len(dv) == 0 {
				return
			}
			kind, ids := c.classify(sp, dv, sa)
			if kind != arrayKeyed {
				return
			}
			ba, _ := b.([]any)
			rec, recorded := p.whole[segsKey(c.path)]
			dIndex := indexItems(dv, ids)
			bIndex := indexItems(ba, ids)
			for _, it := range sa {
				m, ok := it.(map[string]any)
				if !ok {
					continue
				}
				k, ok := liveKey(m, ids)
				if !ok {
					continue // no identifier: cannot be told apart
				}
				if di, ok := dIndex[k]; ok {
					c.push(keyedSeg(di, ids))
					walk(sp.Item(), di, bIndex[k], m, false)
					c.pop()
					continue
				}
				if !recorded || len(rec.ids) == 0 || p.ownedElsewhere(m, c.path) {
					continue
				}
				if rk, ok := liveKey(m, rec.ids); !ok || rec.keys[rk] {
					continue // there right after our write: the service's
				}
				c.push(keyedSeg(m, ids))
				out = append(out, entry{path: c.path.Clone(), sp: sp.Item(), kind: plan.KindRemove, y: m})
				c.pop()
			}
		}
	}
	walk("", p.d, p.b, p.s, true)
	return out
}

// indexItems maps the identifier key of each object item to the item.
func indexItems(a []any, ids []string) map[string]map[string]any {
	out := make(map[string]map[string]any, len(a))
	for _, it := range a {
		m, ok := it.(map[string]any)
		if !ok {
			continue
		}
		if k, ok := liveKey(m, ids); ok {
			if _, dup := out[k]; !dup {
				out[k] = m
			}
		}
	}
	return out
}

func hasFold(m map[string]any, k string) bool {
	_, ok := lookupExactFold(m, k)
	return ok
}

// lookupExactFold reads a member by exact name, else case-insensitively
// (ARM binds member names and tag names case-insensitively).
func lookupExactFold(m map[string]any, k string) (any, bool) {
	if m == nil {
		return nil, false
	}
	if v, ok := m[k]; ok {
		return v, true
	}
	return lookupFold(m, k)
}

// segsKey is the lookup key of a structured path in the writer's sets.
func segsKey(p bodypath.Path) string { return strings.ToLower(p.String()) }

// KeptAfterWrite compares the removals r planned with live as read back
// after the write and returns one note per property Azure did not reset:
// "Azure kept properties.X = true; it is no longer managed". The engine
// prints the notes with the apply result, so the plan never silently
// promised what ARM ignored.
func KeptAfterWrite(r Result, live map[string]any) []string {
	var notes []string
	for _, rm := range r.Removed {
		p, err := parsePattern(rm.Path)
		if err != nil {
			continue
		}
		v, ok := getPattern(live, p)
		if !ok || v == nil {
			continue
		}
		if rm.Default {
			sub := comparer{f: factsFor(nil, nil), mode: modeOwner, strict: true}
			if eq, _ := sub.deepEqual("", p.LastMember(), rm.After, v); eq {
				continue
			}
		}
		shown := formatValue(v)
		if rm.Sensitive {
			shown = plan.SensitiveText
		}
		if rm.Default {
			notes = append(notes, "Azure kept "+rm.Path+" = "+shown+" instead of the default "+formatDefault(rm)+"; it is no longer managed")
			continue
		}
		notes = append(notes, "Azure kept "+rm.Path+" = "+shown+"; it is no longer managed")
	}
	return notes
}

func formatDefault(rm Removal) string {
	if rm.Sensitive {
		return plan.SensitiveText
	}
	return formatValue(rm.After)
}

// getPattern reads the first value a display path names in body.
func getPattern(body map[string]any, p bodypath.Path) (any, bool) {
	var cur any = body
	for _, s := range p {
		switch t := cur.(type) {
		case map[string]any:
			name, ok := memberName(s)
			if !ok {
				return nil, false
			}
			if cur, ok = lookupExactFold(t, name); !ok {
				return nil, false
			}
		case []any:
			found := false
			for i, it := range t {
				if patternItem(s, i, it) {
					cur, found = it, true
					break
				}
			}
			if !found {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return cur, true
}
