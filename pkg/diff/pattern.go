package diff

import (
	"fmt"
	"strconv"
	"strings"
)

// Body paths given by callers (ignore-changes globs, valueFrom secret
// paths, values known only after apply) use the display syntax of plan
// changes: members joined by dots, quoted when they hold dots or brackets
// (tags."a.b", also accepted as tags["a.b"]), array items by index ([0]) or
// by name or id ([default]), and "*" or "[*]" for any member or item.

// JoinPath appends one object member to a body path in the display syntax,
// quoting the member when needed: JoinPath("tags", "a.b") is tags."a.b".
func JoinPath(base, member string) string {
	if base == "" {
		return quoteIfNeeded(member)
	}
	return base + "." + quoteIfNeeded(member)
}

// IndexPath appends an array index to a body path: IndexPath("a", 2) is a[2].
func IndexPath(base string, i int) string {
	return base + "[" + strconv.Itoa(i) + "]"
}

// ValidatePath reports whether s is a well-formed body path or glob, so
// annotation values can be rejected at load time with a clear message.
func ValidatePath(s string) error {
	p, err := parsePattern(s)
	if err != nil {
		return err
	}
	if len(p) == 0 {
		return fmt.Errorf("empty path")
	}
	return nil
}

// segAll matches every item of an array ("[*]") in a pattern.
const segAll segKind = 100

