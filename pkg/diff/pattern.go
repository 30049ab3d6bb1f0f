package diff

import (
	"strconv"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// Body paths given by callers (ignore-changes globs, valueFrom secret
// paths, values known only after apply) use the display syntax of plan
// changes: members joined by dots, quoted when they hold dots or brackets
// (tags."a.b", also accepted as tags["a.b"]), array items by index ([0]) or
// by name or id ([default]), and "*" or "[*]" for any member or item.

// parsePattern parses a glob over body paths (ignore-changes).
func parsePattern(s string) (bodypath.Path, error) { return bodypath.ParsePattern(s) }

// itemMatches reports whether an array item matches a keyed pattern
// segment: by the named identifiers, or without names by name or id.
func itemMatches(it any, s bodypath.Seg) bool {
	m, ok := it.(map[string]any)
	if !ok {
		return false
	}
	if len(s.Keys) > 0 {
		return findKeyed([]any{m}, s) == 0
	}
	for _, id := range fallbackIdentifiers {
		if v, ok := m[id]; ok {
			if vs, ok := scalarString(v); ok && strings.EqualFold(strings.TrimRight(vs, "/"), strings.TrimRight(s.Values[0], "/")) {
				return true
			}
		}
	}
	return false
}

// memberName is the object member a pattern segment names, if any.
func memberName(s bodypath.Seg) (string, bool) {
	switch {
	case s.Kind == bodypath.Member:
		return s.Name, true
	case s.Kind == bodypath.Keyed && len(s.Keys) == 0 && len(s.Values) == 1:
		return s.Values[0], true // tags["a.b"]
	}
	return "", false
}

// stripPattern deletes from body (in place) every value the pattern names.
func stripPattern(body any, p bodypath.Path) {
	if len(p) == 0 {
		return
	}
	last := len(p) == 1
	switch t := body.(type) {
	case map[string]any:
		if p[0].Wild() {
			for k, v := range t {
				if last {
					delete(t, k)
				} else {
					stripPattern(v, p[1:])
				}
			}
			return
		}
		name, ok := memberName(p[0])
		if !ok {
			return
		}
		for k, v := range t {
			if strings.EqualFold(k, name) {
				if last {
					delete(t, k)
				} else {
					stripPattern(v, p[1:])
				}
			}
		}
	case []any:
		for i, it := range t {
			if !patternItem(p[0], i, it) {
				continue
			}
			if last {
				t[i] = dropped{}
			} else {
				stripPattern(it, p[1:])
			}
		}
	}
}

// dropped marks an array item removed by stripPattern; withoutDropped drops
// them.
type dropped struct{}

func patternItem(s bodypath.Seg, i int, it any) bool {
	switch s.Kind {
	case bodypath.AnyItem:
		return true
	case bodypath.Member:
		return s.Name == "*"
	case bodypath.Index:
		return s.Index == i
	case bodypath.Keyed:
		// ["0"]: a value that is also a position
		if n, err := strconv.Atoi(s.Values[0]); err == nil && len(s.Keys) == 0 && n == i && s.Values[0][0] != '-' && s.Values[0][0] != '+' {
			return true
		}
		return itemMatches(it, s)
	}
	return false
}

// withoutDropped returns a copy of v without the array items stripPattern
// marked dropped.
func withoutDropped(v any) any {
	return bodypath.Map(v, func(n any) (any, bool) {
		a, ok := n.([]any)
		if !ok || a == nil {
			return nil, false
		}
		out := make([]any, 0, len(a))
		for _, it := range a {
			if _, gone := it.(dropped); !gone {
				out = append(out, withoutDropped(it))
			}
		}
		return out, true
	})
}

// withoutPaths returns a copy of body without the values the patterns
// name; body itself is never modified.
func withoutPaths(body map[string]any, patterns []bodypath.Path) map[string]any {
	if body == nil || len(patterns) == 0 {
		return body
	}
	out := bodypath.CopyMap(body)
	for _, p := range patterns {
		stripPattern(out, p)
	}
	return withoutDropped(out).(map[string]any)
}

// parsePatterns parses caller-given paths, skipping malformed ones (the
// manifest loader validates them with ValidatePath and reports errors).
func parsePatterns(ps []string) []bodypath.Path {
	var out []bodypath.Path
	for _, s := range ps {
		if p, err := parsePattern(s); err == nil && len(p) > 0 {
			out = append(out, p)
		}
	}
	return out
}

// resolve finds the values a pattern names in body and returns their
// paths in the diff's own form (keyed arrays addressed by identifiers), so
// they compare with the paths of changes.
func resolve(f *facts, body map[string]any, p bodypath.Path) []bodypath.Path {
	var out []bodypath.Path
	c := comparer{f: f}
	var walk func(sp schema.Path, v any, rest bodypath.Path)
	walk = func(sp schema.Path, v any, rest bodypath.Path) {
		if len(rest) == 0 {
			out = append(out, c.path.Clone())
			return
		}
		switch t := v.(type) {
		case map[string]any:
			isMap := f.isMap(sp)
			for k, cv := range t {
				name, ok := memberName(rest[0])
				if !rest[0].Wild() && (!ok || !strings.EqualFold(k, name)) {
					continue
				}
				c.push(bodypath.Field(k))
				walk(sp.Child(k, isMap), cv, rest[1:])
				c.pop()
			}
		case []any:
			kind, ids := c.classify(sp, t, nil)
			for i, it := range t {
				if !patternItem(rest[0], i, it) {
					continue
				}
				if m, ok := it.(map[string]any); ok && kind == arrayKeyed {
					c.push(keyedSeg(m, ids))
				} else {
					c.push(bodypath.At(i))
				}
				walk(sp.Item(), it, rest[1:])
				c.pop()
			}
		}
	}
	if body != nil {
		walk("", body, p)
	}
	return out
}

// underAny reports whether path p equals or lies below one of the paths.
func underAny(p bodypath.Path, paths []bodypath.Path) bool {
	for _, q := range paths {
		if hasPrefix(p, q) {
			return true
		}
	}
	return false
}
