package manifest

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// Envelope constants (DESIGN §2).
const (
	APIVersion = "azure.kubectl.io/v1alpha1"
	Kind       = "Resource"
)

// Resource is one validated, resolved manifest document.
type Resource struct {
	Origin     Origin
	Name       string
	Labels     map[string]string
	Type       string // e.g. Microsoft.Network/virtualNetworks/subnets
	APIVersion string
	ID         string         // resolved ARM ID
	Body       map[string]any // references resolved, secrets filled in, ignored readonly paths removed
	// SecretPaths are the body paths (dotted, array items as [index]) whose
	// values came from valueFrom: hash them, never print them.
	SecretPaths []string
	// DependsOn lists the ARM IDs of resources in the Set that must exist
	// before this one: managed ancestors (resource group, parent, scope),
	// references of every kind (${ref:...}, valueFrom.action, literal IDs
	// of managed resources). Sorted, no duplicates.
	DependsOn []string

	// Deferred holds the body values that need live data, keyed by body
	// path (the diff's rendered path syntax); the body holds
	// plan.KnownAfterApply there until the engine resolves them.
	Deferred map[string]*Deferred
	// NameDeferred is set when metadata.name needs live data (a guid over
	// a principal ID); Name and ID then hold plan.KnownAfterApply as the
	// last segment until IDForName gives the real ID.
	NameDeferred *Deferred
	// Actions are the secrets read from POST actions at apply time, keyed
	// by body path; each path is also in SecretPaths.
	Actions map[string]*ActionRef
}

// IsSecret reports whether a body path was filled from valueFrom.
func (r *Resource) IsSecret(path string) bool {
	for _, p := range r.SecretPaths {
		if p == path {
			return true
		}
	}
	return false
}

// Set is everything one Load produced.
type Set struct {
	Resources []*Resource
	// Warnings are non-fatal findings, each prefixed with its origin.
	Warnings []string
	// Subscription is the subscription IDs were built with ("" when no
	// resource needed one).
	Subscription string
	// Unselected lists the ARM IDs of resources the selected ones depend
	// on that -l left out: the engine must find them in Azure (they are
	// neither created nor changed by this run). Sorted, no duplicates.
	Unselected []string
}

// ByID finds a resource by ARM ID (case-insensitive).
func (s *Set) ByID(id string) *Resource {
	for _, r := range s.Resources {
		if EqualIDs(r.ID, id) {
			return r
		}
	}
	return nil
}

// Load reads, validates and resolves the manifests opts names. On any
// problem it returns a *ValidationError listing all of them.
func Load(ctx context.Context, opts LoadOptions) (*Set, error) {
	opts.defaults()
	ps := &problems{}
	rd := &reader{opts: &opts, ps: ps, fileOrder: map[string]int{}}
	rd.read()

	l := &loader{ctx: ctx, opts: &opts, ps: ps, acct: resolveAccount(&opts)}
	var selector labels.Selector
	if strings.TrimSpace(opts.Selector) != "" {
		sel, err := labels.Parse(opts.Selector)
		if err != nil {
			ps.add(Origin{Index: -1}, "", "-l %q is not a valid label selector: %v", opts.Selector, err)
		}
		selector = sel
	}
	for _, d := range rd.docs {
		if e := l.envelope(d); e != nil {
			e.selected = selector == nil || selector.Matches(labels.Set(e.res.Labels))
			l.entries = append(l.entries, e)
		}
	}
	l.resolve()
	set := &Set{Warnings: l.warnings}
	if l.subUsed {
		set.Subscription = l.acct.subscription
	}
	if err := ps.err(rd.fileOrder); err != nil {
		return nil, err
	}
	inSet := map[string]bool{}
	for _, e := range l.entries {
		if !e.selected {
			continue
		}
		set.Resources = append(set.Resources, e.res)
		inSet[idKey(e.res.ID)] = true
	}
	// An edge to a resource the selector left out is already satisfied as
	// far as this run is concerned; keeping it would leave apply a DAG with
	// dangling nodes.
	for _, r := range set.Resources {
		var deps []string
		for _, d := range r.DependsOn {
			if inSet[idKey(d)] {
				deps = append(deps, d)
			}
		}
		r.DependsOn = deps
	}
	return set, nil
}

