package schema

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
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
	var walk func(val any, path []string, sp string)
	walk = func(val any, path []string, sp string) {
		switch x := val.(type) {
		case map[string]any:
			if sp != "" && len(t.children(sp)) == 0 {
				return
			}
			keys := slices.Sorted(maps.Keys(x))
			for _, k := range keys {
				cp := append(append([]string(nil), path...), k)
				csp := joinSchema(sp, k)
				p := t.Properties[csp]
				if p == nil {
					if alt := t.memberFold(sp, k); alt != "" {
						csp, p = alt, t.Properties[alt]
					} else if m := t.Properties[joinSchema(sp, "*")]; m != nil {
						csp, p = joinSchema(sp, "*"), m
					}
				}
				if p == nil {
					out = append(out, JoinPath(cp))
					continue
				}
				if !p.ReadOnly {
					walk(x[k], cp, csp)
				}
			}
		case []any:
			if t.Properties[sp+"[]"] == nil {
				return
			}
			for i, item := range x {
				walk(item, append(append([]string(nil), path...), fmt.Sprintf("[%d]", i)), sp+"[]")
			}
		}
	}
	walk(body, nil, "")
	return out
}

// ProviderVersions reads the api-versions ARM lists for a resource type
// from the body of GET /subscriptions/{id}/providers/{namespace}
// (resourceTypes[].resourceType, apiVersions). The type is matched
// case-insensitively, with or without its namespace. nil, nil when the
// provider does not list the type.
func ProviderVersions(providerBody []byte, typ string) ([]string, error) {
	var doc struct {
		Namespace     string `json:"namespace"`
		ResourceTypes []struct {
			ResourceType string   `json:"resourceType"`
			APIVersions  []string `json:"apiVersions"`
		} `json:"resourceTypes"`
	}
	if err := json.Unmarshal(providerBody, &doc); err != nil {
		return nil, fmt.Errorf("provider response: %w", err)
	}
	want := strings.ToLower(typ)
	if ns := strings.ToLower(doc.Namespace); ns != "" {
		want = strings.TrimPrefix(want, ns+"/")
	}
	for _, rt := range doc.ResourceTypes {
		if strings.ToLower(rt.ResourceType) == want {
			return rt.APIVersions, nil
		}
	}
	return nil, nil
}

// VersionVerdict says, for a user, whether an api-version the schema
// index lacks exists in ARM, given the versions ARM lists for the type
// (ProviderVersions). Callers print it next to the nearest-version
// warning.
func VersionVerdict(typ, version string, armVersions []string) string {
	for _, v := range armVersions {
		if strings.EqualFold(v, version) {
			return fmt.Sprintf("ARM lists api-version %s for %s, but the schema index does not know it yet; its findings come from the nearest known version", version, typ)
		}
	}
	if len(armVersions) == 0 {
		return fmt.Sprintf("ARM lists no api-versions for %s: check the type name and that its provider is registered in the subscription", typ)
	}
	sorted := append([]string(nil), armVersions...)
	sort.Strings(sorted)
	shown := sorted
	if len(shown) > 6 {
		shown = shown[len(shown)-6:]
	}
	return fmt.Sprintf("api-version %s does not exist for %s; ARM lists %d versions, the newest %s", version, typ, len(sorted), strings.Join(shown, ", "))
}
