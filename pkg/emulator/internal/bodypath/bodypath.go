// Package bodypath addresses nodes of decoded JSON bodies with the schema
// package's path syntax: keys joined by ".", "[]" after a key for every
// item of an array ("properties.subnets[].name").
package bodypath

import (
	"strconv"
	"strings"
)

// Node is one value in a body.
type Node struct {
	Concrete string // "properties.subnets[1].name"
	General  string // "properties.subnets[].name"
	Value    any
}

// Addressable reports whether a key can be part of a path: keys holding
// "." or "[" (tag names, URLs used as keys) cannot.
func Addressable(key string) bool { return !strings.ContainsAny(key, ".[]") }

// Walk visits every addressable node below v, parents before children.
// Arrays of objects are descended into; arrays of scalars are leaves.
func Walk(v any, fn func(Node)) { walk(v, "", "", fn) }

func walk(v any, c, g string, fn func(Node)) {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if !Addressable(k) {
				continue
			}
			cc, gg := join(c, k), join(g, k)
			fn(Node{cc, gg, x})
			walk(x, cc, gg, fn)
		}
	case []any:
		for i, x := range t {
			if _, ok := x.(map[string]any); !ok {
				continue
			}
			walk(x, c+"["+strconv.Itoa(i)+"]", g+"[]", fn)
		}
	}
}

func join(p, k string) string {
	if p == "" {
		return k
	}
	return p + "." + k
}

// Parent returns the path of the object holding the last key, "" for the root.
func Parent(p string) string {
	i := strings.LastIndex(p, ".")
	if i < 0 {
		return ""
	}
	return p[:i]
}

// Flatten maps each concrete path to its value.
func Flatten(v any) map[string]any {
	out := map[string]any{}
	Walk(v, func(n Node) { out[n.Concrete] = n.Value })
	return out
}

// Get returns the value at a concrete path.
func Get(v any, concrete string) (any, bool) {
	cur := v
	for _, tok := range strings.Split(concrete, ".") {
		key, idx := splitIndex(tok)
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = m[key]
		if !ok {
			return nil, false
		}
		for _, i := range idx {
			a, ok := cur.([]any)
			if !ok || i < 0 || i >= len(a) {
				return nil, false
			}
			cur = a[i]
		}
	}
	return cur, true
}

// splitIndex splits "subnets[1]" into "subnets", [1]; "[]" gives -1.
func splitIndex(tok string) (string, []int) {
	i := strings.IndexByte(tok, '[')
	if i < 0 {
		return tok, nil
	}
	key, rest := tok[:i], tok[i:]
	var idx []int
	for strings.HasPrefix(rest, "[") {
		j := strings.IndexByte(rest, ']')
		if j < 0 {
			break
		}
		n, err := strconv.Atoi(rest[1:j])
		if err != nil {
			n = -1
		}
		idx = append(idx, n)
		rest = rest[j+1:]
	}
	return key, idx
}

// Parents calls fn for every object that a general path's last key lives
// in, with that key. Missing intermediate objects are not created, and
// arrays ("[]") fan out to every object item.
func Parents(body map[string]any, general string, fn func(obj map[string]any, key string)) {
	toks := strings.Split(general, ".")
	var rec func(cur any, i int)
	rec = func(cur any, i int) {
		key, idx := splitIndex(toks[i])
		m, ok := cur.(map[string]any)
		if !ok {
			return
		}
		if i == len(toks)-1 && len(idx) == 0 {
			fn(m, key)
			return
		}
		next, ok := m[key]
		if !ok {
			return
		}
		items := []any{next}
		for range idx {
			var fan []any
			for _, it := range items {
				if a, ok := it.([]any); ok {
					fan = append(fan, a...)
				}
			}
			items = fan
		}
		if i == len(toks)-1 {
			return
		}
		for _, it := range items {
			rec(it, i+1)
		}
	}
	rec(body, 0)
}