// entry is a document whose envelope parsed, on its way to a Resource.
type entry struct {
	res   *Resource
	typ   typeName
	spec  map[string]any
	body  map[string]any
	state int // idUnresolved, idResolving, idDone, idFailed
	edges []edge
	// selected is false when -l leaves the resource out: it is still
	// validated and can be referenced, but its secrets are not read.
	selected bool
}

const (
	idUnresolved = iota
	idResolving
	idDone
	idFailed
)

type edge struct {
	to   *entry
	path string // field that created the edge, for cycle messages
}

func (e *entry) describe() string {
	return fmt.Sprintf("%s (%s %s)", e.res.Origin, e.typ.full, e.res.Name)
}

type typeName struct {
	full      string   // Microsoft.Network/virtualNetworks/subnets
	namespace string   // Microsoft.Network
	types     []string // [virtualNetworks subnets]
}

type loader struct {
	ctx      context.Context
	opts     *LoadOptions
	ps       *problems
	acct     account
	entries  []*entry
	warnings []string

	byName     map[string][]*entry
	byTypeName map[string][]*entry
	byID       map[string]*entry
	stack      []*entry

	subUsed, subReported, tenantReported bool
}

var (
	typeRE       = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*(\.[A-Za-z0-9]+)+(/[A-Za-z][A-Za-z0-9_-]*)+$`)
	apiVersionRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}(-[A-Za-z][A-Za-z0-9.]*)?$`)
	// ARM names never contain these: they would change the ID's shape.
	badNameChars = "/?#%\\\t\n"
)

var specFields = map[string]bool{"type": true, "id": true, "resourceGroup": true, "parent": true, "scope": true, "body": true}

// envelope checks apiVersion, kind, metadata and spec.type of one document.
func (l *loader) envelope(d document) *entry {
	o := d.origin
	ok := true
	bad := func(path, format string, args ...any) {
		l.ps.add(o, path, format, args...)
		ok = false
	}
	if av, _ := d.obj["apiVersion"].(string); strings.HasPrefix(av, "kustomize.config.k8s.io/") {
		bad("", "this is a kustomization file, not a Resource; load its directory with -k")
		return nil
	}
	switch av, _ := d.obj["apiVersion"].(string); {
	case d.obj["apiVersion"] == nil:
		bad("apiVersion", "missing; set apiVersion: %s", APIVersion)
	case av != APIVersion:
		bad("apiVersion", "%s is not supported; use %s", quote(d.obj["apiVersion"]), APIVersion)
	}
	switch k, _ := d.obj["kind"].(string); {
	case d.obj["kind"] == nil:
		bad("kind", "missing; set kind: %s", Kind)
	case k != Kind:
		bad("kind", "%s is not supported; use %s", quote(d.obj["kind"]), Kind)
	}
	for k := range d.obj {
		switch k {
		case "apiVersion", "kind", "metadata", "spec":
		default:
			bad(k, "unknown field; a Resource has apiVersion, kind, metadata and spec")
		}
	}
	res := &Resource{Origin: o}
	meta, isMap := d.obj["metadata"].(map[string]any)
	if !isMap {
		if d.obj["metadata"] == nil {
			bad("metadata.name", "missing; set metadata.name to the ARM resource name")
		} else {
			bad("metadata", "must be a mapping with name (and optionally labels)")
		}
	} else {
		switch n, isStr := meta["name"].(string); {
		case meta["name"] == nil || (isStr && strings.TrimSpace(n) == ""):
			bad("metadata.name", "missing; set metadata.name to the ARM resource name")
		case !isStr:
			bad("metadata.name", "must be a string, got %s", jsonKind(meta["name"]))
		case strings.ContainsAny(n, badNameChars) || strings.TrimSpace(n) != n:
			bad("metadata.name", "%q is not a valid ARM resource name (no /, ?, #, %%, \\ or surrounding spaces); a child resource's name is its last segment only, with spec.parent naming the parent", n)
		default:
			res.Name = n
		}
		if lv, present := meta["labels"]; present && lv != nil {
			lm, isMap := lv.(map[string]any)
			if !isMap {
				bad("metadata.labels", "must be a mapping of strings")
			} else {
				res.Labels = map[string]string{}
				for k, v := range lm {
					s, isStr := v.(string)
					if !isStr {
						bad("metadata.labels."+k, "label values must be strings; quote it")
						continue
					}
					res.Labels[k] = s
				}
			}
		}
	}
	e := &entry{res: res}
	spec, isMap := d.obj["spec"].(map[string]any)
	if !isMap {
		if d.obj["spec"] == nil {
			bad("spec.type", "missing; set spec.type to TYPE@API-VERSION, e.g. Microsoft.Storage/storageAccounts@2023-05-01")
		} else {
			bad("spec", "must be a mapping with type, body and a placement (resourceGroup, parent, scope or id)")
		}
		return nil
	}
	e.spec = spec
	keys := sortedKeys(spec)
	for _, k := range keys {
		if !specFields[k] {
			bad("spec."+k, "unknown field; spec has type, id, resourceGroup, parent, scope and body")
		}
	}
	for _, k := range []string{"id", "resourceGroup", "parent", "scope"} {
		if v, present := spec[k]; present && v != nil {
			if _, isStr := v.(string); !isStr {
				bad("spec."+k, "must be a string, got %s", jsonKind(v))
			}
		}
	}
	t, tok := l.parseType(o, spec["type"])
	if !tok {
		ok = false
	}
	e.typ = t
	switch b := spec["body"].(type) {
	case nil:
		e.body = map[string]any{}
	case map[string]any:
		e.body = b
	default:
		bad("spec.body", "must be a mapping (the ARM request body), got %s", jsonKind(b))
	}
	if !ok {
		return nil
	}
	res.Type = t.full
	return e
}

