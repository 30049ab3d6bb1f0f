package diff

import (
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// Matching the items of two arrays: as a set of scalars, position by
// position, or by identifier fields.

// arrayKind is how the items of an array are matched.
type arrayKind uint8

const (
	arraySet        arrayKind = iota // scalars, order irrelevant
	arrayPositional                  // compared index by index
	arrayKeyed                       // objects matched by identifiers
)

// classify decides how to match array items and, for keyed arrays, by
// which identifier fields.
func (c *comparer) classify(sp schema.Path, xs, ys []any) (arrayKind, []string) {
	if ids, ok := c.f.idents[sp]; ok {
		if len(ids) == 0 {
			return arrayPositional, nil
		}
		if allHaveKeys(xs, ids) && c.othersKeyed(ys, ids) {
			return arrayKeyed, ids
		}
	}
	allMaps, allScalars := true, true
	for _, l := range [][]any{xs, ys} {
		for _, v := range l {
			switch v.(type) {
			case map[string]any:
				allScalars = false
			case []any:
				allScalars, allMaps = false, false
			default:
				allMaps = false
			}
		}
	}
	if allScalars {
		if c.f.ordered[sp] {
			return arrayPositional, nil
		}
		if p := c.f.prop(sp); p != nil && p.Positional {
			return arrayPositional, nil
		}
		return arraySet, nil
	}
	if !allMaps {
		return arrayPositional, nil
	}
	if p := c.f.prop(sp); p != nil {
		if p.Positional {
			return arrayPositional, nil
		}
		if len(p.Identifiers) > 0 && allHaveKeys(xs, p.Identifiers) && c.othersKeyed(ys, p.Identifiers) {
			return arrayKeyed, p.Identifiers
		}
	}
	for _, k := range fallbackIdentifiers {
		ids := []string{k}
		if allHaveKeys(xs, ids) && c.othersKeyed(ys, ids) {
			return arrayKeyed, ids
		}
	}
	return arrayPositional, nil
}

// othersKeyed checks the other side's items. User-side pairs (D vs L) must
// both be keyed; live may hold items without the key or with duplicates
// (server-added entries), which simply match nothing we own.
func (c *comparer) othersKeyed(ys []any, ids []string) bool {
	if c.mode == modeSym {
		return allHaveKeys(ys, ids)
	}
	return true
}

var fallbackIdentifiers = []string{"name", "id"}

func allHaveKeys(items []any, ids []string) bool {
	seen := make(map[string]bool, len(items))
	for _, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			return false
		}
		k, ok := itemKey(m, ids)
		if !ok || seen[k] {
			return false
		}
		seen[k] = true
	}
	return true
}

