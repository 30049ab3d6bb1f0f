package emulator

import (
	"encoding/json"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
)

// materialize turns a request body into the live body ARM would keep:
// server fields stripped, then (in corpus mode) the type's quirks applied:
// values normalised, location display names, ID re-casing, secrets and
// write-only input dropped, server defaults added, arrays reordered.
// prev is the current live body, whose server-generated values (GUIDs,
// defaults) survive a replace, as they do in ARM.
func (s *Server) materialize(p armid.Path, f typeFacts, req, prev map[string]any) map[string]any {
	body := deepCopy(req)
	if body == nil {
		body = map[string]any{}
	}
	stripServerFields(body)
	// ARM's own rules hold in every quirks mode: readonly input is
	// ignored, write-only input is never returned (writeonly.go).
	dropReadOnly(f.schema, body, prev)
	hideWriteOnly(p.Type(), f.schema, body)
	if s.profile == nil {
		return body
	}
	tp := f.profile
	if tp == nil {
		return body
	}
	loc, _ := req["location"].(string)
	tc := templateCtx{id: s.canonicalID(p), name: p.Name(), sub: p.Subscription, group: p.ResourceGroup, location: loc, now: s.now()}
	for path, m := range tp.Values {
		bodypath.Parents(body, path, func(obj map[string]any, key string) {
			if v, ok := obj[key]; ok {
				if nv, ok := mapValue(m, v); ok {
					obj[key] = tc.instantiate(nv)
				}
			}
		})
	}
	if tp.DropNulls {
		dropNulls(body)
	}
	for _, path := range tp.LocationPaths {
		bodypath.Parents(body, path, func(obj map[string]any, key string) {
			if v, ok := obj[key].(string); ok {
				if d := s.profile.DisplayLocation(v); d != "" {
					obj[key] = d
				}
			}
		})
	}
	for path, rule := range tp.IDPaths {
		bodypath.Parents(body, path, func(obj map[string]any, key string) {
			if v, ok := obj[key].(string); ok && strings.HasPrefix(v, "/") {
				obj[key] = ApplyCase(rule, v)
			}
		})
	}
	for _, path := range tp.Dropped {
		bodypath.Parents(body, path, func(obj map[string]any, key string) {
			if m, ok := obj[key].(map[string]any); ok && len(m) > 0 && fillsUnder(tp, path) {
				// The recordings dropped it when it was sent empty and
				// filled it when it was not (AKS addonProfiles).
				return
			}
			delete(obj, key)
		})
	}
	addDefaults(tp, tc, body, prev)
	for _, path := range tp.SortedPaths {
		bodypath.Parents(body, path, func(obj map[string]any, key string) {
			if a, ok := obj[key].([]any); ok {
				sortArray(a)
			}
		})
	}
	return body
}

// addDefaults adds the keys the server adds, shallowest first so that a
// whole added object is not then filled key by key.
func addDefaults(tp *TypeProfile, tc templateCtx, body, prev map[string]any) {
	paths := make([]string, 0, len(tp.Added))
	for k := range tp.Added {
		paths = append(paths, k)
	}
	sort.Slice(paths, func(i, j int) bool {
		di, dj := strings.Count(paths[i], "."), strings.Count(paths[j], ".")
		if di != dj {
			return di < dj
		}
		return paths[i] < paths[j]
	})
	if _, has := body["properties"]; !has && addsUnderProperties(tp, paths) {
		// A service fills its defaults and generated values (a Log
		// Analytics workspace's customerId) whether the PUT carried an
		// empty properties object or none: templates create workspaces
		// with a location alone and read customerId back.
		body["properties"] = map[string]any{}
	}
	for _, path := range paths {
		if ownsDefault(tp.Type, path) {
			continue // the defaults table decides (rpdefaults.go)
		}
		tmpl := tp.Added[path]
		bodypath.Parents(body, path, func(obj map[string]any, key string) {
			if _, ok := obj[key]; ok {
				return
			}
			if prev != nil && !strings.Contains(path, "[]") {
				if v, ok := bodypath.Get(prev, path); ok {
					obj[key] = deepCopy(v)
					return
				}
			}
			obj[key] = tc.instantiate(tmpl)
		})
	}
}

// addsUnderProperties says whether the profile adds a key under
// properties that the defaults table does not own.
func addsUnderProperties(tp *TypeProfile, paths []string) bool {
	for _, p := range paths {
		if strings.HasPrefix(p, "properties.") && !ownsDefault(tp.Type, p) {
			return true
		}
	}
	return false
}