func (l *loader) parseType(o Origin, v any) (typeName, bool) {
	var t typeName
	s, isStr := v.(string)
	switch {
	case v == nil || (isStr && strings.TrimSpace(s) == ""):
		l.ps.add(o, "spec.type", "missing; set spec.type to TYPE@API-VERSION, e.g. Microsoft.Storage/storageAccounts@2023-05-01")
		return t, false
	case !isStr:
		l.ps.add(o, "spec.type", "must be a string TYPE@API-VERSION, got %s", jsonKind(v))
		return t, false
	}
	typ, ver, found := strings.Cut(s, "@")
	if !found || ver == "" {
		l.ps.add(o, "spec.type", "%q has no api-version; write %s@API-VERSION (`kubectl azure explain %s` lists the known versions)", s, typ, typ)
		return t, false
	}
	ok := true
	if !typeRE.MatchString(typ) {
		l.ps.add(o, "spec.type", "%q is not a resource type; write Namespace/type[/childType...], e.g. Microsoft.Network/virtualNetworks/subnets", typ)
		ok = false
	}
	if !apiVersionRE.MatchString(ver) {
		l.ps.add(o, "spec.type", "api-version %q is malformed; use YYYY-MM-DD or YYYY-MM-DD-preview", ver)
		ok = false
	}
	if !ok {
		return t, false
	}
	parts := strings.Split(typ, "/")
	return typeName{full: typ, namespace: parts[0], types: parts[1:]}, true
}

// resolve computes IDs, references, secrets, edges and schema findings.
func (l *loader) resolve() {
	l.byName = map[string][]*entry{}
	l.byTypeName = map[string][]*entry{}
	for _, e := range l.entries {
		n := strings.ToLower(e.res.Name)
		l.byName[n] = append(l.byName[n], e)
		tn := strings.ToLower(e.typ.full) + "/" + n
		l.byTypeName[tn] = append(l.byTypeName[tn], e)
		if v, _ := e.spec["type"].(string); v != "" {
			_, e.res.APIVersion, _ = strings.Cut(v, "@")
		}
	}
	for _, e := range l.entries {
		l.resolveID(e)
	}
	// Duplicates: the same ARM ID twice, whatever the casing.
	l.byID = map[string]*entry{}
	for _, e := range l.entries {
		if e.state != idDone {
			continue
		}
		k := idKey(e.res.ID)
		if first, dup := l.byID[k]; dup {
			l.ps.add(e.res.Origin, "metadata.name", "duplicate resource: %s already declares %s %s with the same ARM ID (IDs compare case-insensitively)", first.res.Origin, first.typ.full, first.res.Name)
			e.state = idFailed
			continue
		}
		l.byID[k] = e
	}
	for _, e := range l.entries {
		if e.state != idDone {
			continue
		}
		// Every managed ancestor (group, parent, scope) must exist first.
		if id, err := ParseID(e.res.ID); err == nil {
			path := placementPath(e)
			for p, ok := id.Parent(); ok; p, ok = p.Parent() {
				if a := l.byID[idKey(p.String())]; a != nil && a != e {
					e.edges = append(e.edges, edge{to: a, path: path})
				}
			}
		}
		body, _ := l.walk(e, e.body, "")
		e.res.Body, _ = body.(map[string]any)
		if e.res.Body == nil {
			e.res.Body = map[string]any{}
		}
	}
	l.checkCycles()
	for _, e := range l.entries {
		if e.state == idDone {
			l.schema(e)
		}
	}
	for _, e := range l.entries {
		seen := map[string]bool{}
		var deps []string
		for _, ed := range e.edges {
			if ed.to.state != idDone || seen[idKey(ed.to.res.ID)] {
				continue
			}
			seen[idKey(ed.to.res.ID)] = true
			deps = append(deps, ed.to.res.ID)
		}
		sort.Strings(deps)
		e.res.DependsOn = deps
	}
}

