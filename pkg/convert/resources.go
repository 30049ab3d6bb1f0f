package convert

import (
	"fmt"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/convert/expr"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
)

// decl is one resource declaration of a template; doc is one instance of
// it (a copy loop makes many, a false condition none).
type decl struct {
	d        *deployment
	raw      map[string]any
	path     string
	symbolic string
	parent   *doc
	base     *evalCtx
	done     bool
	busy     bool
	docs     []*doc
}

type doc struct {
	decl       *decl
	ctx        *evalCtx
	path       string
	typ        string
	apiVersion string
	name       any   // the full ARM name: a string, or one with deploy-time parts
	segs       []any // its segments
	symbolic   string
	existing   bool
	inner      *deployment // a nested deployment, inlined
	sub, group any
	scopeVal   any // an extension resource's scope (an ID)
	body       map[string]any
	dependsOn  []any
	failed     bool
	skip       bool
	// set when rendering
	meta   string
	refKey string
}

// bodyless are the members of a template resource that are not its body.
var bodyless = map[string]bool{
	"name": true, "type": true, "apiversion": true, "dependson": true, "copy": true,
	"condition": true, "resources": true, "comments": true, "scope": true, "existing": true,
	"metadata": true, "import": true, "subscriptionid": true, "resourcegroup": true, "asserts": true,
}

// declarations lists a template's resources: an array, or (languageVersion
// 2.0) an object keyed by symbolic name, in key order.
func declarations(d *deployment) []*decl {
	var out []*decl
	switch rs := memberOf(d.tmpl, "resources").(type) {
	case []any:
		for i, raw := range rs {
			m, ok := raw.(map[string]any)
			path := d.path(fmt.Sprintf("resources[%d]", i))
			if !ok {
				d.r.problem(path, manifest.SeverityError, "a resource must be an object")
				continue
			}
			out = append(out, &decl{d: d, raw: m, path: path})
		}
	case map[string]any:
		for _, k := range expr.SortedKeys(rs) {
			m, ok := rs[k].(map[string]any)
			path := d.path(joinPath("resources", k))
			if !ok {
				d.r.problem(path, manifest.SeverityError, "a resource must be an object")
				continue
			}
			out = append(out, &decl{d: d, raw: m, path: path, symbolic: k})
		}
	}
	return out
}

// expand makes the instances of every declaration of d.
func (d *deployment) expand() {
	for _, dc := range d.decls {
		dc.expand()
	}
}

func (dc *decl) ctx() *evalCtx {
	if dc.base != nil {
		return dc.base.with(dc.path)
	}
	return dc.d.ctx(dc.path)
}

func (dc *decl) expand() {
	if dc.done || dc.busy {
		return
	}
	dc.busy = true
	defer func() { dc.busy, dc.done = false, true }()
	c := dc.ctx()
	if cp, ok := memberOf(dc.raw, "copy").(map[string]any); ok {
		name, count, err := c.loopHeader(cp, joinPath(dc.path, "copy"))
		if err != nil {
			dc.d.r.fail(err)
			return
		}
		for i := int64(0); i < count; i++ {
			if err := dc.instance(c.withLoop(name, i)); err != nil {
				dc.d.r.fail(err)
			}
		}
		return
	}
	if err := dc.instance(c); err != nil {
		dc.d.r.fail(err)
	}
}

