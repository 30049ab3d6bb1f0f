package diff

import (
	"fmt"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
)

// Paths inside the diff are bodypath.Path values. Changes print the
// display form (properties.subnets[default].properties.addressPrefix);
// owned paths use the owned form, where keyed items carry their
// identifier names ([name=default]) so Project can find them again
// without a schema.

// parseOwned parses an owned path as Result.Owned writes it. Items must be
// positions or carry identifier names: a path a user wrote is a pattern
// (parsePattern), not an owned path.
func parseOwned(s string) (bodypath.Path, error) {
	p, err := bodypath.Parse(s)
	if err != nil {
		return nil, err
	}
	for _, sg := range p {
		switch {
		case sg.Kind == bodypath.Member, sg.Kind == bodypath.Index:
		case sg.Kind == bodypath.Keyed && len(sg.Keys) == len(sg.Values):
		default:
			return nil, fmt.Errorf("owned path %q: items must be positions or name=value identifiers", s)
		}
	}
	return p, nil
}

// schemaPathOf maps a structured path to the schema path syntax of
// pkg/schema ("[]" for array items, "*" for map values).
func schemaPathOf(p bodypath.Path, isMap func(prefix string) bool) string {
	var b strings.Builder
	for _, s := range p {
		switch s.Kind {
		case bodypath.Member:
			prefix := b.String()
			if isMap != nil && isMap(prefix) {
				b.WriteString(".*")
				continue
			}
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.Name)
		default:
			b.WriteString("[]")
		}
	}
	return b.String()
}

// ChildSchemaPath extends a schema path by one object member: a member of
// a map (additionalProperties) is "*", any other member its name.
func ChildSchemaPath(parent, name string, parentIsMap bool) string {
	return childSchemaPath(parent, name, parentIsMap)
}

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

// hasPrefix reports whether path a starts with (or equals) path b.
func hasPrefix(a, b bodypath.Path) bool {
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

// segEqual compares segments as ARM matches items: identifier values
// case-insensitively, whatever names they were found under.
func segEqual(a, b bodypath.Seg) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case bodypath.Member:
		return a.Name == b.Name
	case bodypath.Index:
		return a.Index == b.Index
	case bodypath.Keyed:
		if len(a.Values) != len(b.Values) {
			return false
		}
		for i := range a.Values {
			if !strings.EqualFold(a.Values[i], b.Values[i]) {
				return false
			}
		}
	}
	return true
}
