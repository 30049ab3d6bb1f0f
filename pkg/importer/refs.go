package importer

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// build minimises every body, then writes references: an ID of another
// resource imported in the same run becomes ${ref:TYPE/NAME} (also as the
// start of a longer ID: ${ref:...}/subnets/default), the current
// subscription becomes ${subscriptionId}, and each resource is placed with
// spec.resourceGroup, spec.parent or spec.scope rather than its full ID.
func (im *Importer) build(res *Result) {
	rs := res.Resources
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].order < rs[j].order })
	for _, r := range rs {
		im.minimize(r)
	}
	nameSecrets(res)
	x := newRefIndex(rs, res.Subscription)
	x.breakCycles()
	for _, r := range rs {
		r.Body = x.rewriteValue(r.Body, r).(map[string]any)
		r.Placement = x.placement(r)
	}
}

// nameSecrets names the environment variable of every secret placeholder:
// NAME_FIELD from the resource's name and the property's, upper-cased,
// with _2, _3, ... when two would share a name in one import.
func nameSecrets(res *Result) {
	used := map[string]int{}
	res.envValues = map[string]string{}
	for _, r := range res.Resources {
		for _, p := range r.Placeholders {
			name := envName(r.Name, p.Path)
			used[name]++
			if n := used[name]; n > 1 {
				name = fmt.Sprintf("%s_%d", name, n)
			}
			p.SetEnv(name)
			res.envValues[name] = p.Value
		}
	}
}

func (im *Importer) minimize(r *Resource) {
	if im.Schemas != nil && !strings.EqualFold(r.Type, armid.ResourceGroupType) {
		t, resn := im.Schemas.Lookup(r.Type, r.APIVersion)
		if resn.Warning != "" {
			im.warnOnce(r.Type+"@"+r.APIVersion, "%s@%s: %s", r.Type, r.APIVersion, resn.Warning)
		}
		if t != nil {
			r.schema = t
			if t.Name != "" && strings.EqualFold(t.Name, r.Type) {
				r.Type = t.Name
			}
		}
	}
	if im.Plugins != nil {
		r.plugin = im.Plugins(r.Type)
	}
	live, dropped := withoutChildren(r.Live, r.inline)
	m := minimize(live, r.schema, r.plugin, r.ID, r.prior)
	r.Body, r.Secrets, r.Dropped, r.Placeholders = m.Body, m.Secrets, dropped, m.Placeholders

	r.Invalid, r.Unknown = nil, nil
	im.dropInvalid(r)
	// Nothing is left out silently: the manifest's comment lists these too.
	for _, p := range r.Unknown {
		im.warnf("%s: %s left out (unmanaged): the schema of %s@%s does not declare it; import --keep-unknown keeps it, --api-version picks another version",
			r.ID, p, r.Type, r.APIVersion)
	}
	for _, p := range r.Invalid {
		im.warnf("%s: left out (unmanaged): %s", r.ID, p)
	}
}

// dropInvalid leaves out live values the schema says a manifest cannot
// hold (a value outside a closed enum, a wrong JSON type: the specs are
// sometimes stricter than the service), and, unless KeepUnknown, the
// properties the type's schema does not declare (server-side fields of
// other api-versions: nobody writes them, and every diff would warn about
// them). pkg/manifest would refuse the whole manifest for an invalid
// value; left out, a property is simply unmanaged, and the manifest says so.
func (im *Importer) dropInvalid(r *Resource) {
	validate := im.Validator
	if validate == nil {
		validate = manifest.DefaultSchemaValidator
	}
	for range 5 {
		issues, _ := validate(r.Type, r.APIVersion, r.Name, withSecretValues(r.Body))
		removed := false
		for _, is := range issues {
			// Judged by the issue's kind and severity, never its wording.
			unknown := is.Severity == manifest.SchemaWarning && is.Kind == string(schema.KindUnknown)
			if unknown && im.Options.KeepUnknown {
				continue
			}
			if is.Severity != manifest.SchemaError && is.Severity != manifest.SchemaIgnored && !unknown {
				continue
			}
			if removeConcrete(r.Body, is.Path) {
				removed = true
				switch {
				case unknown:
					r.Unknown = append(r.Unknown, is.Path)
				case is.Severity == manifest.SchemaError:
					r.Invalid = append(r.Invalid, is.Path+": "+is.Message)
				}
			}
		}
		if !removed {
			return
		}
		// Leaving a value out can leave an empty parent behind.
		r.Body = minimize(r.Body, r.schema, r.plugin, r.ID, r.prior).Body
	}
}

