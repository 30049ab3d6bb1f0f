package bodypath

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseRef parses the path of a reference, ${ref:NAME.PATH}: members
// separated by dots, [n] for an array item, [key] or ["key"] for a member
// whose name holds dots. Unlike Parse it knows no item selectors: a
// bracket is a position or a member name. A position keeps its text in
// Name, so that a reference can also select the member "0" of an object
// (LookupRef).
func ParseRef(p string) (Path, error) {
	var out Path
	i := 0
	for i < len(p) {
		switch p[i] {
		case '.':
			i++
			if i == len(p) || p[i] == '.' {
				return nil, fmt.Errorf("empty segment in path %q", p)
			}
		case '[':
			j := strings.IndexByte(p[i:], ']')
			if j < 0 {
				return nil, fmt.Errorf("unclosed [ in path %q", p)
			}
			inner := p[i+1 : i+j]
			i += j + 1
			if n, err := strconv.Atoi(inner); err == nil {
				out = append(out, Seg{Kind: Index, Index: n, Name: inner})
				continue
			}
			if uq, err := strconv.Unquote(inner); err == nil {
				inner = uq
			}
			if inner == "" {
				return nil, fmt.Errorf("empty [] in path %q", p)
			}
			out = append(out, Field(inner))
		default:
			j := i
			for j < len(p) && p[j] != '.' && p[j] != '[' {
				j++
			}
			out = append(out, Field(p[i:j]))
			i = j
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("empty path")
	}
	return out, nil
}

// LookupRef returns the value a path from ParseRef selects in a decoded
// JSON body: members by name, array items by position; a position on an
// object selects the member of that name.
func (p Path) LookupRef(body any) (any, bool) {
	cur := body
	for _, s := range p {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := memberFold(c, s.Name)
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			if s.Kind != Index || s.Index < 0 || s.Index >= len(c) {
				return nil, false
			}
			cur = c[s.Index]
		default:
			return nil, false
		}
	}
	return cur, true
}

// memberFold is obj's member name: the exact spelling, else the one
// member that differs from it only in case. A template's reference()
// reads properties without regard to case (dnsSettings.FQDN reads fqdn,
// PrimaryEndpoints.Blob reads primaryEndpoints.blob), and references
// converted from templates keep the template's spelling. Two members
// that match only in case make it ambiguous: none.
func memberFold(obj map[string]any, name string) (any, bool) {
	if v, ok := obj[name]; ok {
		return v, true
	}
	var found any
	n := 0
	for k, v := range obj {
		if strings.EqualFold(k, name) {
			found, n = v, n+1
		}
	}
	return found, n == 1
}