func placementPath(e *entry) string {
	for _, k := range []string{"id", "parent", "scope", "resourceGroup"} {
		if s, _ := e.spec[k].(string); s != "" {
			return "spec." + k
		}
	}
	return "metadata.name"
}

// subscription returns the subscription for building an ID, recording the
// "no subscription" problem once per run.
func (l *loader) subscription(e *entry, path string) (string, bool) {
	l.subUsed = true
	a := l.acct
	if a.subscription == "" {
		if !l.subReported {
			l.subReported = true
			msg := "no subscription: pass --subscription, set AZURE_SUBSCRIPTION_ID, or choose a default with `az account set --subscription ID`"
			if a.profileNote != "" {
				msg += " (" + a.profileNote + ")"
			}
			l.ps.add(e.res.Origin, path, "%s", msg)
		}
		return "", false
	}
	if !IsGUID(a.subscription) {
		if !l.subReported {
			l.subReported = true
			l.ps.add(Origin{Index: -1}, "", "subscription %q (from %s) is not a GUID; pass the subscription ID, not its name", a.subscription, a.subSource)
		}
		return "", false
	}
	return a.subscription, true
}

func (l *loader) tenant(e *entry, path string) (string, bool) {
	if l.acct.tenant == "" {
		if !l.tenantReported {
			l.tenantReported = true
			l.ps.add(e.res.Origin, path, "${tenantId} is used but no tenant is known: set AZURE_TENANT_ID or log in with `az login`")
		}
		return "", false
	}
	return l.acct.tenant, true
}

// resolveID builds e's ARM ID from its placement, resolving parents and
// scopes first. The stack detects placement cycles (a parent of itself).
func (l *loader) resolveID(e *entry) bool {
	switch e.state {
	case idDone:
		return true
	case idFailed:
		return false
	case idResolving:
		for i, s := range l.stack {
			if s == e {
				l.reportCycle(l.stack[i:])
				break
			}
		}
		return false
	}
	e.state = idResolving
	l.stack = append(l.stack, e)
	id, ok := l.buildID(e)
	l.stack = l.stack[:len(l.stack)-1]
	if e.state == idFailed { // marked by a cycle report while we were below
		return false
	}
	if ok {
		if _, err := ParseID(id); err != nil {
			l.ps.add(e.res.Origin, placementPath(e), "the resulting ARM ID is invalid: %v", err)
			ok = false
		}
	}
	if !ok {
		e.state = idFailed
		return false
	}
	e.res.ID = id
	e.state = idDone
	return true
}