// instance makes one doc: its condition, type, name and placement.
func (dc *decl) instance(c *evalCtx) error {
	r := dc.d.r
	if cond, ok := expr.Member(dc.raw, "condition"); ok {
		v, err := c.value(cond, joinPath(dc.path, "condition"))
		if err != nil {
			return err
		}
		b, err := expr.Bool(v)
		if err != nil {
			return &evalError{path: joinPath(dc.path, "condition"), msg: err.Error(), deferred: isDeferred(err)}
		}
		if !b {
			return nil
		}
	}
	typ, err := c.knownString(memberOf(dc.raw, "type"), joinPath(dc.path, "type"))
	if err != nil {
		return err
	}
	typ = strings.Trim(typ, "/")
	api, err := c.knownString(memberOf(dc.raw, "apiVersion"), joinPath(dc.path, "apiVersion"))
	if err != nil && !(dc.isExisting() && memberOf(dc.raw, "apiVersion") == nil) {
		return err
	}
	name, err := c.value(memberOf(dc.raw, "name"), joinPath(dc.path, "name"))
	if err != nil {
		return err
	}
	if name == nil {
		return c.errorf(joinPath(dc.path, "name"), "a resource needs a name")
	}
	dd := &doc{decl: dc, ctx: c, path: dc.path, typ: typ, apiVersion: api, name: name, symbolic: dc.symbolic, existing: dc.isExisting(), sub: dc.d.sub, group: dc.d.group}
	// A nested child's type and name are relative to its parent's
	// ("subnets", "blobServices/containers", "providers/diagnosticSettings")
	// unless the type starts with a provider namespace.
	if p := dc.parent; p != nil && !strings.Contains(strings.SplitN(typ, "/", 2)[0], ".") {
		dd.typ = p.typ + "/" + typ
		dd.name = concatParts([]any{p.name, "/", name})
	}
	dd.segs = splitName(dd.name)
	if err := dd.extensionForm(); err != nil {
		return err
	}
	if sv, ok := expr.Member(dc.raw, "scope"); ok {
		if dd.scopeVal, err = c.value(sv, joinPath(dc.path, "scope")); err != nil {
			return err
		}
		if dd.scopeVal, err = dd.relativeScope(dd.scopeVal); err != nil {
			return err
		}
	}
	if strings.EqualFold(dd.typ, "Microsoft.Resources/deployments") {
		// Its dependsOn only orders what it deploys when one resource is
		// written twice (merge.go); one it cannot evaluate orders nothing.
		_ = dd.evalDependsOn()
		return dc.deployment(dd)
	}
	r.docs = append(r.docs, dd)
	dc.docs = append(dc.docs, dd)
	return dd.children()
}

func (dc *decl) isExisting() bool {
	b, _ := memberOf(dc.raw, "existing").(bool)
	return b
}

func isDeferred(err error) bool {
	_, ok := err.(*expr.DeferredError)
	return ok
}

// children expands resources nested in a resource's "resources".
func (dd *doc) children() error {
	rs, _ := memberOf(dd.decl.raw, "resources").([]any)
	for i, raw := range rs {
		m, ok := raw.(map[string]any)
		path := fmt.Sprintf("%s.resources[%d]", dd.path, i)
		if !ok {
			return dd.ctx.errorf(path, "a resource must be an object")
		}
		child := &decl{d: dd.decl.d, raw: m, path: path, parent: dd, base: dd.ctx}
		dd.decl.d.decls = append(dd.decl.d.decls, child)
		child.expand()
	}
	return nil
}

// extensionForm rewrites the old extension form ("TYPE/providers/EXT"
// with the name "NAME/NAMESPACE/EXTNAME") into a type, a name and a scope.
func (dd *doc) extensionForm() error {
	base, ext, ok := strings.Cut(dd.typ, "/providers/")
	if !ok {
		return nil
	}
	n := strings.Count(base, "/")
	if len(dd.segs) != n+2 {
		return dd.ctx.errorf(joinPath(dd.path, "name"), "the name of a %s must have %d segments (the resource's name, the provider namespace, the extension's name), got %d: ARM finds incorrect segment lengths (%s)", dd.typ, n+2, len(dd.segs), armRefuses)
	}
	ns, ok := expr.Known(dd.segs[n])
	if !ok {
		return &evalError{path: joinPath(dd.path, "name"), msg: "the provider namespace of the name is known only at deploy time", deferred: true}
	}
	dd.scopeVal = &idRef{kind: idGroup, sub: dd.sub, group: dd.group, typ: base, names: dd.segs[:n]}
	dd.typ = fmt.Sprint(ns) + "/" + ext
	dd.name = dd.segs[n+1]
	dd.segs = dd.segs[n+1:]
	return nil
}

// splitName cuts a full name into its segments at "/", also where parts of
// it are known only at deploy time.
func splitName(v any) []any {
	var parts []any
	switch x := v.(type) {
	case string:
		parts = []any{x}
	case *expr.Concat:
		parts = x.Parts
	default:
		return []any{v}
	}
	var segs []any
	var cur []any
	for _, p := range parts {
		s, ok := p.(string)
		if !ok {
			cur = append(cur, p)
			continue
		}
		pieces := strings.Split(s, "/")
		for i, piece := range pieces {
			if i > 0 {
				segs = append(segs, concatParts(cur))
				cur = nil
			}
			if piece != "" {
				cur = append(cur, piece)
			}
		}
	}
	return append(segs, concatParts(cur))
}

