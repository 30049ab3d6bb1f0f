package manifest

import (
	"errors"
	"strconv"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

func placementPath(e *entry) string {
	for _, k := range []string{"id", "parent", "scope", "resourceGroup"} {
		if e.spec.field(k) != "" {
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
	if !armid.IsGUID(a.subscription) {
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
	ok := l.resolveName(e)
	var id string
	if ok {
		id, ok = l.buildID(e)
	}
	l.stack = l.stack[:len(l.stack)-1]
	if e.state == idFailed { // marked by a cycle report while we were below
		return false
	}
	if ok {
		if _, err := armid.Parse(id); err != nil {
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

// resolveName evaluates a metadata.name expression (${guid:...} over IDs
// or live values). A name that needs live data becomes NameDeferred, and
// the name in the ID is its display form until the engine resolves it.
func (l *loader) resolveName(e *entry) bool {
	n := e.res.Name
	if !strings.Contains(n, "${") {
		return true
	}
	v, d, ok := l.expandValue(e, e.namePath, n, liveRefs)
	if !ok {
		return false
	}
	if d != nil && e.existing {
		l.ps.add(e.res.Origin, e.namePath, "a resource annotated %s: true is read by its name, which must be known before any write; %s is known only after apply", AnnotationExisting, n)
		return false
	}
	if d != nil {
		e.res.NameDeferred = d
		e.res.Name = nameKnownAfterApply
		return true
	}
	name := v
	if err := validName(name); err != nil {
		l.ps.add(e.res.Origin, e.namePath, "%q (from %s) is not a valid ARM resource name: %v", name, n, err)
		return false
	}
	e.res.Name = name
	return true
}

func (l *loader) buildID(e *entry) (string, bool) {
	o := e.res.Origin
	str := func(k string) string { return strings.TrimSpace(e.spec.field(k)) }
	specID, rg, parent, scope := str("id"), str("resourceGroup"), str("parent"), str("scope")
	t := e.typ
	last := t.types[len(t.types)-1]
	isRG := strings.EqualFold(t.full, armid.ResourceGroupType)

	if specID != "" {
		if rg != "" || parent != "" || scope != "" {
			l.ps.add(o, "spec.id", "give either spec.id or spec.resourceGroup/parent/scope, not both")
			return "", false
		}
		s, ok := l.expand(e, "spec.id", specID, false)
		if !ok {
			return "", false
		}
		id, err := armid.Parse(s)
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
			l.ps.add(o, "spec.id", "ends in name %q, but %s is %q; make them agree", id.Name(), e.namePath, e.res.Name)
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
		p, err := armid.Parse(pid)
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
		if _, err := armid.Parse(sid); err != nil {
			l.ps.add(o, "spec.scope", "%v", err)
			return "", false
		}
		return strings.TrimSuffix(sid, "/") + "/providers/" + t.full + "/" + e.res.Name, true
	case rg != "":
		rg = l.groupName(rg)
		if len(t.types) > 1 {
			l.ps.add(o, "spec.parent", "missing: %s is a child type; set spec.parent to the parent's TYPE/NAME, e.g. %s/NAME", t.full, parentTypeHint(t))
			return "", false
		}
		if err := validName(rg); err != nil {
			l.ps.add(o, "spec.resourceGroup", "%q is not a resource group name: %v; give the name, not its ID (or use spec.id)", rg, err)
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

// refNames lists the names references can use, as TYPE/NAME when
// withType, for did-you-mean.
func (l *loader) refNames(withType bool) []string {
	out := make([]string, 0, len(l.entries))
	for _, e := range l.entries {
		n := e.refName()
		if n == "" || strings.Contains(n, "${") {
			continue
		}
		if withType {
			n = e.typ.full + "/" + n
		}
		out = append(out, n)
	}
	return out
}

// dependsOn adds the edges AnnotationDependsOn declares: each entry must
// name a loaded resource, like a reference.
func (l *loader) dependsOn(e *entry) {
	v, ok := e.res.Annotations[AnnotationDependsOn]
	if !ok {
		return
	}
	path := "metadata.annotations." + AnnotationDependsOn
	for _, n := range strings.Split(v, ",") {
		if n = strings.TrimSpace(n); n == "" {
			continue
		}
		t, found := l.lookup(e, path, n, "")
		if !found {
			continue
		}
		if t == e {
			l.ps.add(e.res.Origin, path, "%q is this resource itself; list the resources it must follow", n)
			continue
		}
		e.edges = append(e.edges, edge{to: t, path: path})
	}
}

// groupName returns the ARM name of the managed resource group that
// spec.resourceGroup names by any of the names references use (so a group
// kustomize renamed is followed), else rg as written.
func (l *loader) groupName(rg string) string {
	cands := l.byTypeName[l.typeNameKey(armid.ResourceGroupType, strings.ToLower(rg))]
	if len(cands) != 1 || !l.resolveID(cands[0]) || cands[0].res.NameDeferred != nil {
		return rg
	}
	return cands[0].res.Name
}

func parentTypeHint(t *typeName) string {
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
		cands = l.byTypeName[typeNameKey{strings.ToLower(typ), strings.ToLower(name)}]
	} else {
		cands = l.byName[strings.ToLower(ref)]
	}
	switch len(cands) {
	case 0:
		prefix := ""
		if shown != "" {
			prefix = shown + ": "
		}
		hint := ""
		if s := schema.Suggest(ref, l.refNames(strings.Contains(ref, "/"))); len(s) > 0 {
			hint = "did you mean " + s[0] + "? "
		} else if l.opts.Kustomize != "" && !l.origins {
			hint = "if the kustomization renames resources (namePrefix, nameSuffix), add buildMetadata: [originAnnotations] to it so references resolve by the names in the source files; else "
		}
		l.ps.add(e.res.Origin, path, "%sno resource %q in the loaded manifests; %scheck its metadata.name (and type), load its file too, or write the full ARM ID", prefix, ref, hint)
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