// removeConcrete deletes a concrete body path ("a.b[2].c"). A path that
// ends on an array item removes the whole array: dropping one item would
// renumber the others.
func removeConcrete(body map[string]any, path string) bool {
	p, err := bodypath.Parse(path)
	if err != nil {
		return false
	}
	for len(p) > 0 && p[len(p)-1].IsItem() {
		p = p[:len(p)-1]
	}
	if len(p) == 0 {
		return false
	}
	parent, _ := p[:len(p)-1].Get(body)
	m, ok := parent.(map[string]any)
	if !ok {
		return false
	}
	name := p[len(p)-1].Name
	if _, ok := m[name]; !ok {
		return false
	}
	delete(m, name)
	return true
}

// withoutChildren returns live without the inline items that were imported
// as child resources (owning them twice would make every change to a
// child a change to its parent too). Items that were not listed as
// children stay inline, so nothing becomes unmanaged. live is not changed.
func withoutChildren(live map[string]any, inline map[string]map[string]bool) (map[string]any, []string) {
	if len(inline) == 0 {
		return live, nil
	}
	out := shallowCopy(live)
	var dropped []string
	paths := make([]string, 0, len(inline))
	for p := range inline {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, path := range paths {
		names := inline[path]
		segs, err := bodypath.Parse(path)
		parent := out
		ok := err == nil
		for i := 0; ok && i < len(segs); i++ {
			if ok = segs[i].Kind == bodypath.Member; ok && i < len(segs)-1 {
				var m map[string]any
				if m, ok = parent[segs[i].Name].(map[string]any); ok {
					m = shallowCopy(m)
					parent[segs[i].Name] = m
					parent = m
				}
			}
		}
		if !ok {
			continue
		}
		last := segs.LastMember()
		items, isArr := parent[last].([]any)
		if !isArr {
			continue
		}
		var keep []any
		for _, it := range items {
			m, _ := it.(map[string]any)
			name, _ := m["name"].(string)
			if !names[strings.ToLower(name)] {
				keep = append(keep, it)
			}
		}
		if len(keep) == len(items) {
			continue
		}
		dropped = append(dropped, path)
		if len(keep) == 0 {
			delete(parent, last)
		} else {
			parent[last] = keep
		}
	}
	return out, dropped
}

func shallowCopy(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// refIndex finds imported resources by ID and decides which references
// are written as ${ref:...}.
type refIndex struct {
	rs   []*Resource
	byID map[string]*Resource
	sub  string
	// up are structural edges (a resource needs its imported ancestors
	// first); refs are the body references accepted so far.
	up   map[*Resource][]*Resource
	refs map[*Resource]map[*Resource]bool
}

func newRefIndex(rs []*Resource, sub string) *refIndex {
	x := &refIndex{rs: rs, byID: map[string]*Resource{}, sub: sub, up: map[*Resource][]*Resource{}, refs: map[*Resource]map[*Resource]bool{}}
	count := map[string]int{}
	tn := func(r *Resource) string { return strings.ToLower(r.Type + "/" + r.Name) }
	for _, r := range rs {
		x.byID[armid.Key(r.ID)] = r
		count[tn(r)]++
	}
	for _, r := range rs {
		// The loader looks TYPE/NAME up among every loaded manifest: only a
		// pair unique in this run can be a reference.
		if count[tn(r)] == 1 && !strings.ContainsAny(r.Name, "}$") {
			r.refName = r.Type + "/" + r.Name
		}
	}
	for _, r := range rs {
		for p, ok := r.parsed.Parent(); ok; p, ok = p.Parent() {
			if a := x.byID[armid.Key(p.String())]; a != nil && a != r {
				x.up[r] = append(x.up[r], a)
			}
		}
	}
	return x
}

// match returns the imported resource whose ID is the longest prefix of s
// (on a segment boundary) that may be written as a reference from self,
// and the length of that prefix.
func (x *refIndex) match(s string, self *Resource, accept func(t *Resource) bool) (*Resource, int) {
	if !looksARMID(s) {
		return nil, 0
	}
	for k := len(s); k > 1; k-- {
		if k < len(s) && s[k] != '/' {
			continue
		}
		t := x.byID[armid.Key(s[:k])]
		if t == nil || t == self || t.refName == "" || (accept != nil && !accept(t)) {
			continue
		}
		return t, k
	}
	return nil, 0
}

// breakCycles accepts body references one by one, in output order, and
// refuses each that would close a dependency cycle (vnets peered both ways,
// a parent naming its own child): such an ID stays written out, since a
// cycle would make the manifests fail to load.
func (x *refIndex) breakCycles() {
	for _, r := range x.rs {
		var targets []*Resource
		seen := map[*Resource]bool{}
		walkStrings(r.Body, func(s string) {
			if t, _ := x.match(s, r, nil); t != nil && !seen[t] {
				seen[t] = true
				targets = append(targets, t)
			}
		})
		sort.Slice(targets, func(i, j int) bool { return targets[i].order < targets[j].order })
		for _, t := range targets {
			if x.reaches(t, r) {
				continue
			}
			if x.refs[r] == nil {
				x.refs[r] = map[*Resource]bool{}
			}
			x.refs[r][t] = true
		}
	}
}

// reaches reports whether from depends, directly or not, on to.
func (x *refIndex) reaches(from, to *Resource) bool {
	seen := map[*Resource]bool{}
	stack := []*Resource{from}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n == to {
			return true
		}
		if seen[n] {
			continue
		}
		seen[n] = true
		stack = append(stack, x.up[n]...)
		for t := range x.refs[n] {
			stack = append(stack, t)
		}
	}
	return false
}

// accepted says whether r may reference t: an ancestor always (the
// dependency exists anyway), anything else if breakCycles kept it.
func (x *refIndex) accepted(r *Resource) func(t *Resource) bool {
	return func(t *Resource) bool {
		for _, a := range x.up[r] {
			if a == t {
				return true
			}
		}
		return x.refs[r][t]
	}
}

// rewriteValue returns v with references written, recursively; map keys
// (user-assigned identities are keyed by ID) included.
func (x *refIndex) rewriteValue(v any, self *Resource) any {
	switch t := v.(type) {
	case string:
		return x.rewriteString(t, self)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, cv := range t {
			out[x.rewriteString(k, self)] = x.rewriteValue(cv, self)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, cv := range t {
			out[i] = x.rewriteValue(cv, self)
		}
		return out
	}
	return v
}

// rewriteString writes one string the way the loader reads it back to the
// same value: a reference, ${subscriptionId}, and "$${" for a literal "${".
func (x *refIndex) rewriteString(s string, self *Resource) string {
	if t, k := x.match(s, self, x.accepted(self)); t != nil {
		return "${ref:" + t.refName + "}" + escape(s[k:])
	}
	return x.withSubscription(s)
}

// withSubscription replaces the current subscription at the start of an
// ID with ${subscriptionId}, so the manifests are not tied to it.
func (x *refIndex) withSubscription(s string) string {
	const p = "/subscriptions/"
	if x.sub != "" && len(s) >= len(p)+len(x.sub) && strings.EqualFold(s[:len(p)], p) &&
		strings.EqualFold(s[len(p):len(p)+len(x.sub)], x.sub) &&
		(len(s) == len(p)+len(x.sub) || s[len(p)+len(x.sub)] == '/') {
		return p + "${subscriptionId}" + escape(s[len(p)+len(x.sub):])
	}
	return escape(s)
}

func escape(s string) string { return strings.ReplaceAll(s, "${", "$${") }

// placement chooses how the manifest says where the resource lives.
func (x *refIndex) placement(r *Resource) Placement {
	id := r.parsed
	if id.IsResourceGroup() {
		if x.sub != "" && strings.EqualFold(id.Subscription, x.sub) {
			return Placement{}
		}
		return Placement{Field: "id", Value: escape(r.ID)}
	}
	if len(id.Types) > 1 {
		p, _ := id.Parent()
		if t := x.byID[armid.Key(p.String())]; t != nil && t.refName != "" {
			return Placement{Field: "parent", Value: t.refName}
		}
		return Placement{Field: "parent", Value: x.rewriteString(p.String(), r)}
	}
	scope, err := armid.Parse(id.Scope)
	switch {
	case id.Scope == "":
		return Placement{Field: "id", Value: escape(r.ID)}
	case err == nil && scope.IsResourceGroup() && x.sub != "" && strings.EqualFold(scope.Subscription, x.sub):
		return Placement{Field: "resourceGroup", Value: scope.ResourceGroup}
	case err == nil && scope.IsResourceGroup():
		return Placement{Field: "id", Value: escape(r.ID)}
	}
	if t := x.byID[armid.Key(id.Scope)]; t != nil && t.refName != "" {
		return Placement{Field: "scope", Value: t.refName}
	}
	return Placement{Field: "scope", Value: x.rewriteString(id.Scope, r)}
}

// walkStrings calls fn for every string value and map key in v.
func walkStrings(v any, fn func(string)) {
	switch t := v.(type) {
	case string:
		fn(t)
	case map[string]any:
		for k, cv := range t {
			fn(k)
			walkStrings(cv, fn)
		}
	case []any:
		for _, cv := range t {
			walkStrings(cv, fn)
		}
	}
}
