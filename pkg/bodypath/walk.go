package bodypath

import "strings"

// The walkers below address bodies the way the emulator's learned profiles
// do: members matched exactly, positions for concrete paths and [] for
// general ones.

// Node is one object member found by Walk.
type Node struct {
	Concrete string // properties.subnets[1].name
	General  string // properties.subnets[].name
	Value    any
}

// addressable reports whether Walk visits a member: keys holding "." or
// brackets (tag names, URLs used as keys) are data, not structure, and are
// left out of learned paths.
func addressable(key string) bool { return !strings.ContainsAny(key, ".[]") }

// Walk visits every addressable member below v, parents before children.
// Arrays of objects are descended into; arrays of scalars are leaves.
func Walk(v any, fn func(Node)) { walk(v, nil, nil, fn) }

func walk(v any, c, g []byte, fn func(Node)) {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if !addressable(k) {
				continue
			}
			s := Field(k)
			cc := s.appendTo(c[:len(c):len(c)], len(c) == 0, false)
			gg := s.appendTo(g[:len(g):len(g)], len(g) == 0, false)
			fn(Node{string(cc), string(gg), x})
			walk(x, cc, gg, fn)
		}
	case []any:
		gg := Seg{Kind: Item}.appendTo(g[:len(g):len(g)], false, false)
		for i, x := range t {
			if _, ok := x.(map[string]any); !ok {
				continue
			}
			walk(x, At(i).appendTo(c[:len(c):len(c)], false, false), gg, fn)
		}
	}
}

// Leaves calls fn with every value below v that is neither an object nor
// an array (nulls included), and its path: every member and every item,
// whatever its key. fn must not keep p beyond the call without Clone.
func Leaves(v any, fn func(p Path, v any)) { leaves(v, nil, fn) }

func leaves(v any, p Path, fn func(Path, any)) {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			leaves(x, append(p, Field(k)), fn)
		}
	case []any:
		for i, x := range t {
			leaves(x, append(p, At(i)), fn)
		}
	default:
		fn(p, v)
	}
}

// Flatten maps the concrete path of every member Walk visits to its value.
func Flatten(v any) map[string]any {
	out := map[string]any{}
	Walk(v, func(n Node) { out[n.Concrete] = n.Value })
	return out
}

// Parent returns the rendered path without its last segment, "" for a
// path of one segment or one that does not parse.
func Parent(path string) string {
	p, err := Parse(path)
	if err != nil || len(p) < 2 {
		return ""
	}
	return p[:len(p)-1].Display()
}

// Get returns the value at a concrete path: members matched exactly,
// items by position.
func Get(v any, path string) (any, bool) {
	p, err := Parse(path)
	if err != nil {
		return nil, false
	}
	return p.Get(v)
}

// Get returns the value at p below v: members matched exactly, items by
// position. Other segments find nothing.
func (p Path) Get(v any) (any, bool) {
	cur := v
	for _, s := range p {
		switch s.Kind {
		case Member:
			m, ok := cur.(map[string]any)
			if !ok {
				return nil, false
			}
			if cur, ok = m[s.Name]; !ok {
				return nil, false
			}
		case Index:
			a, ok := cur.([]any)
			if !ok || s.Index < 0 || s.Index >= len(a) {
				return nil, false
			}
			cur = a[s.Index]
		default:
			return nil, false
		}
	}
	return cur, true
}

// Parents calls fn with every object that holds the last member of path,
// and that member's name. Items ([], [*]) fan out to every object item, a
// position to that item only; missing objects are not created. A path
// that does not parse or does not end on a member calls nothing.
func Parents(body map[string]any, path string, fn func(obj map[string]any, key string)) {
	p, err := Parse(path)
	if err != nil || len(p) == 0 || p[len(p)-1].Kind != Member {
		return
	}
	parents(body, p, fn)
}

func parents(cur any, p Path, fn func(map[string]any, string)) {
	s := p[0]
	switch s.Kind {
	case Member:
		m, ok := cur.(map[string]any)
		if !ok {
			return
		}
		if len(p) == 1 {
			fn(m, s.Name)
			return
		}
		if next, ok := m[s.Name]; ok {
			parents(next, p[1:], fn)
		}
	case Item, AnyItem:
		a, _ := cur.([]any)
		for _, it := range a {
			parents(it, p[1:], fn)
		}
	case Index:
		if a, ok := cur.([]any); ok && s.Index >= 0 && s.Index < len(a) {
			parents(a[s.Index], p[1:], fn)
		}
	}
}
