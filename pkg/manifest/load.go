package manifest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// Envelope constants: the apiVersion and kind of every manifest document.
const (
	APIVersion = "azure.kubectl.io/v1alpha1"
	Kind       = "Resource"
)

// Resource is one validated, resolved manifest document.
type Resource struct {
	Origin Origin
	Name   string
	// Symbol is metadata.name as written: the name references and the
	// command line use, which differs from Name when spec.name gives the
	// ARM name (a computed one, a name kustomize must not change).
	Symbol string
	// Labels are metadata.labels. Resources with the same labels share
	// one map (likewise Annotations): read them, never write them.
	Labels map[string]string
	// Annotations are metadata.annotations (string values); the tool acts
	// on AnnotationPreventDestroy and AnnotationIgnoreChanges.
	Annotations map[string]string
	Type        string // e.g. Microsoft.Network/virtualNetworks/subnets
	APIVersion  string
	ID          string         // resolved ARM ID
	Body        map[string]any // references resolved, secrets filled in, ignored readonly paths removed
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
	// plan.Unknown there until the engine resolves them.
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
	// Findings are the same warnings as Problems (file, document, line,
	// path, SeverityWarning), for printers that render them structured.
	Findings []Problem
	// Subscription is the subscription IDs were built with ("" when no
	// resource needed one).
	Subscription string
	// Unselected lists the ARM IDs of resources the selected ones depend
	// on that -l left out: the engine must find them in Azure (they are
	// neither created nor changed by this run). Sorted, no duplicates.
	Unselected []string
	// Existing are the resources annotated azure.kubectl.io/existing, in
	// load order: the set reads them and declares them as not its own, so
	// nothing plans, prunes or records them.
	Existing []*Resource
	// Secrets is the registry the load registered its secret values in
	// (LoadOptions.SecretValues, or the one Load made): the run scrubs its
	// output with it.
	Secrets *secret.Registry
}

// ByID finds a resource by ARM ID (case-insensitive).
func (s *Set) ByID(id string) *Resource {
	for _, r := range s.Resources {
		if armid.Equal(r.ID, id) {
			return r
		}
	}
	return nil
}

// Load reads, validates and resolves the manifests opts names. On any
// problem it returns a *ValidationError listing all of them.
func Load(ctx context.Context, opts LoadOptions) (*Set, error) {
	opts.defaults()
	// The registry is the run's, not a default: options made once (by
	// NewLoadOptions, or a command's flags) must not carry one registry
	// into every load, nor keep the caller from passing the run's.
	if opts.SecretValues == nil {
		opts.SecretValues = secret.NewRegistry()
	}
	ps := &problems{secrets: opts.SecretValues}
	l := &loader{ctx: ctx, opts: &opts, ps: ps, acct: resolveAccount(&opts)}
	var selector labels.Selector
	var selErr error
	if strings.TrimSpace(opts.Selector) != "" {
		selector, selErr = labels.Parse(opts.Selector)
	}
	// Each document's envelope is checked as soon as it is decoded: what
	// later phases need moves into its entry and the rest is garbage before
	// the next document is read.
	rd := &reader{ctx: ctx, opts: &opts, ps: ps, fileOrder: map[string]int{}, intern: newInterner(), add: func(d document) {
		l.origins = l.origins || d.lines.text != nil
		l.checkConfusable(d)
		if e := l.envelope(d); e != nil {
			e.selected = !e.existing && (selector == nil || selector.Matches(labels.Set(e.res.Labels)))
			l.entries = append(l.entries, e)
		}
	}}
	rd.warn = func(o Origin, format string, args ...any) { l.warn(o, "", format, args...) }
	rd.read()
	// Only the file order is needed from here on; the string tables and
	// kustomize sources go.
	rd.intern, rd.sourceDocs = nil, nil
	if selErr != nil {
		ps.add(Origin{Index: -1}, "", "-l %q is not a valid label selector: %v", opts.Selector, selErr)
	}
	l.resolve()
	set := &Set{Warnings: l.warnings, Findings: l.findings, Secrets: opts.SecretValues}
	if l.subUsed {
		set.Subscription = l.acct.subscription
	}
	if err := ps.err(rd.fileOrder); err != nil {
		// The warnings found with the errors go with them, so a misspelt
		// property is not hidden by an unrelated error in another file.
		if ve, ok := err.(*ValidationError); ok {
			ve.Problems = append(ve.Problems, l.findings...)
		}
		return nil, err
	}
	for _, e := range l.entries {
		switch {
		case e.selected:
			set.Resources = append(set.Resources, e.res)
		case e.existing:
			if e.state == idDone {
				set.Existing = append(set.Existing, e.res)
			}
		}
	}
	if len(set.Resources) == 0 {
		return nil, emptySet(&opts, len(l.entries) > 0)
	}
	// An edge to a resource the selector left out is satisfied as far as
	// this run is concerned: it leaves DependsOn (apply's DAG has no
	// dangling nodes) and joins Unselected, which the engine checks exists.
	unselected := map[string]string{}
	for _, e := range l.entries {
		if !e.selected {
			continue
		}
		var deps []string
		for _, d := range e.deps {
			switch {
			case d.selected:
				deps = append(deps, d.res.ID)
			case d.existing:
				// Read, never written: nothing to order, and the engine
				// checks it exists from Set.Existing.
			default:
				unselected[armid.Key(d.res.ID)] = d.res.ID
			}
		}
		e.res.DependsOn = deps
	}
	for _, id := range unselected {
		set.Unselected = append(set.Unselected, id)
	}
	sort.Strings(set.Unselected)
	return set, nil
}