// mapValue looks a request value up in a put→get value map.
func mapValue(m map[string]string, v any) (any, bool) {
	k, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	out, ok := m[string(k)]
	if !ok {
		if s, isStr := v.(string); isStr {
			out, ok = m["ci:"+strings.ToLower(s)]
		}
	}
	if !ok {
		return nil, false
	}
	var nv any
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	if err := dec.Decode(&nv); err != nil {
		return nil, false
	}
	return nv, true
}

// sortArray orders scalars by their JSON text and objects by "name".
func sortArray(a []any) {
	key := func(v any) string {
		if m, ok := v.(map[string]any); ok {
			if n, ok := m["name"].(string); ok {
				return strings.ToLower(n)
			}
		}
		b, _ := json.Marshal(v)
		return string(b)
	}
	sort.SliceStable(a, func(i, j int) bool { return key(a[i]) < key(a[j]) })
}

// templateCtx fills the placeholders of profile templates.
type templateCtx struct {
	id, name, sub, group, location string
	now                            time.Time
}

// instantiate fills the placeholders in every string of a template value.
func (c templateCtx) instantiate(v any) any {
	return bodypath.MapStrings(v, func(t string) string {
		if !strings.Contains(t, "{{") {
			return t
		}
		r := strings.NewReplacer(
			"{{id}}", c.id, "{{name}}", c.name, "{{sub}}", c.sub, "{{rg}}", c.group,
			"{{location}}", c.location, "{{now}}", c.now.UTC().Format(time.RFC3339Nano))
		out := r.Replace(t)
		for strings.Contains(out, "{{guid}}") {
			out = strings.Replace(out, "{{guid}}", newGUID(), 1)
		}
		return out
	})
}

// checkCreateOnly rejects a write that changes the location or a property
// the spec marks create-only, comparing normalised values as ARM's RPs do.
func (s *Server) checkCreateOnly(p armid.Path, f typeFacts, live, next map[string]any) *armError {
	if a, ok := live["location"].(string); ok {
		if b, ok := next["location"].(string); ok && !s.sameLocation(a, b) {
			if p.Kind == armid.PathResourceGroup {
				return newError(http.StatusBadRequest, "InvalidResourceGroupLocation",
					"Invalid resource group location '%s'. The Resource group already exists in location '%s'.", LocationKey(b), LocationKey(a))
			}
			return newError(http.StatusBadRequest, "InvalidResourceLocation",
				"The resource '%s' already exists in location '%s' in resource group '%s'. A resource with the same name cannot be created in location '%s'. Please select a new resource name.",
				p.Name(), LocationKey(a), p.ResourceGroup, LocationKey(b))
		}
	}
	if f.schema == nil {
		return nil
	}
	paths := make([]string, 0)
	for path, prop := range f.schema.Properties {
		if prop.CreateOnly && !prop.ReadOnly && !strings.ContainsAny(path, "[*") {
			paths = append(paths, path)
		}
	}
	sort.Strings(paths)
	for _, path := range paths {
		a, ok1 := bodypath.Get(live, path)
		b, ok2 := bodypath.Get(next, path)
		if ok1 && ok2 && !looselyEqual(a, b) {
			return newError(http.StatusBadRequest, "PropertyChangeNotAllowed",
				"Changing property '%s' is not allowed. Delete and re-create '%s' to change it.", path, p.Name())
		}
	}
	return nil
}

func (s *Server) sameLocation(a, b string) bool {
	fold := func(x string) string {
		k := LocationKey(x)
		for name, disp := range s.profile.Locations {
			if LocationKey(disp) == k {
				return name
			}
		}
		return k
	}
	return fold(a) == fold(b)
}

// looselyEqual compares as ARM RPs usually do: strings case-insensitively,
// numbers by value whatever their JSON type.
func looselyEqual(a, b any) bool {
	if reflect.DeepEqual(a, b) {
		return true
	}
	as, aok := a.(string)
	bs, bok := b.(string)
	if aok && bok {
		return strings.EqualFold(as, bs)
	}
	aj, _ := json.Marshal(a)
	bj, _ := json.Marshal(b)
	return strings.EqualFold(strings.Trim(string(aj), `"`), strings.Trim(string(bj), `"`))
}

// dropNulls removes null-valued keys at every depth.
func dropNulls(v any) {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if x == nil {
				delete(t, k)
				continue
			}
			dropNulls(x)
		}
	case []any:
		for _, x := range t {
			dropNulls(x)
		}
	}
}

// fillsUnder reports whether the profile adds values below path.
func fillsUnder(tp *TypeProfile, path string) bool {
	for k := range tp.Added {
		if strings.HasPrefix(k, path+".") {
			return true
		}
	}
	return false
}
