package importer

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// betterVersion returns the api-version to import a live body with when
// the one it was read with (ver) does not declare every writable property
// the body has: the first version, newest stable first and then previews,
// whose schema declares them all. "" keeps ver: it declares everything, or
// no version does (then the properties it lacks are left out, and named in
// a warning and the manifest's comment).
func (im *Importer) betterVersion(typ, ver, name string, live map[string]any) string {
	if im.Schemas == nil {
		return ""
	}
	t, _ := im.Schemas.Lookup(typ, ver)
	if t == nil {
		return ""
	}
	missing := undeclared(t, live)
	if len(missing) == 0 {
		return ""
	}
	key := strings.ToLower(typ) + "\x00" + ver + "\x00" + strings.ToLower(name) + "\x00" + strings.Join(missing, "\x00")
	if v, ok := im.betterCache.Load(key); ok {
		return v.(string)
	}
	best := ""
	for _, v := range orderVersions(im.Schemas.Versions(typ)) {
		if v == ver {
			continue
		}
		if ct, _ := im.Schemas.Lookup(typ, v); ct != nil && takesName(ct, name) && len(undeclared(ct, live)) == 0 {
			best = v
			break
		}
	}
	im.betterCache.Store(key, best)
	return best
}

// nameVersion returns the api-version to import a resource named name
// with when the schema of ver allows no such name (a closed list of names:
// Microsoft.Insights/diagnosticSettings@2016-09-01 takes only "service",
// the newer previews any name): the first version, newest stable first,
// that takes it. apply judges the name on the manifest's version, so the
// import must write one under which the resource it read is valid. ""
// keeps ver.
func (im *Importer) nameVersion(typ, ver, name string) string {
	if im.Schemas == nil {
		return ""
	}
	if t, _ := im.Schemas.Lookup(typ, ver); t == nil || takesName(t, name) {
		return ""
	}
	for _, v := range orderVersions(im.Schemas.Versions(typ)) {
		if ct, _ := im.Schemas.Lookup(typ, v); ct != nil && !ct.Fallback() && takesName(ct, name) {
			return v
		}
	}
	return ""
}

// fixedNames is the schema's list of names for typ at ver, for a message.
func (im *Importer) fixedNames(typ, ver string) []string {
	t, _ := im.Schemas.Lookup(typ, ver)
	return t.FixedNames()
}

// takesName reports whether the type's name rule (schema.Type.FixedNames,
// what apply checks) allows name.
func takesName(t *schema.Type, name string) bool {
	names := t.FixedNames()
	return len(names) == 0 || slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, name) })
}

// undeclared lists the paths of live's writable properties that t does not
// declare, sorted. Readonly subtrees, the ARM envelope and free-form
// objects (declared without members) are not looked into.
func undeclared(t *schema.Type, live map[string]any) []string {
	var out []string
	var walk func(segs []string, v any)
	walk = func(segs []string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, cv := range x {
				if cv == nil || (len(segs) == 0 && envelope[k]) || serverOwned[k] {
					continue
				}
				cs := append(slices.Clone(segs), k)
				sp, p := t.Resolve(cs)
				if p == nil {
					out = append(out, displayPath(cs))
					continue
				}
				if p.ReadOnly {
					continue
				}
				if _, isObj := cv.(map[string]any); isObj && len(t.Children(sp)) == 0 {
					continue // free-form object
				}
				walk(cs, cv)
			}
		case []any:
			for i, e := range x {
				walk(append(slices.Clone(segs), "["+strconv.Itoa(i)+"]"), e)
			}
		}
	}
	walk(nil, live)
	sort.Strings(out)
	return out
}