// emptySet is the error for a run that loaded nothing.
func emptySet(o *LoadOptions, filtered bool) error {
	e := &EmptySetError{Paths: o.Filenames}
	if o.Kustomize != "" {
		e.Paths = []string{o.Kustomize}
	}
	if filtered {
		e.Selector = o.Selector
	}
	return e
}

// entry is a document whose envelope parsed, on its way to a Resource.
type entry struct {
	res  *Resource
	typ  *typeName // shared by every entry of the same spec.type
	spec specStrings
	// body is spec.body as decoded, until walk resolves it into res.Body
	// (sharing every part that needs no change).
	body  map[string]any
	state int // idUnresolved, idResolving, idDone, idFailed
	edges []edge
	// deps are the entries the resource depends on, sorted by ID, no
	// duplicates; Load makes res.DependsOn of those it selected.
	deps []*entry
	// selected is false when -l leaves the resource out: it is still
	// validated and can be referenced, but its secrets are not read.
	selected bool
	// existing is set by AnnotationExisting: never selected, only read.
	existing bool
	// symbol is metadata.name as loaded; sourceName is metadata.name as
	// written in the source file when kustomize renamed it (namePrefix,
	// nameSuffix), else "". References find the resource by either, and by
	// its ARM name.
	symbol, sourceName string
	// namePath is the field the ARM name comes from: metadata.name, or
	// spec.name when that is set.
	namePath string
	// versionReported is set when checkVersions said what there is to
	// say about the api-version: the schema's own note is then left out.
	versionReported bool
}

// refName returns the name a reference to e is best written with.
func (e *entry) refName() string {
	switch {
	case e.sourceName != "":
		return e.sourceName
	case e.symbol != "" && !strings.Contains(e.symbol, "${"):
		return e.symbol
	}
	return e.res.Name
}