func (l *loader) buildID(e *entry) (string, bool) {
	o := e.res.Origin
	str := func(k string) string { s, _ := e.spec[k].(string); return strings.TrimSpace(s) }
	specID, rg, parent, scope := str("id"), str("resourceGroup"), str("parent"), str("scope")
	t := e.typ
	last := t.types[len(t.types)-1]
	isRG := strings.EqualFold(t.full, ResourceGroupType)

	if specID != "" {
		if rg != "" || parent != "" || scope != "" {
			l.ps.add(o, "spec.id", "give either spec.id or spec.resourceGroup/parent/scope, not both")
			return "", false
		}
		s, ok := l.expand(e, "spec.id", specID, false)
		if !ok {
			return "", false
		}
		id, err := ParseID(s)
		if err != nil {
			var pe *armid.Error
			if errors.As(err, &pe) {
				err = &armid.Error{ID: specID, Reason: pe.Reason}
			}
			l.ps.add(o, "spec.id", "%v", err)
			return "", false
		}
		if !strings.EqualFold(id.Type(), t.full) {
			l.ps.add(o, "spec.id", "names a %s, but spec.type is %s", id.Type(), t.full)
			return "", false
		}
		if !strings.EqualFold(id.Name(), e.res.Name) {
			l.ps.add(o, "spec.id", "ends in name %q, but metadata.name is %q; make them agree", id.Name(), e.res.Name)
			return "", false
		}
		return strings.TrimSuffix(s, "/"), true
	}
	if isRG {
		for _, k := range []string{"resourceGroup", "parent", "scope"} {
			if str(k) != "" {
				l.ps.add(o, "spec."+k, "a resource group is placed by its name alone; remove spec.%s", k)
				return "", false
			}
		}
		sub, ok := l.subscription(e, "")
		if !ok {
			return "", false
		}
		return "/subscriptions/" + sub + "/resourceGroups/" + e.res.Name, true
	}
	switch {
	case parent != "":
		if scope != "" {
			l.ps.add(o, "spec.scope", "spec.scope cannot be combined with spec.parent; the parent's ID already says where the resource lives")
			return "", false
		}
		pid, ok := l.target(e, "spec.parent", parent)
		if !ok {
			return "", false
		}
		p, err := ParseID(pid)
		if err != nil {
			l.ps.add(o, "spec.parent", "%v", err)
			return "", false
		}
		if len(t.types) < 2 {
			l.ps.add(o, "spec.parent", "%s is a top-level type and has no parent; place it with spec.resourceGroup (or spec.scope for an extension resource)", t.full)
			return "", false
		}
		want := t.namespace + "/" + strings.Join(t.types[:len(t.types)-1], "/")
		if !strings.EqualFold(p.Type(), want) {
			l.ps.add(o, "spec.parent", "the parent is a %s, but a %s needs a parent of type %s", p.Type(), t.full, parentTypeHint(t))
			return "", false
		}
		if rg != "" && !strings.EqualFold(rg, p.ResourceGroup) {
			l.ps.add(o, "spec.resourceGroup", "%q disagrees with the parent's resource group %q; remove spec.resourceGroup", rg, p.ResourceGroup)
			return "", false
		}
		return strings.TrimSuffix(pid, "/") + "/" + last + "/" + e.res.Name, true
	case scope != "":
		if rg != "" {
			l.ps.add(o, "spec.resourceGroup", "spec.resourceGroup cannot be combined with spec.scope; the scope's ID already says where the resource lives")
			return "", false
		}
		if len(t.types) > 1 {
			l.ps.add(o, "spec.scope", "%s is a child type: place it with spec.parent (the parent's TYPE/NAME), not spec.scope", t.full)
			return "", false
		}
		sid, ok := l.target(e, "spec.scope", scope)
		if !ok {
			return "", false
		}
		if _, err := ParseID(sid); err != nil {
			l.ps.add(o, "spec.scope", "%v", err)
			return "", false
		}
		return strings.TrimSuffix(sid, "/") + "/providers/" + t.full + "/" + e.res.Name, true
	case rg != "":
		if len(t.types) > 1 {
			l.ps.add(o, "spec.parent", "missing: %s is a child type; set spec.parent to the parent's TYPE/NAME, e.g. %s/NAME", t.full, parentTypeHint(t))
			return "", false
		}
		if strings.ContainsAny(rg, badNameChars) {
			l.ps.add(o, "spec.resourceGroup", "%q is not a resource group name; give the name, not its ID (or use spec.id)", rg)
			return "", false
		}
		sub, ok := l.subscription(e, "spec.resourceGroup")
		if !ok {
			return "", false
		}
		return "/subscriptions/" + sub + "/resourceGroups/" + rg + "/providers/" + t.full + "/" + e.res.Name, true
	}
	if len(t.types) > 1 {
		l.ps.add(o, "spec.parent", "missing: %s is a child type; set spec.parent to the parent's TYPE/NAME, e.g. %s/NAME", t.full, parentTypeHint(t))
	} else {
		l.ps.add(o, "spec", "no placement: set spec.resourceGroup, spec.parent, spec.scope (extension resources) or spec.id")
	}
	return "", false
}

