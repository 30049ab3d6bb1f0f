package convert

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/kubectl-azure/kubectl-azure/pkg/convert/expr"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
)

// run is one evaluation of a template and the deployments it nests.
type run struct {
	t       *Template
	scope   Scope
	convert bool // deploy-time values become placeholders
	ctx     context.Context

	top      *deployment
	docs     []*doc
	problems []manifest.Problem
	notes    []string
	envs     []envVar
	keys     []expr.Unknown // property names known only at deploy time
	sub      *placeholder
	tenant   *placeholder
	reader   Reader // Evaluate's reference() and list*(), when given
	links    []Link // where linked templates are read from
	// evaluating is the doc whose body is being evaluated, if any: a
	// value read from another resource orders it after that one.
	evaluating *doc
}

// envVar is an environment variable a secret is read from.
type envVar struct{ name, param string }

// parseCache holds parsed expressions: templates repeat them (every
// resource's location, the same resourceId) and a corpus repeats templates.
var parseCache sync.Map

func (r *run) parse(s string) (expr.Node, error) {
	if n, ok := parseCache.Load(s); ok {
		return n.(expr.Node), nil
	}
	n, err := expr.Parse(s)
	if err != nil {
		return nil, err
	}
	parseCache.Store(s, n)
	return n, nil
}

func newRun(t *Template, s Scope, convert bool) *run {
	r := &run{t: t, scope: s, convert: convert, ctx: context.Background()}
	r.sub = &placeholder{text: "${subscriptionId}", value: s.Subscription}
	r.tenant = &placeholder{text: "${tenantId}", value: s.Tenant}
	return r
}

// problem records a problem at a JSON path of the template.
func (r *run) problem(path string, sev manifest.Severity, format string, args ...any) {
	r.problems = append(r.problems, manifest.Problem{
		File: r.t.src.file, Line: r.t.src.line(path), Path: path,
		Message: fmt.Sprintf(format, args...), Severity: sev,
	})
}

func (r *run) fail(err error) {
	var ee *evalError
	if errors.As(err, &ee) {
		r.problem(ee.path, manifest.SeverityError, "%s", ee.msg)
		return
	}
	r.problem("", manifest.SeverityError, "%v", err)
}

func (r *run) errors() bool {
	for _, p := range r.problems {
		if p.Severity != manifest.SeverityWarning {
			return true
		}
	}
	return false
}

// evaluate expands every deployment and evaluates every resource.
func (r *run) evaluate(ctx context.Context) error {
	if err := r.start(ctx); err != nil {
		return err
	}
	for _, d := range r.docs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.declares() {
			r.evaluating = d
			err := d.evalBody()
			r.evaluating = nil
			if err != nil {
				r.fail(err)
				d.failed = true
			}
		}
	}
	return nil
}

// start sets up the top deployment and expands every deployment, ready
// for the resources' bodies to be evaluated.
func (r *run) start(ctx context.Context) error {
	r.ctx = ctx
	group := any(r.scope.ResourceGroup)
	if r.t.scope != "resourceGroup" {
		group = ""
	}
	file := r.t.src.file
	r.top = &deployment{r: r, tmpl: r.t.root, file: file, uri: r.ownURI(file), name: r.t.name, sub: r.sub, group: group, scope: r.t.scope, location: r.scope.Location}
	if err := r.top.init(r.scope.Parameters, true); err != nil {
		return err
	}
	r.top.expand()
	return nil
}

// declares: the doc is a resource this deployment writes, not one
// skipped, a nested deployment or an existing resource.
func (d *doc) declares() bool { return !d.skip && d.inner == nil && !d.existing }

// deployment is a template being deployed: the top one or an inlined
// nested one.
type deployment struct {
	r        *run
	tmpl     map[string]any
	base     string // JSON path of tmpl in the file
	file     string // the file tmpl was read from: where relativePath starts
	uri      string // the URI it is deployed from, when known (a mapped file)
	name     string
	sub      any // string or *placeholder
	group    any // the group of a resource-group deployment, else ""
	scope    string
	location string
	parent   *deployment
	// outer: expressions read parameters and variables from here
	// (expressionEvaluationOptions.scope "outer").
	outer *deployment

	paramDefs map[string]map[string]any
	given     map[string]any
	params    map[string]any
	busy      map[string]bool
	vars      map[string]any
	varVals   map[string]any
	funcs     map[string]map[string]any
	decls     []*decl
	outputs   map[string]any
	outBusy   bool
}