// names returns the lowered names references may use for e, without
// duplicates.
func (e *entry) names() []string {
	cands := []string{e.symbol, e.sourceName}
	if e.res.NameDeferred == nil {
		cands = append(cands, e.res.Name) // a deferred name is no name yet
	}
	var out []string
	for _, n := range cands {
		if n == "" {
			continue
		}
		n = strings.ToLower(n)
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// specStrings are the string fields of spec that placement reads; the
// envelope has checked they are strings, so the decoded spec map need not
// be kept.
type specStrings struct {
	typ, id, resourceGroup, parent, scope string
}

// field returns spec.k, "" when absent.
func (s *specStrings) field(k string) string {
	switch k {
	case "type":
		return s.typ
	case "id":
		return s.id
	case "resourceGroup":
		return s.resourceGroup
	case "parent":
		return s.parent
	case "scope":
		return s.scope
	}
	return ""
}

const (
	idUnresolved = iota
	idResolving
	idDone
	idFailed
)

// typeNameKey indexes a resource by "TYPE/NAME", case-insensitively, as
// a reference writes it. The type's lowered form is shared by every
// resource of the type.
type typeNameKey struct{ typ, name string }

// typeNameKey returns the index key of typ/name, name already lowered.
func (l *loader) typeNameKey(typ, name string) typeNameKey {
	if strings.Contains(name, "/") {
		// Not a valid name, but the key is still the split at the last "/".
		full := typ + "/" + name
		i := strings.LastIndex(full, "/")
		return typeNameKey{strings.ToLower(full[:i]), full[i+1:]}
	}
	lt, ok := l.lowerTypes[typ]
	if !ok {
		lt = strings.ToLower(typ)
		l.lowerTypes[typ] = lt
	}
	return typeNameKey{lt, name}
}

type edge struct {
	to   *entry
	path string // field that created the edge, for cycle messages
	// literal: inferred from an ARM ID written out (no ${ref:...}); such an
	// edge gives way when it alone closes a cycle (see checkCycles).
	literal bool
	// unsent: from a readonly value the loader removed (it is never sent,
	// so ARM needs nothing of it); it orders the two resources, but gives
	// way to a cycle like a literal edge.
	unsent bool
}

func (e *entry) describe() string {
	if e.res.Name != e.symbol && e.symbol != "" {
		return fmt.Sprintf("%s (%s %s, named %s)", e.res.Origin, e.typ.full, e.symbol, e.res.Name)
	}
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
	findings []Problem

	byName     map[string][]*entry
	byTypeName map[typeNameKey][]*entry
	byID       *idIndex
	stack      []*entry
	// lowerTypes and stringMaps make entries share what repeats across
	// a large set: lowered type names, and identical label and
	// annotation maps.
	lowerTypes map[string]string
	stringMaps map[string]map[string]string
	types      map[string]*typeName // spec.type parsed, by its text

	subUsed, subReported, tenantReported bool
	// origins is true when some -k output was traced to its source file.
	origins bool
	// tmplSecrets are the secrets of the valueFrom.template being
	// resolved (${secret:NAME}), nil outside one.
	tmplSecrets map[string]term
}

// resolve computes IDs, references, secrets, edges and schema findings.
func (l *loader) resolve() {
	l.byName = map[string][]*entry{}
	l.byTypeName = map[typeNameKey][]*entry{}
	l.lowerTypes = map[string]string{}
	for _, e := range l.entries {
		l.index(e)
		if v := e.spec.typ; v != "" {
			_, e.res.APIVersion, _ = strings.Cut(v, "@")
		}
	}
	for _, e := range l.entries {
		computed := strings.Contains(e.res.Name, "${")
		if l.resolveID(e) && computed && e.res.NameDeferred == nil && !slices.Contains(e.names(), strings.ToLower(e.res.Name)) {
			// A name computed now (a guid over IDs) can be referenced
			// by its value too, once known.
			l.indexName(e, strings.ToLower(e.res.Name))
		}
	}
	for _, e := range l.entries {
		// ARM names role assignments by GUID only; kustomize's renaming of
		// a literal GUID makes a name ARM refuses.
		if e.sourceName != "" && strings.EqualFold(e.typ.full, "Microsoft.Authorization/roleAssignments") && armid.IsGUID(e.sourceName) && !armid.IsGUID(e.res.Name) {
			l.ps.add(e.res.Origin, "metadata.name", "kustomize renamed the role assignment %s to %q, which is no GUID and ARM refuses; name it in spec.name with ${guid:...} over what differs per environment (its scope, principal and role), e.g. spec.name: ${guid:${ref:SCOPE}-PRINCIPAL-ROLE}", e.sourceName, e.res.Name)
			e.state = idFailed
		}
	}
	// Duplicates: the same ARM ID twice, whatever the casing.
	l.byID = newIDIndex()
	for _, e := range l.entries {
		if e.state != idDone || e.res.NameDeferred != nil {
			continue // a name known after apply cannot be compared yet
		}
		if first := l.byID.get(e.res.ID); first != nil {
			l.ps.add(e.res.Origin, "metadata.name", "duplicate resource: %s already declares %s %s with the same ARM ID (IDs compare case-insensitively)", first.res.Origin, first.typ.full, first.res.Name)
			e.state = idFailed
			continue
		}
		l.byID.add(e)
	}
	l.distinctDeferredIDs()
	for _, e := range l.entries {
		if e.state != idDone {
			continue
		}
		// Every managed ancestor (group, parent, scope) must exist first.
		if id, err := armid.Parse(e.res.ID); err == nil {
			path := placementPath(e)
			for p, ok := id.Parent(); ok; p, ok = p.Parent() {
				if a := l.byID.get(p.String()); a != nil && a != e {
					e.edges = append(e.edges, edge{to: a, path: path})
				}
			}
		}
		l.dependsOn(e)
		body, _, _ := l.walk(e, e.body, "spec.body", "")
		e.res.Body, _ = body.(map[string]any)
		if e.res.Body == nil {
			e.res.Body = map[string]any{}
		}
		e.body = nil // the resource holds the resolved body now
	}
	l.checkInlineChildren()
	l.checkVersions()
	for _, e := range l.entries {
		if e.state == idDone && !e.existing { // an existing resource has no body to judge
			l.schema(e)
		}
	}
	// After the schema: a readonly back-reference it removed (an NSG's
	// networkInterfaces naming the NIC that names the NSG) orders nothing.
	l.checkCycles()
	for _, e := range l.entries {
		seen := map[string]bool{}
		var deps []*entry
		for _, ed := range e.edges {
			k := armid.Key(ed.to.res.ID)
			if ed.to.state != idDone || seen[k] {
				continue
			}
			seen[k] = true
			deps = append(deps, ed.to)
		}
		slices.SortFunc(deps, func(a, b *entry) int { return strings.Compare(a.res.ID, b.res.ID) })
		e.deps = deps
	}
}

// checkInlineChildren refuses a child resource declared twice: as an item
// of its parent's inline collection (a vnet's properties.subnets, an NSG's
// properties.securityRules, a load balancer's inboundNatRules) and as a
// resource of its own. Each write of one undoes what the other wrote, so
// the plan would never settle. ARM keeps an inline collection of child
// resources under properties.<child type's last segment>, items named by
// "name", so the check needs no list of types.
func (l *loader) checkInlineChildren() {
	at := func(e *entry, path string) string {
		s := e.res.Origin.String()
		if n := l.ps.line(e.res.Origin, path); n > 0 {
			s += fmt.Sprintf(" (line %d)", n)
		}
		return s
	}
	for _, e := range l.entries {
		if e.state != idDone || e.res.NameDeferred != nil {
			continue
		}
		props, _ := e.res.Body["properties"].(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(props)) {
			items, _ := props[k].([]any)
			for i, it := range items {
				m, _ := it.(map[string]any)
				name, _ := m["name"].(string)
				if name == "" || strings.Contains(name, "/") {
					continue
				}
				c := l.byID.get(e.res.ID + "/" + k + "/" + name)
				if c == nil || c == e || c.state != idDone || !strings.EqualFold(c.typ.full, e.typ.full+"/"+k) {
					continue
				}
				item := fmt.Sprintf("spec.body.properties.%s[%d]", k, i)
				l.ps.add(e.res.Origin, item, "%s %s is declared twice: here, inline in %s's properties.%s, and as its own resource at %s; both would write it and undo each other. Keep one: remove this item, or remove that document", c.typ.full, name, e.res.Name, k, at(c, c.namePath))
				l.ps.add(c.res.Origin, c.namePath, "%s %s is declared twice: here, as its own resource, and inline in %s's properties.%s at %s; both would write it and undo each other. Keep one: remove this document, or remove that item", c.typ.full, c.res.Name, e.res.Name, k, at(e, item))
			}
		}
	}
}

// index makes e findable by every name references may use.
func (l *loader) index(e *entry) {
	for _, n := range e.names() {
		l.indexName(e, n)
	}
}

func (l *loader) indexName(e *entry, n string) {
	l.byName[n] = append(l.byName[n], e)
	tn := l.typeNameKey(e.typ.full, n)
	l.byTypeName[tn] = append(l.byTypeName[tn], e)
}

// distinctDeferredIDs keeps the IDs of resources whose names are known
// only after apply distinct, so maps keyed by ID never merge two of them:
// the second one under the same parent and type gets "(known after
// apply) 2" as its last segment, and so on. IDForName replaces it.
func (l *loader) distinctDeferredIDs() {
	seen := map[string]int{}
	for _, e := range l.entries {
		if e.state != idDone || e.res.NameDeferred == nil {
			continue
		}
		k := armid.Key(e.res.ID)
		seen[k]++
		if n := seen[k]; n > 1 || l.byID.get(e.res.ID) != nil {
			e.res.ID = fmt.Sprintf("%s %d", e.res.ID, n+1)
		}
	}
}

func quote(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return jsonKind(v)
}