func parentTypeHint(t typeName) string {
	if len(t.types) < 2 {
		return "(none: it is a top-level type)"
	}
	return t.namespace + "/" + strings.Join(t.types[:len(t.types)-1], "/")
}

// target resolves spec.parent or spec.scope: an ARM ID (placeholders
// allowed), a ${ref:...}, or the TYPE/NAME or NAME of a managed resource.
func (l *loader) target(e *entry, path, s string) (string, bool) {
	if strings.HasPrefix(s, "/") || strings.Contains(s, "${") {
		return l.expand(e, path, s, true)
	}
	t, ok := l.lookup(e, path, s, "")
	if !ok {
		return "", false
	}
	if t == e {
		l.ps.add(e.res.Origin, path, "%q is this resource itself; name the resource it belongs under", s)
		return "", false
	}
	e.edges = append(e.edges, edge{to: t, path: path})
	if !l.resolveID(t) {
		return "", false
	}
	return t.res.ID, true
}

// lookup finds the managed resource a reference names: "NAME" or
// "TYPE/NAME" (TYPE without @api-version; an @api-version is tolerated).
func (l *loader) lookup(e *entry, path, ref, shown string) (*entry, bool) {
	ref = strings.TrimSpace(ref)
	label := shown
	if label == "" {
		label = strconv.Quote(ref)
	}
	var cands []*entry
	if i := strings.LastIndex(ref, "/"); i >= 0 {
		typ, name := ref[:i], ref[i+1:]
		typ, _, _ = strings.Cut(typ, "@")
		cands = l.byTypeName[strings.ToLower(typ)+"/"+strings.ToLower(name)]
	} else {
		cands = l.byName[strings.ToLower(ref)]
	}
	switch len(cands) {
	case 0:
		prefix := ""
		if shown != "" {
			prefix = shown + ": "
		}
		l.ps.add(e.res.Origin, path, "%sno resource %q in the loaded manifests; check its metadata.name (and type), load its file too, or write the full ARM ID", prefix, ref)
		return nil, false
	case 1:
		return cands[0], true
	}
	var where []string
	for _, c := range cands {
		where = append(where, c.describe())
	}
	l.ps.add(e.res.Origin, path, "%s is ambiguous: it matches %s; write TYPE/NAME to choose", label, strings.Join(where, ", "))
	return nil, false
}

// expand replaces ${ref:...}, ${subscriptionId} and ${tenantId} in s.
// "$${" writes a literal "${".
func (l *loader) expand(e *entry, path, s string, allowRefs bool) (string, bool) {
	if !strings.Contains(s, "${") {
		return s, true
	}
	var b strings.Builder
	ok := true
	for len(s) > 0 {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			break
		}
		if i > 0 && s[i-1] == '$' {
			b.WriteString(s[:i-1])
			b.WriteString("${")
			s = s[i+2:]
			continue
		}
		b.WriteString(s[:i])
		j := strings.Index(s[i:], "}")
		if j < 0 {
			l.ps.add(e.res.Origin, path, "unterminated placeholder %q: close it with }, or write $${ for a literal ${", s[i:])
			return "", false
		}
		ph := s[i+2 : i+j]
		s = s[i+j+1:]
		switch {
		case strings.EqualFold(ph, "subscriptionId"):
			sub, sok := l.subscription(e, path)
			ok = ok && sok
			b.WriteString(sub)
		case strings.EqualFold(ph, "tenantId"):
			ten, tok := l.tenant(e, path)
			ok = ok && tok
			b.WriteString(ten)
		case strings.HasPrefix(ph, "ref:"):
			if !allowRefs {
				l.ps.add(e.res.Origin, path, "${%s}: references are not allowed in spec.id; use spec.parent or spec.scope to place a resource under a managed one", ph)
				ok = false
				continue
			}
			t, tok := l.lookup(e, path, ph[len("ref:"):], "${"+ph+"}")
			if !tok {
				ok = false
				continue
			}
			// A body may name its own ID (a load balancer's rules point at
			// its own frontend configurations); that is no dependency.
			if t != e {
				e.edges = append(e.edges, edge{to: t, path: path})
			}
			if !l.resolveID(t) {
				ok = false // t's own problem is reported where t is declared
				continue
			}
			b.WriteString(t.res.ID)
		default:
			l.ps.add(e.res.Origin, path, "unknown placeholder ${%s}: use ${ref:NAME}, ${ref:TYPE/NAME}, ${subscriptionId} or ${tenantId}, or write $${ for a literal ${", ph)
			ok = false
		}
	}
	return b.String(), ok
}