func (d *deployment) path(p string) string {
	if d.base == "" {
		return p
	}
	if strings.HasPrefix(p, "[") {
		return d.base + p
	}
	return d.base + "." + p
}

// init reads parameters, variables, functions and resource declarations.
func (d *deployment) init(given map[string]any, top bool) error {
	d.given = map[string]any{}
	for k, v := range given {
		d.given[strings.ToLower(k)] = v
	}
	d.params, d.busy, d.varVals = map[string]any{}, map[string]bool{}, map[string]any{}
	d.paramDefs = map[string]map[string]any{}
	if ps, ok := memberOf(d.tmpl, "parameters").(map[string]any); ok {
		for k, v := range ps {
			def, ok := v.(map[string]any)
			if !ok {
				d.r.problem(d.path(joinPath("parameters", k)), manifest.SeverityError, "a parameter must be an object with a type")
				continue
			}
			d.paramDefs[strings.ToLower(k)] = def
			d.paramDefs[strings.ToLower(k)]["\x00name"] = k
		}
	}
	if top {
		for k := range given {
			if _, ok := d.paramDefs[strings.ToLower(k)]; !ok {
				return problems(manifest.Problem{File: d.r.t.src.file, Line: d.r.t.src.line("parameters"), Path: "parameters", Message: fmt.Sprintf("the template has no parameter %q (it has %s); %s for a parameter it does not declare", k, d.paramList(), armRefuses)})
			}
		}
	}
	d.vars, _ = memberOf(d.tmpl, "variables").(map[string]any)
	d.funcs = userFunctions(d)
	d.decls = declarations(d)
	// Every parameter given, or without a default, is checked, used or
	// not; a default is evaluated when used (one that needs what a
	// conversion cannot know only matters then).
	names := make([]string, 0, len(d.paramDefs))
	for k := range d.paramDefs {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		_, given := d.given[k]
		if _, hasDefault := expr.Member(d.paramDefs[k], "defaultValue"); hasDefault && !given {
			continue
		}
		if _, err := d.param(k); err != nil {
			d.r.fail(err)
		}
	}
	return nil
}