// parsePattern parses the display syntax. A bracketed token without "="
// is kept as a keyed segment without identifier names: it matches an item
// by index, name or id, or a member of a map.
func parsePattern(s string) ([]seg, error) {
	s = strings.TrimSpace(s)
	var out []seg
	i := 0
	readToken := func(stop string) (string, bool, error) {
		if i < len(s) && s[i] == '"' {
			j := i + 1
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(s) {
				return "", true, fmt.Errorf("unterminated quote in %q", s)
			}
			v, err := strconv.Unquote(s[i : j+1])
			if err != nil {
				return "", true, fmt.Errorf("bad quoted segment in %q: %w", s, err)
			}
			i = j + 1
			return v, true, nil
		}
		j := i
		for j < len(s) && !strings.ContainsRune(stop, rune(s[j])) {
			j++
		}
		v := s[i:j]
		i = j
		return v, false, nil
	}
	for i < len(s) {
		switch s[i] {
		case '.':
			i++
			if i == 1 || i >= len(s) || s[i] == '.' || s[i] == '[' {
				return nil, fmt.Errorf("empty member name in %q", s)
			}
		case '[':
			i++
			var keys, vals []string
			quoted := false
			for {
				tok, q, err := readToken("=,]")
				if err != nil {
					return nil, err
				}
				quoted = quoted || q
				if i < len(s) && s[i] == '=' {
					i++
					v, _, err := readToken(",]")
					if err != nil {
						return nil, err
					}
					keys, vals = append(keys, tok), append(vals, v)
				} else {
					vals = append(vals, tok)
				}
				if i >= len(s) {
					return nil, fmt.Errorf("expected ] in %q", s)
				}
				if s[i] == ']' {
					i++
					break
				}
				i++
			}
			switch {
			case len(keys) == 0 && len(vals) == 1 && vals[0] == "*" && !quoted:
				out = append(out, seg{kind: segAll})
			case len(keys) == 0 && len(vals) == 1 && !quoted && isIndex(vals[0]):
				n, _ := strconv.Atoi(vals[0])
				out = append(out, seg{kind: segIndex, idx: n})
			case len(keys) == 0 && len(vals) == 1:
				out = append(out, seg{kind: segKeyed, vals: vals})
			case len(keys) == len(vals):
				out = append(out, seg{kind: segKeyed, keys: keys, vals: vals})
			default:
				return nil, fmt.Errorf("mixed item key in %q: give every identifier as name=value or a single name", s)
			}
		default:
			name, _, err := readToken(".[")
			if err != nil {
				return nil, err
			}
			if name == "" {
				return nil, fmt.Errorf("empty member name in %q", s)
			}
			out = append(out, seg{kind: segField, name: name})
		}
	}
	return out, nil
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// wild reports whether a pattern segment is "*" or "[*]".
func wild(s seg) bool {
	return s.kind == segAll || (s.kind == segField && s.name == "*")
}

// itemMatches reports whether an array item matches a keyed pattern
// segment: by the named identifiers, or without names by name or id.
func itemMatches(it any, s seg) bool {
	m, ok := it.(map[string]any)
	if !ok {
		return false
	}
	if len(s.keys) > 0 {
		return findKeyed([]any{m}, s) == 0
	}
	for _, id := range fallbackIdentifiers {
		if v, ok := m[id]; ok {
			if vs, ok := scalarString(v); ok && strings.EqualFold(strings.TrimRight(vs, "/"), strings.TrimRight(s.vals[0], "/")) {
				return true
			}
		}
	}
	return false
}

// memberName is the object member a pattern segment names, if any.
func memberName(s seg) (string, bool) {
	switch {
	case s.kind == segField:
		return s.name, true
	case s.kind == segKeyed && len(s.keys) == 0 && len(s.vals) == 1:
		return s.vals[0], true // tags["a.b"]
	}
	return "", false
}

// stripPattern deletes from body (in place) every value the pattern names.
func stripPattern(body any, p []seg) {
	if len(p) == 0 {
		return
	}
	last := len(p) == 1
	switch t := body.(type) {
	case map[string]any:
		if wild(p[0]) {
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

// dropped marks an array item removed by stripPattern; compact drops them.
type dropped struct{}

func patternItem(s seg, i int, it any) bool {
	switch s.kind {
	case segAll:
		return true
	case segField:
		return s.name == "*"
	case segIndex:
		return s.idx == i
	case segKeyed:
		if len(s.keys) == 0 && isIndex(s.vals[0]) {
			n, _ := strconv.Atoi(s.vals[0])
			if n == i {
				return true
			}
		}
		return itemMatches(it, s)
	}
	return false
}

// compact removes the items stripPattern marked.
func compact(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, cv := range t {
			t[k] = compact(cv)
		}
		return t
	case []any:
		out := t[:0]
		for _, it := range t {
			if _, ok := it.(dropped); ok {
				continue
			}
			out = append(out, compact(it))
		}
		return out
	}
	return v
}

// withoutPaths returns a copy of body without the values the patterns
// name; body itself is never modified.
func withoutPaths(body map[string]any, patterns [][]seg) map[string]any {
	if body == nil || len(patterns) == 0 {
		return body
	}
	out := deepCopyMap(body)
	for _, p := range patterns {
		stripPattern(out, p)
	}
	compact(out)
	return out
}

// parsePatterns parses caller-given paths, skipping malformed ones (the
// manifest loader validates them with ValidatePath and reports errors).
func parsePatterns(ps []string) [][]seg {
	var out [][]seg
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
func resolve(f *facts, body map[string]any, p []seg) [][]seg {
	var out [][]seg
	c := comparer{f: f}
	var walk func(sp string, v any, rest []seg)
	walk = func(sp string, v any, rest []seg) {
		if len(rest) == 0 {
			out = append(out, clonePath(c.path))
			return
		}
		switch t := v.(type) {
		case map[string]any:
			isMap := f.isMap(sp)
			for k, cv := range t {
				name, ok := memberName(rest[0])
				if !wild(rest[0]) && (!ok || !strings.EqualFold(k, name)) {
					continue
				}
				c.push(seg{kind: segField, name: k})
				walk(childSchemaPath(sp, k, isMap), cv, rest[1:])
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
					c.push(seg{kind: segIndex, idx: i})
				}
				walk(sp+"[]", it, rest[1:])
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
func underAny(p []seg, paths [][]seg) bool {
	for _, q := range paths {
		if hasPrefix(p, q) {
			return true
		}
	}
	return false
}