// walk copies a body value, expanding placeholders in strings and map keys
// and filling valueFrom secrets. bodyPath is relative to the body.
func (l *loader) walk(e *entry, v any, bodyPath string) (any, bool) {
	docPath := joinPath("spec.body", bodyPath)
	switch x := v.(type) {
	case string:
		return l.expand(e, docPath, x, true)
	case []any:
		out := make([]any, len(x))
		ok := true
		for i, item := range x {
			var iok bool
			out[i], iok = l.walk(e, item, fmt.Sprintf("%s[%d]", bodyPath, i))
			ok = ok && iok
		}
		return out, ok
	case map[string]any:
		if vf, isVF := x["valueFrom"]; isVF && len(x) == 1 {
			return l.secret(e, vf, bodyPath, docPath+".valueFrom")
		}
		out := make(map[string]any, len(x))
		ok := true
		for _, k := range sortedKeys(x) {
			nk, kok := l.expand(e, joinPath(docPath, k), k, true)
			var vok bool
			out[nk], vok = l.walk(e, x[k], joinPath(bodyPath, k))
			ok = ok && kok && vok
		}
		return out, ok
	}
	return v, true
}

func joinPath(base, k string) string {
	if base == "" || k == "" {
		return base + k
	}
	return base + "." + k
}

// secret resolves {valueFrom: {env: NAME}} or
// {valueFrom: {secretKeyRef: {name, key, namespace}}}.
func (l *loader) secret(e *entry, vf any, bodyPath, path string) (any, bool) {
	o := e.res.Origin
	m, isMap := vf.(map[string]any)
	if !isMap || len(m) != 1 {
		l.ps.add(o, path, "must hold exactly one of env: NAME or secretKeyRef: {name, key, namespace}")
		return nil, false
	}
	e.res.SecretPaths = append(e.res.SecretPaths, bodyPath)
	if env, has := m["env"]; has {
		name, isStr := env.(string)
		if !isStr || name == "" {
			l.ps.add(o, path+".env", "must be the name of an environment variable")
			return nil, false
		}
		if !e.selected {
			return nil, true // -l leaves it out of this run: do not demand its secret
		}
		v, set := l.opts.LookupEnv(name)
		if !set {
			l.ps.add(o, path+".env", "environment variable %s is not set; export it before running", name)
			return nil, false
		}
		return v, true
	}
	ref, has := m["secretKeyRef"].(map[string]any)
	if !has {
		l.ps.add(o, path, "must hold exactly one of env: NAME or secretKeyRef: {name, key, namespace}")
		return nil, false
	}
	get := func(k string) string { s, _ := ref[k].(string); return s }
	name, key, ns := get("name"), get("key"), get("namespace")
	for k := range ref {
		if k != "name" && k != "key" && k != "namespace" {
			l.ps.add(o, path+".secretKeyRef."+k, "unknown field; secretKeyRef has name, key and namespace")
			return nil, false
		}
	}
	if name == "" || key == "" {
		l.ps.add(o, path+".secretKeyRef", "needs name and key (namespace is optional)")
		return nil, false
	}
	if !e.selected {
		return nil, true
	}
	if l.opts.Secrets == nil {
		l.ps.add(o, path+".secretKeyRef", "reading a Kubernetes Secret needs a cluster, and none is configured; use the kubeconfig flags or valueFrom.env")
		return nil, false
	}
	v, err := l.opts.Secrets.SecretValue(l.ctx, ns, name, key)
	if err != nil {
		l.ps.add(o, path+".secretKeyRef", "%v", err)
		return nil, false
	}
	return v, true
}