func (d *deployment) paramList() string {
	var names []string
	for _, def := range d.paramDefs {
		names = append(names, def["\x00name"].(string))
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

func memberOf(m map[string]any, name string) any {
	v, _ := expr.Member(m, name)
	return v
}

func (d *deployment) ctx(path string) *evalCtx { return &evalCtx{d: d, path: path} }

// paramSource is where the parameters and variables of d's expressions come from.
func (d *deployment) paramSource() *deployment {
	for d.outer != nil {
		d = d.outer
	}
	return d
}

// param is the value of a parameter: given, else its default.
func (d *deployment) param(key string) (any, error) {
	key = strings.ToLower(key)
	if v, ok := d.params[key]; ok {
		return v, nil
	}
	def, ok := d.paramDefs[key]
	if !ok {
		return nil, fmt.Errorf("the template has no parameter %q", key)
	}
	name := def["\x00name"].(string)
	path := d.path(joinPath("parameters", name))
	if d.busy[key] {
		return nil, d.ctx(path).errorf(path, "the default of parameter %s refers to itself", name)
	}
	d.busy[key] = true
	defer delete(d.busy, key)
	typ := strings.ToLower(fmt.Sprint(memberOf(def, "type")))
	v, given := d.given[key]
	if _, fromVault := v.(keyVaultRef); fromVault {
		if !d.r.convert {
			return nil, d.ctx(path).errorf(path, "parameter %s is a Key Vault reference, which only a deployment reads", name)
		}
		d.r.notes = append(d.r.notes, fmt.Sprintf("parameter %s is a Key Vault reference: the manifests read it from environment variable %s", name, paramEnv(name)))
		v, err := d.secureParam(key, name, typ, nil, false, path)
		if s, ok := v.(*secretValue); ok {
			s.known, s.other = false, false // the vault's value, not the default
		}
		return v, err
	}
	if d.r.convert && (typ == "securestring" || typ == "secureobject") {
		return d.secureParam(key, name, typ, v, given, path)
	}
	if !given {
		dv, has := expr.Member(def, "defaultValue")
		if !has {
			return nil, d.ctx(path).errorf(path, "parameter %s has no value: give it with --param %s=VALUE or in a --parameters file", name, name)
		}
		var err error
		if v, err = (&evalCtx{d: d, path: path, inDefault: true}).value(dv, joinPath(path, "defaultValue")); err != nil {
			return nil, err
		}
	}
	if err := checkParam(def, typ, v); err != nil {
		return nil, d.ctx(path).errorf(path, "parameter %s: %v", name, err)
	}
	d.params[key] = v
	return v, nil
}

// secureParam: a secure value is never written out. It is read from an
// environment variable named after the parameter, unless the outer
// template passes a value that is itself deploy-time (a secret, a key).
func (d *deployment) secureParam(key, name, typ string, v any, given bool, path string) (any, error) {
	if given {
		if _, ok := v.(expr.Unknown); ok {
			d.params[key] = v
			return v, nil
		}
	}
	if !given && d.parent != nil {
		// A module's secure parameter the caller left to its default.
		if _, has := expr.Member(d.paramDefs[key], "defaultValue"); !has {
			return nil, d.ctx(path).errorf(path, "parameter %s has no value", name)
		}
	}
	if given {
		d.r.notes = append(d.r.notes, fmt.Sprintf("the value given for secure parameter %s is not written to the manifests; they read it from environment variable %s", name, paramEnv(name)))
	}
	if typ == "secureobject" {
		d.r.problem(path, manifest.SeverityWarning, "parameter %s is a secureObject: it is read from environment variable %s as a string", name, paramEnv(name))
	}
	s := &secretValue{env: paramEnv(name), param: name, assumed: d.r.assumeQuery}
	if !given {
		v, given = expr.Member(d.paramDefs[key], "defaultValue")
		if str, ok := v.(string); ok && expr.IsExpression(str) {
			given = false
		}
	}
	if str, ok := v.(string); ok && given {
		s.known = str == "" || strings.HasPrefix(str, "?")
		s.other = !s.known
	}
	d.r.addEnv(s.env, name)
	d.params[key] = s
	return s, nil
}

// assumeQuery notes, once per parameter, that uri() or replace() took a
// secure value it cannot see to be empty or a query, as a SAS token is.
func (r *run) assumeQuery(param string) {
	note := fmt.Sprintf("secure parameter %s is taken to be empty or a query string ('?sv=...', a SAS token) where uri() or replace() place it; ARM would place any other value differently", param)
	for _, n := range r.notes {
		if n == note {
			return
		}
	}
	r.notes = append(r.notes, note)
}

func (r *run) addEnv(env, param string) {
	for _, e := range r.envs {
		if e.name == env {
			return
		}
	}
	r.envs = append(r.envs, envVar{name: env, param: param})
}

// paramEnv is the variable a secure parameter is read from: its envName,
// prefixed with TEMPLATE_ when that is one of the tool's own credential
// variables, which valueFrom.env never reads (a template parameter named
// azureClientSecret is not this tool's credential).
func paramEnv(param string) string {
	env := envName(param)
	if manifest.CredentialEnv(env) {
		return "TEMPLATE_" + env
	}
	return env
}

// envName is a parameter's environment variable: adminPassword is
// ADMIN_PASSWORD.
func envName(param string) string {
	var b strings.Builder
	rs := []rune(param)
	for i, c := range rs {
		lower := c >= 'a' && c <= 'z'
		upper := c >= 'A' && c <= 'Z'
		digit := c >= '0' && c <= '9'
		if !lower && !upper && !digit {
			if b.Len() > 0 && !strings.HasSuffix(b.String(), "_") {
				b.WriteByte('_')
			}
			continue
		}
		if upper && i > 0 && (rs[i-1] >= 'a' && rs[i-1] <= 'z' || rs[i-1] >= '0' && rs[i-1] <= '9' || i+1 < len(rs) && rs[i+1] >= 'a' && rs[i+1] <= 'z' && rs[i-1] >= 'A' && rs[i-1] <= 'Z') {
			if !strings.HasSuffix(b.String(), "_") {
				b.WriteByte('_')
			}
		}
		b.WriteRune(c)
	}
	return strings.ToUpper(strings.Trim(b.String(), "_"))
}

// checkParam checks a value against the parameter's type and allowed values.
func checkParam(def map[string]any, typ string, v any) error {
	if _, ok := v.(expr.Unknown); ok {
		return nil
	}
	if v == nil {
		return nil
	}
	ok := true
	switch typ {
	case "string", "securestring":
		_, ok = v.(string)
	case "int":
		_, ok = v.(int64)
	case "bool":
		_, ok = v.(bool)
	case "array":
		_, ok = v.([]any)
	case "object", "secureobject":
		_, ok = v.(map[string]any)
	}
	if !ok {
		return fmt.Errorf("want a value of type %s, got %s", typ, expr.TypeName(v))
	}
	if allowed, isArr := memberOf(def, "allowedValues").([]any); isArr && len(allowed) > 0 {
		if typ == "array" {
			for _, item := range v.([]any) {
				if !containsValue(allowed, item) {
					return fmt.Errorf("%v is not one of the allowed values %v", item, allowed)
				}
			}
		} else if !containsValue(allowed, v) {
			return fmt.Errorf("%v is not one of the allowed values %v", v, allowed)
		}
	}
	return nil
}

func containsValue(allowed []any, v any) bool {
	for _, a := range allowed {
		if expr.Equal(a, v) {
			return true
		}
	}
	return false
}

// variable is a variable's value, evaluated once.
func (d *deployment) variable(name string) (any, error) {
	key := strings.ToLower(name)
	if v, ok := d.varVals[key]; ok {
		return v, nil
	}
	if d.busy["var:"+key] {
		return nil, fmt.Errorf("variable %s refers to itself", name)
	}
	d.busy["var:"+key] = true
	defer delete(d.busy, "var:"+key)
	v, err := d.evalVariable(name)
	if err != nil {
		return nil, err
	}
	d.varVals[key] = v
	return v, nil
}

func (d *deployment) evalVariable(name string) (any, error) {
	// A variable copy loop: "copy": [{name, count, input}] at the top.
	if loops, ok := memberOf(d.vars, "copy").([]any); ok && isPropertyCopy(loops) {
		for _, l := range loops {
			m := l.(map[string]any)
			if n, _ := m["name"].(string); strings.EqualFold(n, name) {
				out := map[string]any{}
				if err := d.ctx("").propertyCopy(loops, d.path("variables.copy"), out); err != nil {
					return nil, err
				}
				return out[n], nil
			}
		}
	}
	for k, raw := range d.vars {
		if strings.EqualFold(k, name) && k != "copy" {
			return d.ctx("").value(raw, d.path(joinPath("variables", k)))
		}
	}
	return nil, fmt.Errorf("the template has no variable %q", name)
}

// userFunctions indexes "namespace.name" → the member definition.
func userFunctions(d *deployment) map[string]map[string]any {
	out := map[string]map[string]any{}
	nss, _ := memberOf(d.tmpl, "functions").([]any)
	for _, n := range nss {
		ns, _ := n.(map[string]any)
		prefix, _ := memberOf(ns, "namespace").(string)
		members, _ := memberOf(ns, "members").(map[string]any)
		for name, m := range members {
			if def, ok := m.(map[string]any); ok {
				out[strings.ToLower(prefix+"."+name)] = def
			}
		}
	}
	return out
}

// outputsOf evaluates a deployment's outputs as reference() returns them:
// {name: {type, value}}.
func (d *deployment) outputsOf() (map[string]any, error) {
	if d.outputs != nil {
		return d.outputs, nil
	}
	if d.outBusy {
		return nil, fmt.Errorf("the outputs of deployment %s refer to themselves", d.name)
	}
	d.outBusy = true
	defer func() { d.outBusy = false }()
	d.expand()
	out := map[string]any{}
	raw, _ := memberOf(d.tmpl, "outputs").(map[string]any)
	for k, o := range raw {
		def, _ := o.(map[string]any)
		path := d.path(joinPath("outputs", k))
		if c, ok := expr.Member(def, "condition"); ok {
			cv, err := d.ctx(path).value(c, joinPath(path, "condition"))
			if err != nil {
				return nil, err
			}
			if b, err := expr.Bool(cv); err != nil || !b {
				continue
			}
		}
		v, err := d.outputValue(def, path)
		if err != nil {
			return nil, err
		}
		out[k] = map[string]any{"type": memberOf(def, "type"), "value": v}
	}
	d.outputs = out
	return out, nil
}

func (d *deployment) outputValue(def map[string]any, path string) (any, error) {
	if c, ok := memberOf(def, "copy").(map[string]any); ok {
		name, count, err := d.ctx(path).loopHeader(map[string]any{"name": "\x00output", "count": c["count"]}, joinPath(path, "copy"))
		if err != nil {
			return nil, err
		}
		items := make([]any, 0, count)
		for i := int64(0); i < count; i++ {
			v, err := d.ctx(path).withLoop(name, i).value(c["input"], joinPath(path, "copy.input"))
			if err != nil {
				return nil, err
			}
			items = append(items, v)
		}
		return items, nil
	}
	return d.ctx(path).value(memberOf(def, "value"), joinPath(path, "value"))
}
