package diff

import (
	"fmt"
	"strconv"
	"strings"
)

// segKind distinguishes the three ways a path can step into a body.
type segKind uint8

const (
	segField segKind = iota // object member
	segIndex                // positional array item
	segKeyed                // array item identified by identifier values
)

// seg is one step of a structured path. Keyed segments carry both the
// identifier field names and values so a path found in one body (D or L) can
// be located in another (B or S) whose array order differs.
type seg struct {
	kind segKind
	name string
	idx  int
	keys []string
	vals []string
}

// needsQuote reports whether a field name or key value must be quoted to
// keep the rendered path unambiguous (tags keys often contain dots).
func needsQuote(s string) bool {
	if s == "" {
		return true
	}
	return strings.ContainsAny(s, ".[]=,\"\\ ")
}

func quoteIfNeeded(s string) string {
	if needsQuote(s) {
		return strconv.Quote(s)
	}
	return s
}

// renderPath renders the display form used in plan changes:
// properties.subnets[default].properties.addressPrefix, tags["a.b"], rules[0].
func renderPath(p []seg) string {
	return render(p, false)
}

// renderOwned renders the self-describing form used for owned paths:
// keyed items carry their identifier names ([name=default]) so Project can
// find them again without a schema.
func renderOwned(p []seg) string {
	return render(p, true)
}

func render(p []seg, withKeys bool) string {
	var b strings.Builder
	for i, s := range p {
		switch s.kind {
		case segField:
			if i > 0 {
				b.WriteByte('.')
			}
			// Member names with dots or brackets (tag keys, odata names)
			// are quoted: tags."hidden-link:/x". A quoted value inside
			// brackets is always an array item key.
			b.WriteString(quoteIfNeeded(s.name))
		case segIndex:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.idx))
			b.WriteByte(']')
		case segKeyed:
			b.WriteByte('[')
			for j := range s.vals {
				if j > 0 {
					b.WriteByte(',')
				}
				if withKeys {
					b.WriteString(quoteIfNeeded(s.keys[j]))
					b.WriteByte('=')
				}
				b.WriteString(quoteIfNeeded(s.vals[j]))
			}
			b.WriteByte(']')
		}
	}
	return b.String()
}

// parseOwned parses the owned-path form produced by renderOwned.
func parseOwned(s string) ([]seg, error) {
	var out []seg
	i := 0
	readToken := func(stop string) (string, error) {
		if i < len(s) && s[i] == '"' {
			// quoted string: find the closing quote honouring escapes
			j := i + 1
			for j < len(s) {
				if s[j] == '\\' {
					j += 2
					continue
				}
				if s[j] == '"' {
					break
				}
				j++
			}
			if j >= len(s) {
				return "", fmt.Errorf("unterminated quote in %q", s)
			}
			v, err := strconv.Unquote(s[i : j+1])
			if err != nil {
				return "", fmt.Errorf("bad quoted segment in %q: %w", s, err)
			}
			i = j + 1
			return v, nil
		}
		j := i
		for j < len(s) && !strings.ContainsRune(stop, rune(s[j])) {
			j++
		}
		v := s[i:j]
		i = j
		return v, nil
	}
	for i < len(s) {
		switch s[i] {
		case '.':
			i++
			continue
		case '[':
			i++
			var keys, vals []string
			plain := true
			for {
				tok, err := readToken("=,]")
				if err != nil {
					return nil, err
				}
				if i < len(s) && s[i] == '=' {
					plain = false
					i++
					v, err := readToken(",]")
					if err != nil {
						return nil, err
					}
					keys = append(keys, tok)
					vals = append(vals, v)
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
				i++ // ','
			}
			if plain && len(vals) == 1 {
				if n, err := strconv.Atoi(vals[0]); err == nil {
					out = append(out, seg{kind: segIndex, idx: n})
					continue
				}
			}
			if len(keys) != len(vals) {
				return nil, fmt.Errorf("keyed segment without identifier names in %q", s)
			}
			out = append(out, seg{kind: segKeyed, keys: keys, vals: vals})
		default:
			name, _ := readToken(".[")
			out = append(out, seg{kind: segField, name: name})
		}
	}
	return out, nil
}

// schemaPathOf maps a structured path to the schema path syntax of
// pkg/schema ("[]" for array items, "*" for map values).
func schemaPathOf(p []seg, isMap func(prefix string) bool) string {
	var b strings.Builder
	for _, s := range p {
		switch s.kind {
		case segField:
			prefix := b.String()
			if isMap != nil && isMap(prefix) {
				b.WriteString(".*")
				continue
			}
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.name)
		default:
			b.WriteString("[]")
		}
	}
	return b.String()
}

// childSchemaPath extends a schema path by one object member.
func childSchemaPath(parent, name string, parentIsMap bool) string {
	if parentIsMap {
		if parent == "" {
			return "*"
		}
		return parent + ".*"
	}
	if parent == "" {
		return name
	}
	return parent + "." + name
}

func lastField(p []seg) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i].kind == segField {
			return p[i].name
		}
	}
	return ""
}

func clonePath(p []seg) []seg {
	out := make([]seg, len(p))
	copy(out, p)
	return out
}

// hasPrefix reports whether path a starts with (or equals) path b.
func hasPrefix(a, b []seg) bool {
	if len(b) > len(a) {
		return false
	}
	for i := range b {
		if !segEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

func segEqual(a, b seg) bool {
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case segField:
		return a.name == b.name
	case segIndex:
		return a.idx == b.idx
	default:
		if len(a.vals) != len(b.vals) {
			return false
		}
		for i := range a.vals {
			if !strings.EqualFold(a.vals[i], b.vals[i]) {
				return false
			}
		}
		return true
	}
}