// checkCycles finds dependency cycles among resolved resources (references
// both ways, a scope that refers back, ...) and reports each once.
func (l *loader) checkCycles() {
	const (
		white = iota
		grey
		black
	)
	color := map[*entry]int{}
	var stack []*entry
	var visit func(e *entry)
	visit = func(e *entry) {
		color[e] = grey
		stack = append(stack, e)
		for _, ed := range e.edges {
			if ed.to.state != idDone {
				continue
			}
			switch color[ed.to] {
			case white:
				visit(ed.to)
			case grey:
				for i, s := range stack {
					if s == ed.to {
						l.reportCycle(stack[i:])
						break
					}
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[e] = black
	}
	for _, e := range l.entries {
		if e.state == idDone && color[e] == white {
			visit(e)
		}
	}
}

// reportCycle reports a cycle on its member declared first, naming the
// field that starts it, and marks every member failed.
func (l *loader) reportCycle(cycle []*entry) {
	start := 0
	for i, c := range cycle {
		if originLess(c.res.Origin, cycle[start].res.Origin) {
			start = i
		}
	}
	rot := append(append([]*entry(nil), cycle[start:]...), cycle[:start]...)
	var names []string
	for _, c := range rot {
		names = append(names, c.describe())
	}
	names = append(names, rot[0].describe())
	path := ""
	next := rot[0]
	if len(rot) > 1 {
		next = rot[1]
	}
	for _, ed := range rot[0].edges {
		if ed.to == next {
			path = ed.path
			break
		}
	}
	l.ps.add(rot[0].res.Origin, path, "dependency cycle: %s; remove one of these references", strings.Join(names, " -> "))
	for _, c := range cycle {
		c.state = idFailed
	}
}

func originLess(a, b Origin) bool {
	if a.File != b.File {
		return a.File < b.File
	}
	return a.Index < b.Index
}

// schema applies the schema validator and removes ignored readonly paths.
func (l *loader) schema(e *entry) {
	issues, note := l.opts.Schema(e.typ.full, e.res.APIVersion, e.res.Body)
	o := e.res.Origin
	if note != "" {
		l.warnings = append(l.warnings, fmt.Sprintf("%s: %s", o, note))
	}
	var ignored []string
	for _, is := range issues {
		path := "spec.body"
		if is.Path != "" {
			path += "." + is.Path
		}
		switch is.Severity {
		case SchemaError:
			if e.res.IsSecret(is.Path) {
				// Schema messages may quote the value; this one is a secret.
				l.ps.add(o, path, "the value from valueFrom does not fit the schema (the message is withheld: it could show the secret); check the variable or Secret it comes from")
				continue
			}
			l.ps.add(o, path, "%s", is.Message)
		case SchemaWarning:
			l.warnings = append(l.warnings, fmt.Sprintf("%s: %s: %s", o, path, is.Message))
		case SchemaIgnored:
			if l.opts.Strict {
				l.ps.add(o, path, "readonly property set (the server sets it); remove it from the manifest (--strict)")
				continue
			}
			removePath(e.res.Body, is.Path)
			ignored = append(ignored, is.Path)
		}
	}
	if len(ignored) > 0 {
		l.warnings = append(l.warnings, fmt.Sprintf("%s: ignored readonly properties (the server sets them; they are never compared or sent): %s", o, strings.Join(ignored, ", ")))
	}
}

// removePath deletes a dotted body path ("properties.a[2].b") if present.
func removePath(body map[string]any, path string) {
	segs := splitPath(path)
	var cur any = body
	for i, s := range segs {
		lastSeg := i == len(segs)-1
		switch c := cur.(type) {
		case map[string]any:
			if lastSeg {
				delete(c, s)
				return
			}
			cur = c[s]
		case []any:
			var n int
			if _, err := fmt.Sscanf(s, "[%d]", &n); err != nil || n < 0 || n >= len(c) {
				return
			}
			if lastSeg {
				return // removing an array item would renumber its siblings
			}
			cur = c[n]
		default:
			return
		}
	}
}

// splitPath splits "a.b[1].c" into [a b [1] c].
func splitPath(p string) []string {
	var out []string
	for _, part := range strings.Split(p, ".") {
		for part != "" {
			i := strings.Index(part, "[")
			switch {
			case i < 0:
				out = append(out, part)
				part = ""
			case i > 0:
				out = append(out, part[:i])
				part = part[i:]
			default:
				j := strings.Index(part, "]")
				if j < 0 {
					out = append(out, part)
					part = ""
					continue
				}
				out = append(out, part[:j+1])
				part = part[j+1:]
			}
		}
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func quote(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return jsonKind(v)
}