func (c *evalCtx) knownString(v any, path string) (string, error) {
	r, err := c.value(v, path)
	if err != nil {
		return "", err
	}
	r, ok := expr.Known(r)
	s, isStr := r.(string)
	if !ok {
		return "", &evalError{path: path, msg: "known only at deploy time", deferred: true}
	}
	if !isStr || s == "" {
		return "", c.errorf(path, "must be a string, got %s", expr.TypeName(r))
	}
	return s, nil
}

// evalBody evaluates everything of a resource that is not its envelope.
func (dd *doc) evalBody() error {
	dd.body = map[string]any{}
	keys := expr.SortedKeys(dd.decl.raw)
	for _, k := range keys {
		if bodyless[strings.ToLower(k)] {
			continue
		}
		v, err := dd.ctx.value(dd.decl.raw[k], joinPath(dd.path, k))
		if err != nil {
			return err
		}
		if v != nil {
			dd.body[k] = v
		}
	}
	return dd.evalDependsOn()
}

func (dd *doc) evalDependsOn() error {
	deps, _ := memberOf(dd.decl.raw, "dependsOn").([]any)
	for i, dep := range deps {
		v, err := dd.ctx.value(dep, fmt.Sprintf("%s.dependsOn[%d]", dd.path, i))
		if err != nil {
			return err
		}
		dd.dependsOn = append(dd.dependsOn, v)
	}
	return nil
}

// deployment inlines a nested deployment with its own scope and
// parameters.
func (dc *decl) deployment(dd *doc) error {
	outer := dc.d
	props, _ := memberOf(dc.raw, "properties").(map[string]any)
	path := joinPath(dd.path, "properties")
	tmpl, ok := memberOf(props, "template").(map[string]any)
	base, file, uri := joinPath(path, "template"), outer.file, outer.uri
	link, linked := memberOf(props, "templateLink").(map[string]any)
	if linked {
		// A linked template has its own scope, whatever
		// expressionEvaluationOptions says; its problems point at the link.
		var err error
		base = joinPath(path, "templateLink")
		if tmpl, file, uri, err = dd.linked(link, base); err != nil {
			return err
		}
	} else if !ok {
		return dd.ctx.errorf(path, "a nested deployment needs properties.template or properties.templateLink")
	}
	name, _ := expr.Known(dd.name)
	nameStr, _ := name.(string)
	inner := &deployment{r: outer.r, tmpl: tmpl, base: base, file: file, uri: uri, name: nameStr, sub: outer.sub, group: outer.group, scope: outer.scope, location: outer.location, parent: outer}
	if err := dd.placeDeployment(inner); err != nil {
		return err
	}
	opts, _ := memberOf(props, "expressionEvaluationOptions").(map[string]any)
	innerScope := strings.ToLower(fmt.Sprint(memberOf(opts, "scope")))
	if isTelemetry(nameStr, tmpl) {
		outer.r.notes = append(outer.r.notes, fmt.Sprintf("dropped deployment %s (%s): it deploys nothing (a telemetry or empty deployment)", nameStr, dd.path))
		return nil
	}
	given := map[string]any{}
	if pl, ok := memberOf(props, "parametersLink").(map[string]any); ok {
		ps, err := dd.linkedParams(pl, joinPath(path, "parametersLink"))
		if err != nil {
			return err
		}
		for k, v := range ps {
			given[k] = v
		}
	}
	if innerScope == "inner" || linked {
		ps, _ := memberOf(props, "parameters").(map[string]any)
		for k, p := range ps {
			v, err := dd.ctx.moduleParam(p, joinPath(joinPath(path, "parameters"), k))
			if err != nil {
				return err
			}
			given[k] = v
		}
	} else {
		inner.outer = outer
	}
	dd.inner = inner
	dc.docs = append(dc.docs, dd)
	outer.r.docs = append(outer.r.docs, dd)
	if err := inner.init(given, false); err != nil {
		return err
	}
	if inner.outer != nil {
		for _, x := range inner.decls {
			x.base = dd.ctx.with(x.path)
			x.base.d = inner
		}
	}
	inner.expand()
	return nil
}

