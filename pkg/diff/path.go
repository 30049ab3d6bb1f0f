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
