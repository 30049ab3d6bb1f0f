package bodypath

import "fmt"

// ParsePattern parses a glob over body paths, as ignore-changes takes
// them: a path whose members or items may be "*". A bracketed value
// without "=" matches an item by index, name or id, or a member of a map;
// several values need their identifier names, since a pattern matches by
// one name or id only.
func ParsePattern(s string) (Path, error) {
	p, err := Parse(s)
	if err != nil {
		return nil, err
	}
	for _, sg := range p {
		if sg.Kind == Keyed && len(sg.Keys) == 0 && len(sg.Values) > 1 {
			return nil, fmt.Errorf("body path %q: give each identifier of an item as name=value", s)
		}
	}
	return p, nil
}
