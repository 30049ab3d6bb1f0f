package schema

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// ImportVersion picks the api-version to import a live body with: the
// newest version (stable ones first, then previews) whose schema declares
// every property the body has that the service does not set itself, so
// that nothing is dropped. When no version declares them all, it returns
// the version that misses the fewest (newest first on a tie) and the
// concrete paths it lacks, so the caller can keep them and say so rather
// than drop them. "" for an unknown type.
func (r *Registry) ImportVersion(typ string, body map[string]any) (version string, undeclared []string) {
	vs := r.Versions(typ)
	if len(vs) == 0 {
		return "", nil
	}
	order := make([]string, 0, len(vs))
	for _, preview := range []bool{false, true} {
		for i := len(vs) - 1; i >= 0; i-- {
			if isPreview(vs[i]) == preview {
				order = append(order, vs[i])
			}
		}
	}
	best, bestMiss := "", []string(nil)
	for _, v := range order {
		t, res := r.Lookup(typ, v)
		if t == nil || res.Nearest {
			continue
		}
		miss := t.Undeclared(body)
		if len(miss) == 0 {
			return v, nil
		}
		if best == "" || len(miss) < len(bestMiss) {
			best, bestMiss = v, miss
		}
	}
	return best, bestMiss
}

func isPreview(v string) bool { return strings.Contains(strings.ToLower(v), "preview") }

// Undeclared lists the concrete paths of a body the type does not
// declare, below members that list theirs (a free-form object accepts
// anything). Paths under a readonly property are not looked into.
func (t *Type) Undeclared(body map[string]any) []string {
	if t == nil {
		return nil
	}
	var out []string
	var walk func(val any, path []string, sp Path)
	walk = func(val any, path []string, sp Path) {
		switch x := val.(type) {
		case map[string]any:
			if sp != "" && len(t.children(sp)) == 0 {
				return
			}
			keys := slices.Sorted(maps.Keys(x))
			for _, k := range keys {
				cp := append(append([]string(nil), path...), k)
				csp, p := t.member(sp, k)
				if p == nil {
					out = append(out, JoinPath(cp))
					continue
				}
				if !p.ReadOnly {
					walk(x[k], cp, csp)
				}
			}
		case []any:
			if t.Properties[string(sp.Item())] == nil {
				return
			}
			for i, item := range x {
				walk(item, append(append([]string(nil), path...), fmt.Sprintf("[%d]", i)), sp.Item())
			}
		}
	}
	walk(body, nil, "")
	return out
}