// placeDeployment reads a nested deployment's resourceGroup and
// subscriptionId.
func (dd *doc) placeDeployment(inner *deployment) error {
	if v, ok := expr.Member(dd.decl.raw, "subscriptionId"); ok {
		s, err := dd.ctx.value(v, joinPath(dd.path, "subscriptionId"))
		if err != nil {
			return err
		}
		if id, ok := s.(string); ok && id != "" && strings.EqualFold(id, dd.decl.d.r.scope.Subscription) {
			// The target subscription by its ID (--subscription): the
			// same subscription, not another one.
			s = dd.decl.d.r.sub
		}
		inner.sub = s
		if inner.scope == "resourceGroup" {
			inner.scope, inner.group = "subscription", ""
		}
	}
	if v, ok := expr.Member(dd.decl.raw, "resourceGroup"); ok {
		g, err := dd.ctx.value(v, joinPath(dd.path, "resourceGroup"))
		if err != nil {
			return err
		}
		inner.group, inner.scope = g, "resourceGroup"
	}
	if s, _ := memberOf(inner.tmpl, "$schema").(string); s != "" {
		if sc, err := templateScope(inner.tmpl); err == nil && sc != "resourceGroup" && inner.scope != "resourceGroup" {
			inner.scope = sc
		}
	}
	return nil
}

// moduleParam is one parameter a nested deployment is given: {value} or a
// Key Vault {reference} (a secret, read from the environment).
func (c *evalCtx) moduleParam(p any, path string) (any, error) {
	if s, ok := p.(string); ok {
		// The whole entry computed: "[createObject('value', ...)]".
		v, err := c.value(s, path)
		if err != nil {
			return nil, err
		}
		if v, ok := expr.Member(asObject(v), "value"); ok {
			return v, nil
		}
		return nil, c.errorf(path, "a deployment parameter needs a value")
	}
	m, _ := p.(map[string]any)
	if v, ok := expr.Member(m, "value"); ok {
		return c.value(v, joinPath(path, "value"))
	}
	if _, ok := expr.Member(m, "reference"); ok {
		name := path[strings.LastIndexAny(path, ".[")+1:]
		s := &secretValue{env: paramEnv(strings.Trim(name, `"]`)), param: name}
		c.d.r.addEnv(s.env, name)
		return s, nil
	}
	return nil, c.errorf(path, "a deployment parameter needs a value or a reference")
}

// isTelemetry: deployments that deploy nothing (the pid-GUID usage
// attribution deployments of partner templates, empty templates).
func isTelemetry(name string, tmpl map[string]any) bool {
	if strings.HasPrefix(strings.ToLower(name), "pid-") {
		return true
	}
	switch rs := memberOf(tmpl, "resources").(type) {
	case []any:
		return len(rs) == 0
	case map[string]any:
		return len(rs) == 0
	}
	return true
}

func asObject(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// relativeScope turns ARM's relative scope form
// ("Microsoft.Storage/storageAccounts/st1", no leading "/") into the ID of
// that resource in the doc's group.
func (dd *doc) relativeScope(v any) (any, error) {
	rel, ok := relativeScope(v)
	if !ok {
		return v, nil
	}
	path := joinPath(dd.path, "scope")
	segs := splitName(rel)
	if len(segs) < 3 || len(segs)%2 == 0 {
		return nil, dd.ctx.errorf(path, "a scope must be an ID or Namespace/type/name")
	}
	typ, _ := segs[0].(string)
	var names []any
	for i := 1; i+1 < len(segs); i += 2 {
		t, ok := segs[i].(string)
		if !ok {
			return nil, &evalError{path: path, msg: "the scope's type is known only at deploy time", deferred: true}
		}
		typ += "/" + t
		names = append(names, segs[i+1])
	}
	return &idRef{kind: idGroup, sub: dd.sub, group: dd.group, typ: typ, names: names}, nil
}

// relativeScope reports whether a scope is the relative form, which does
// not start with "/".
func relativeScope(v any) (any, bool) {
	switch x := v.(type) {
	case string:
		return x, !strings.HasPrefix(x, "/")
	case *expr.Concat:
		first, ok := x.Parts[0].(string)
		return x, ok && !strings.HasPrefix(first, "/")
	}
	return nil, false
}