// identValue reads an identifier, which x-ms-identifiers may give as a
// slash path into the item ("properties/name").
func identValue(m map[string]any, id string) (any, bool) {
	if !strings.Contains(id, "/") {
		v, ok := m[id]
		return v, ok
	}
	var cur any = m
	for _, p := range strings.Split(id, "/") {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = mm[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// itemKey is the matching key of an item: identifier values, lowercased
// because names and IDs are case-insensitive in ARM.
func itemKey(m map[string]any, ids []string) (string, bool) {
	if len(ids) == 1 {
		v, ok := identValue(m, ids[0])
		if !ok {
			return "", false
		}
		s, ok := scalarString(v)
		if !ok || s == "" {
			return "", false
		}
		return strings.ToLower(strings.TrimRight(s, "/")), true
	}
	var b strings.Builder
	for i, id := range ids {
		v, ok := identValue(m, id)
		if !ok {
			return "", false
		}
		s, ok := scalarString(v)
		if !ok {
			return "", false
		}
		if i > 0 {
			b.WriteByte(0)
		}
		b.WriteString(strings.ToLower(s))
	}
	return b.String(), true
}

func keyedSeg(m map[string]any, ids []string) bodypath.Seg {
	s := bodypath.ByKeys(ids, make([]string, len(ids)))
	for i, id := range ids {
		v, _ := identValue(m, id)
		s.Values[i], _ = scalarString(v)
	}
	return s
}

// compareArray compares two arrays, matching their items the way
// classify chooses.
func (c *comparer) compareArray(sp schema.Path, key string, xs, ys []any) {
	kind, ids := c.classify(sp, xs, ys)
	switch kind {
	case arraySet:
		c.compareSet(sp, key, xs, ys)
	case arrayPositional:
		c.comparePositional(sp, key, xs, ys)
	case arrayKeyed:
		c.compareKeyed(sp, ids, xs, ys)
	}
}

// compareSet compares arrays of scalars whose order does not matter.
func (c *comparer) compareSet(sp schema.Path, key string, xs, ys []any) {
	isp := sp.Item()
	if c.setEqual(isp, key, xs, ys) && (c.f.on(RuleScalarSet) || c.positionalEqual(isp, key, xs, ys)) {
		if len(xs) > 0 {
			c.eq(RuleScalarSet)
		} else {
			c.eq(RuleExact)
		}
		return
	}
	if c.mode == modeOwner && !c.strict && c.f.on(RuleServerAdded) && c.subsetMatch(isp, key, xs, ys, false) {
		// Live holds every desired element plus some the server added
		// (AKS appends its own noProxy entries).
		c.eq(RuleServerAdded)
		return
	}
	c.emit(sp, plan.KindChange, xs, ys, false)
}

// comparePositional compares arrays item by item, or objects without
// identifiers in any order where order does not matter.
func (c *comparer) comparePositional(sp schema.Path, key string, xs, ys []any) {
	isp := sp.Item()
	// Objects without identifiers may be matched in any order unless
	// the spec or a plugin says order matters; ordered scalars never.
	unordered := !c.f.ordered[sp] && !allScalar(xs) && !(c.f.prop(sp) != nil && c.f.prop(sp).Positional)
	if allScalar(xs) && allScalar(ys) {
		// An ordered list of values is one value.
		if c.positionalEqual(isp, key, xs, ys) {
			c.eq(RuleExact)
			return
		}
		c.emit(sp, plan.KindChange, xs, ys, false)
		return
	}
	if len(xs) == len(ys) {
		sub := comparer{f: c.f, mode: c.mode, key: c.key, strict: c.strict, projected: c.projected, path: c.path.Clone()}
		for i := range xs {
			sub.push(bodypath.At(i))
			sub.compare(isp, key, xs[i], ys[i], true, true)
			sub.pop()
		}
		if len(sub.out) == 0 {
			c.mergeSub(&sub)
			return
		}
		if c.mode == modeOwner && (unordered || c.projected) && c.f.on(RuleUnkeyedMatch) && c.subsetMatch(isp, key, xs, ys, true) {
			c.eq(RuleUnkeyedMatch)
			return
		}
		c.mergeSub(&sub)
		return
	}
	if c.mode == modeOwner && ((!c.strict && unordered) || c.projected) && c.f.on(RuleServerAdded) && c.subsetMatch(isp, key, xs, ys, true) {
		// Items without identifiers: each desired item is found in
		// live; live's extra items are server-added.
		c.eq(RuleServerAdded)
		return
	}
	c.emit(sp, plan.KindChange, xs, ys, false)
}

// compareKeyed compares arrays of objects matched by the identifier
// fields ids.
func (c *comparer) compareKeyed(sp schema.Path, ids []string, xs, ys []any) {
	isp := sp.Item()
	index := make(map[string]int, len(ys))
	for i, it := range ys {
		m, ok := it.(map[string]any)
		if !ok {
			continue
		}
		if k, ok := itemKey(m, ids); ok {
			if _, dup := index[k]; !dup {
				index[k] = i
			}
		}
	}
	var seen map[string]bool
	if c.mode == modeSym {
		seen = make(map[string]bool, len(xs))
	}
	for _, it := range xs {
		m := it.(map[string]any)
		k, _ := itemKey(m, ids)
		c.push(keyedSeg(m, ids))
		if j, ok := index[k]; ok {
			if seen != nil {
				seen[k] = true
			}
			c.compareObject(isp, m, ys[j].(map[string]any), true, false)
		} else {
			// A new item. Against live too: live returns the identifiers
			// of the items it holds, so an identifier it lacks is a new
			// item: one addition, however write-only its other members are.
			c.emit(isp, plan.KindAdd, m, nil, false)
		}
		c.pop()
	}
	if c.mode == modeSym {
		for _, it := range ys {
			m, _ := it.(map[string]any)
			k, _ := itemKey(m, ids)
			if seen[k] {
				continue
			}
			c.push(keyedSeg(m, ids))
			c.emit(isp, plan.KindRemove, nil, m, false)
			c.pop()
		}
	}
	// modeOwner: live items we do not own are server-added or belong to
	// someone else; they are not compared.
}

func (c *comparer) mergeSub(sub *comparer) {
	c.out = append(c.out, sub.out...)
	c.unverifiable = append(c.unverifiable, sub.unverifiable...)
	if c.explain {
		c.equal = append(c.equal, sub.equal...)
	}
}

// subsetMatch reports whether every item of xs matches a distinct item of
// ys. With asOwner set, items compare with owner semantics (live items may
// carry extra server-added members).
func (c *comparer) subsetMatch(isp schema.Path, key string, xs, ys []any, asOwner bool) bool {
	if len(xs) > len(ys) {
		return false
	}
	used := make([]bool, len(ys))
outer:
	for _, x := range xs {
		for j, y := range ys {
			if used[j] {
				continue
			}
			var ok bool
			if asOwner {
				sub := c.child(comparer{f: c.f, mode: modeOwner, key: c.key, strict: c.strict, projected: c.projected})
				sub.compare(isp, key, x, y, true, true)
				ok = len(sub.out) == 0
			} else {
				ok = c.itemEqual(isp, key, j, x, y)
			}
			if ok {
				used[j] = true
				continue outer
			}
		}
		return false
	}
	return true
}

// positionalEqual compares scalar arrays item by item (the scalar-set rule
// switched off for measurement).
func (c *comparer) positionalEqual(isp schema.Path, key string, xs, ys []any) bool {
	if len(xs) != len(ys) {
		return false
	}
	for i := range xs {
		if !c.itemEqual(isp, key, i, xs[i], ys[i]) {
			return false
		}
	}
	return true
}

// itemEqual compares two scalar items at the path of item i, so a secret
// item's hash is checked under the path pkg/record hashed it at (an
// array item's, not the array's).
func (c *comparer) itemEqual(isp schema.Path, key string, i int, x, y any) bool {
	c.push(bodypath.At(i))
	defer c.pop()
	if ys, isHash := y.(string); isHash && secret.IsHash(ys) && c.key != nil {
		// A secret item of a list (script URIs with a SAS token): L
		// holds its salted hash.
		if xs, ok := x.(string); ok && xs == ys {
			return true
		}
		return c.hashMatches(isp, x, ys)
	}
	ok, _ := c.scalarEqual(isp, key, x, y)
	return ok
}

// setEqual compares scalar arrays as multisets under the scalar rules.
func (c *comparer) setEqual(isp schema.Path, key string, xs, ys []any) bool {
	return len(xs) == len(ys) && c.subsetMatch(isp, key, xs, ys, false)
}
