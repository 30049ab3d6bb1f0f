package convert

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/convert/expr"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
)

// Options are the choices of one conversion.
type Options struct {
	Scope
	// Partial writes what converted and reports the rest as warnings.
	Partial bool
	// Links are the local copies of linked templates (--linked-templates).
	Links []Link
}

// Manifest is one converted document.
type Manifest struct {
	// Name is metadata.name; File groups documents for --output-dir: the
	// resource group (or the module) the resource came from.
	Name string
	File string
	// Doc is the document, its envelope in the manifest's order.
	Doc Ordered
}

// Ordered is an object whose keys are written in this order.
type Ordered struct {
	Keys   []string
	Values map[string]any
}

func (o *Ordered) set(k string, v any) {
	if o.Values == nil {
		o.Values = map[string]any{}
	}
	if _, ok := o.Values[k]; !ok {
		o.Keys = append(o.Keys, k)
	}
	o.Values[k] = v
}

// Output is a template output and what reads it.
type Output struct {
	Name  string
	Value string // the value, with placeholders
	// Get is the command that reads it after apply, when it is one value
	// of one converted resource.
	Get string
	// Transform, with Get, are the steps (replace, split) that make the
	// output of the value Get reads, in the manifests' transform syntax as
	// JSON; "" when the value is the output itself.
	Transform string
}

// Result is a conversion.
type Result struct {
	Manifests []Manifest
	// Env names every environment variable a secret is read from, with
	// the parameter it stands for.
	Env     []EnvVar
	Outputs []Output
	Notes   []string
	// Warnings are problems that do not stop the conversion (all of them
	// with Partial).
	Warnings []manifest.Problem
}

// EnvVar is an environment variable a secret is read from.
type EnvVar struct{ Name, Param string }

// Convert turns the template into manifests. Anything it cannot express
// exactly is a problem (a *Problems error) unless o.Partial.
func (t *Template) Convert(ctx context.Context, o Options) (*Result, error) {
	r := newRun(t, o.Scope, true)
	r.links = o.Links
	if err := r.evaluate(ctx); err != nil {
		return nil, err
	}
	if t.scope == "resourceGroup" && o.ResourceGroup == "" {
		return nil, problems(manifest.Problem{File: t.src.file, Line: t.src.line("$schema"), Path: "$schema", Message: "a resource-group template needs --resource-group NAME (the group it deploys to) and --location LOC"})
	}
	rd := newRenderer(r)
	res := rd.render()
	if r.errors() && !o.Partial {
		return nil, &Problems{Problems: r.problems}
	}
	for _, p := range r.problems {
		p.Severity = manifest.SeverityWarning
		res.Warnings = append(res.Warnings, p)
	}
	for _, e := range r.envs {
		res.Env = append(res.Env, EnvVar{Name: e.name, Param: e.param})
	}
	res.Notes = r.notes
	return res, nil
}

// renderer writes docs as manifests: placeholders for deploy-time values,
// references where the target is converted too.
type renderer struct {
	r     *run
	docs  []*doc // emitted, in order
	group *doc   // the target group, emitted for a resource-group template
	texts map[*doc]string
	busy  map[*doc]bool
	edges map[*doc]bool // what the document being rendered refers to
	// literal renders IDs as IDs, never as references: the form lookups
	// compare.
	literal bool
	cur     *doc // the document being rendered
	// outside are the resources read but not created, by ID key, in the
	// order first read (outside.go).
	outside      map[string]*outside
	outsideOrder []string
	// placing is set while a placement is rendered: no live value there.
	placing bool
}

func newRenderer(r *run) *renderer {
	rd := &renderer{r: r, texts: map[*doc]string{}, busy: map[*doc]bool{}}
	if r.t.scope == "resourceGroup" && r.scope.ResourceGroup != "" {
		rd.group = &doc{typ: "Microsoft.Resources/resourceGroups", apiVersion: "2021-04-01", name: r.scope.ResourceGroup,
			segs: []any{r.scope.ResourceGroup}, sub: r.sub, group: "", body: map[string]any{"location": r.scope.Location}}
		rd.docs = append(rd.docs, rd.group)
	}
	for _, d := range r.docs {
		if !d.skip && !d.failed && d.inner == nil && !d.existing {
			rd.docs = append(rd.docs, d)
		}
	}
	rd.mergeRepeats()
	rd.mergeInlineChildren()
	rd.selfReads()
	rd.names()
	return rd
}

// names gives every doc its metadata.name: the ARM name's last segment,
// else (a computed name) its symbolic name. Two docs of one type with one
// name (children of two parents) are told apart by the parent's name, the
// ARM name then in spec.name. A name other types share is referenced as
// TYPE/NAME, since references match ARM names too.
func (rd *renderer) names() {
	for _, d := range rd.docs {
		leaf := d.segs[len(d.segs)-1]
		if s, ok := leaf.(string); ok && plainName(s) {
			d.meta = s
		} else if d.symbolic != "" {
			d.meta = d.symbolic
		} else if sym := nameSymbol(d); sym != "" {
			d.meta = sym
		} else {
			d.meta = strings.ToLower(d.typ[strings.LastIndex(d.typ, "/")+1:])
		}
	}
	// Every doc of a colliding (type, name) is renamed, the first too: its
	// plain name would still match the others' ARM names.
	group := map[string][]*doc{}
	for _, d := range rd.docs {
		k := strings.ToLower(d.typ + "|" + d.meta)
		group[k] = append(group[k], d)
	}
	for _, d := range rd.docs {
		same := group[strings.ToLower(d.typ+"|"+d.meta)]
		if len(same) < 2 {
			continue
		}
		for n, x := range same {
			if p, ok := parentLeaf(x); ok {
				x.meta = p + "-" + x.meta
			} else {
				x.meta = fmt.Sprintf("%s-%d", x.meta, n+1)
			}
		}
	}
	// Parents of one name too: number what still collides.
	seen := map[string]int{}
	for _, d := range rd.docs {
		k := strings.ToLower(d.typ + "|" + d.meta)
		if seen[k]++; seen[k] > 1 {
			d.meta = fmt.Sprintf("%s-%d", d.meta, seen[k])
		}
	}
	uses := map[string]int{}
	for _, d := range rd.docs {
		uses[strings.ToLower(d.meta)]++
		if s, ok := d.segs[len(d.segs)-1].(string); ok && !strings.EqualFold(s, d.meta) {
			uses[strings.ToLower(s)]++
		}
	}
	for _, d := range rd.docs {
		d.refKey = d.meta
		if uses[strings.ToLower(d.meta)] > 1 {
			d.refKey = d.typ + "/" + d.meta
		}
	}
}

func parentLeaf(d *doc) (string, bool) {
	if len(d.segs) < 2 {
		return "", false
	}
	p, ok := d.segs[len(d.segs)-2].(string)
	return p, ok && plainName(p)
}

// nameSymbol is the parameter or variable a computed name comes from
// ("[parameters('storageAccountName')]" gives storageAccountName).
func nameSymbol(d *doc) string {
	raw, _ := memberOf(d.decl.raw, "name").(string)
	m := symbolName.FindStringSubmatch(raw)
	if m == nil || d.decl.parent != nil {
		return ""
	}
	return m[1]
}

var symbolName = regexp.MustCompile(`^\[(?i:parameters|variables)\('([A-Za-z][A-Za-z0-9_-]*)'\)\]$`)

func plainName(s string) bool {
	return s != "" && !strings.ContainsAny(s, "${}/,")
}

func (rd *renderer) render() *Result {
	res := &Result{}
	for _, d := range rd.docs {
		m, err := rd.manifest(d)
		if err != nil {
			rd.fail(d, err)
			continue
		}
		res.Manifests = append(res.Manifests, m)
	}
	res.Outputs = rd.outputs()
	res.Manifests = append(res.Manifests, rd.outsideManifests()...)
	return res
}

func (rd *renderer) fail(d *doc, err error) {
	var ee *evalError
	if errors.As(err, &ee) {
		rd.r.fail(err)
		return
	}
	rd.r.problem(d.path, manifest.SeverityError, "%v", err)
}

// manifest renders one doc.
func (rd *renderer) manifest(d *doc) (Manifest, error) {
	rd.edges = map[*doc]bool{}
	rd.cur = d
	defer func() { rd.cur = nil }()
	spec := Ordered{}
	spec.set("type", d.typ+"@"+d.apiVersion)
	leaf, err := rd.nameText(d.segs[len(d.segs)-1], joinPath(d.path, "name"))
	if err != nil {
		return Manifest{}, err
	}
	if leaf != d.meta {
		spec.set("name", leaf)
	}
	if err := rd.place(d, &spec); err != nil {
		return Manifest{}, err
	}
	body, err := rd.value(d.body, d.path)
	if err != nil {
		return Manifest{}, err
	}
	if bm, _ := body.(map[string]any); len(bm) > 0 {
		spec.set("body", body)
	}
	meta := Ordered{}
	meta.set("name", d.meta)
	if deps := rd.dependsOn(d); len(deps) > 0 {
		meta.set("annotations", map[string]any{"azure.kubectl.io/depends-on": strings.Join(deps, ", ")})
	}
	doc := Ordered{}
	doc.set("apiVersion", "azure.kubectl.io/v1alpha1")
	doc.set("kind", "Resource")
	doc.set("metadata", meta)
	doc.set("spec", spec)
	return Manifest{Name: d.meta, File: rd.fileOf(d), Doc: doc}, nil
}

// fileOf names the --output-dir file of a doc: its group, or its module.
func (rd *renderer) fileOf(d *doc) string {
	if d.decl != nil && d.decl.d.parent != nil && d.decl.d.name != "" {
		return d.decl.d.name
	}
	if g, ok := d.group.(string); ok && g != "" {
		return g
	}
	if d == rd.group {
		return rd.r.scope.ResourceGroup
	}
	return rd.r.t.name
}

// place writes the doc's one placement: scope, parent, group or none.
func (rd *renderer) place(d *doc, spec *Ordered) error {
	rd.placing = true
	defer func() { rd.placing = false }()
	switch {
	case d.scopeVal != nil:
		s, err := rd.scopeText(d, d.scopeVal)
		if err != nil {
			return err
		}
		spec.set("scope", s)
	case len(d.segs) > 1:
		p, err := rd.parentText(d)
		if err != nil {
			return err
		}
		spec.set("parent", p)
	case strings.EqualFold(d.typ, "Microsoft.Resources/resourceGroups"):
	case d.group != "" && d.group != nil:
		g, err := rd.nameText(d.group, joinPath(d.path, "resourceGroup"))
		if err != nil {
			return err
		}
		spec.set("resourceGroup", g)
	default:
		s, err := rd.text(rd.scopeRoot(d), d.path)
		if err != nil {
			return err
		}
		spec.set("scope", s)
	}
	if d.sub != rd.r.sub {
		if _, ok := d.sub.(*placeholder); !ok {
			return &evalError{path: d.path, msg: "a resource in another subscription (subscriptionId of a nested deployment) is not converted: convert it with --subscription of its own", deferred: true}
		}
	}
	return nil
}

// scopeRoot is the scope of a subscription-, management-group- or
// tenant-level resource.
func (rd *renderer) scopeRoot(d *doc) any {
	switch d.decl.d.scope {
	case "tenant":
		return "/"
	case "managementGroup":
		return concatParts([]any{"/providers/Microsoft.Management/managementGroups/", (&evalCtx{d: d.decl.d}).mgName()})
	}
	return concatParts([]any{"/subscriptions/", d.sub})
}

// scopeText renders an extension resource's scope: a converted resource
// by reference, else its ID. ARM also takes a relative "Type/name" form.
func (rd *renderer) scopeText(d *doc, v any) (string, error) {
	if id, ok := v.(*idRef); ok {
		if t := rd.lookup(id); t != nil {
			rd.edges[t] = true
			return t.refKey, nil
		}
	}
	return rd.text(v, joinPath(d.path, "scope"))
}

// parentText names a child's parent: by reference when converted, else by
// its ID.
func (rd *renderer) parentText(d *doc) (string, error) {
	cut := strings.LastIndex(d.typ, "/")
	id := &idRef{kind: idGroup, sub: d.sub, group: d.group, typ: d.typ[:cut], names: d.segs[:len(d.segs)-1]}
	if d.group == "" || d.group == nil {
		id.kind = idSubscription
	}
	if t := rd.lookup(id); t != nil {
		rd.edges[t] = true
		return t.refKey, nil
	}
	rd.ancestorEdge(id)
	return rd.text(id, joinPath(d.path, "name"))
}

// nameText renders a name; it may hold placeholders but no secret.
func (rd *renderer) nameText(v any, path string) (string, error) {
	s, err := rd.text(v, path)
	if err != nil {
		return "", err
	}
	return s, nil
}

// text renders a value that must be a string (placeholders allowed,
// secrets not).
func (rd *renderer) text(v any, path string) (string, error) {
	var t textBuilder
	if err := rd.build(&t, v, path); err != nil {
		return "", err
	}
	if len(t.secrets) > 0 {
		return "", &evalError{path: path, msg: "a secret cannot be part of a name, a scope or a key", deferred: true}
	}
	return t.b.String(), nil
}

// textBuilder collects a string's text and the secrets it holds.
type textBuilder struct {
	b       strings.Builder
	secrets []secretSource
}

type secretSource struct {
	name string
	src  map[string]any
}

func escape(s string) string { return strings.ReplaceAll(s, "${", "$${") }

// build appends v's text: literals escaped, deploy-time values as
// placeholders.
func (rd *renderer) build(t *textBuilder, v any, path string) error {
	switch x := v.(type) {
	case string:
		t.b.WriteString(escape(x))
	case int64, float64, bool:
		s, _ := expr.String(x)
		t.b.WriteString(s)
	case *placeholder:
		if x.text == mgPlaceholder {
			if x.value == "" {
				return &evalError{path: path, msg: "the management group's name is known only at deploy time (manifests have no placeholder for it)", deferred: true}
			}
			t.b.WriteString(escape(x.value))
			return nil
		}
		t.b.WriteString(x.text)
	case *expr.Concat:
		for _, p := range x.Parts {
			if err := rd.build(t, p, path); err != nil {
				return err
			}
		}
	case *expr.Hash:
		return rd.buildHash(t, x, path)
	case *idRef:
		return rd.buildID(t, x, path)
	case *refValue:
		return rd.buildRef(t, x, path)
	case *actionValue:
		src, err := rd.action(x, path)
		if err != nil {
			return err
		}
		t.secret(map[string]any{"action": src})
	case *secretValue:
		t.secret(map[string]any{"env": x.env})
	case *expr.Encoded:
		of, steps := x.Of, []expr.Step(nil)
		if tr, ok := of.(*expr.Transformed); ok {
			of, steps = tr.Of, tr.Steps
		}
		refused := (&expr.DeferredError{Func: "base64", What: x.Of.(expr.Unknown).Describe()}).Error()
		return rd.buildPart(t, of, steps, "base64", refused, path)
	case *expr.Transformed:
		refused := x.Describe() + " needs a value known only at deploy time inside a longer string; only a whole value over a secret can be transformed"
		return rd.buildPart(t, x.Of, x.Steps, "", refused, path)
	case *expr.Parts:
		return &evalError{path: path, msg: x.Describe() + " is an array known only at deploy time; only one item of it (split(...)[0]) can be part of a string", deferred: true}
	default:
		return &evalError{path: path, msg: fmt.Sprintf("a %s cannot be part of a string", expr.TypeName(v))}
	}
	return nil
}

// buildPart writes a string function over a deploy-time value inside a
// longer string as a template under the outer template's secrets, with its
// own steps and encoding. Its text may hold placeholders, not secrets: a
// part of a secret would have to be a secret of its own.
func (rd *renderer) buildPart(t *textBuilder, of any, steps []expr.Step, encoding, refused, path string) error {
	var inner textBuilder
	if err := rd.build(&inner, of, path); err != nil {
		return err
	}
	if len(inner.secrets) > 0 {
		return &evalError{path: path, msg: refused, deferred: true}
	}
	src := map[string]any{"template": inner.b.String()}
	if len(steps) > 0 {
		src["transform"] = transformSteps(steps)
	}
	if encoding != "" {
		src["encoding"] = encoding
	}
	t.secret(src)
	return nil
}

func (t *textBuilder) secret(src map[string]any) {
	name := fmt.Sprintf("s%d", len(t.secrets))
	t.secrets = append(t.secrets, secretSource{name: name, src: src})
	t.b.WriteString("${secret:" + name + "}")
}

// buildHash: uniqueString()/guid() known now are written out; over
// deploy-time values they become ${uniqueString:...}/${guid:...}.
func (rd *renderer) buildHash(t *textBuilder, h *expr.Hash, path string) error {
	if v, ok := h.Resolve(); ok {
		t.b.WriteString(escape(v.(string)))
		return nil
	}
	args := make([]string, len(h.Args))
	for i, a := range h.Args {
		s, err := rd.text(a, path)
		if err != nil {
			return err
		}
		if strings.Contains(s, ",") && h.Func == "uniqueString" {
			return &evalError{path: path, msg: "an argument of uniqueString() holds a comma, which ${uniqueString:...} would split", deferred: true}
		}
		args[i] = s
	}
	sep := ","
	if h.Func == "guid" {
		sep = "-" // guid(a, b) is guid('a-b'), and kustomize renames names without commas
	}
	t.b.WriteString("${" + h.Func + ":" + strings.Join(args, sep) + "}")
	return nil
}

func (rd *renderer) buildID(t *textBuilder, id *idRef, path string) error {
	if rd.literal {
		return rd.build(t, id.concat(), path)
	}
	if id.typ == "" && id.kind == idGroup {
		g, err := rd.text(id.group, path)
		if err != nil {
			return err
		}
		if rd.group != nil && strings.EqualFold(g, rd.r.scope.ResourceGroup) {
			rd.edges[rd.group] = true
			t.b.WriteString("${ref:" + rd.group.refKey + "}")
			return nil
		}
		if gd := rd.lookupGroup(g); gd != nil {
			rd.edges[gd] = true
			t.b.WriteString("${ref:" + gd.refKey + "}")
			return nil
		}
		if id.sub == rd.r.sub {
			t.b.WriteString("${resourceGroupId:" + g + "}")
			return nil
		}
	}
	if target := rd.lookup(id); target != nil && !rd.writtenAfter(target, rd.cur) {
		rd.edges[target] = true
		t.b.WriteString("${ref:" + target.refKey + "}")
		return nil
	}
	rd.ancestorEdge(id)
	return rd.build(t, id.concat(), path)
}

// writtenAfter: the template's dependsOn orders t after d, directly or
// through others. ARM orders only by dependsOn; an ID in d's body is a
// string to it. A reference would order t first and close a cycle with
// t's depends-on, so d names t by its ID, an edge the loader lets give way.
func (rd *renderer) writtenAfter(t, d *doc) bool {
	if d == nil || t == d {
		return false
	}
	seen := map[*doc]bool{t: true}
	queue := []*doc{t}
	for len(queue) > 0 {
		a := queue[0]
		queue = queue[1:]
		for _, b := range rd.docs {
			if seen[b] || b.skip || !rd.dependsOnDoc(a, b) {
				continue
			}
			if b == d {
				return true
			}
			seen[b] = true
			queue = append(queue, b)
		}
	}
	return false
}

// ancestorEdge records the nearest converted ancestor of an ID written
// out: the loader orders by it, so no depends-on needs to say so.
func (rd *renderer) ancestorEdge(id *idRef) {
	segs := strings.Split(id.typ, "/")
	for n := len(id.names) - 1; n >= 1; n-- {
		up := *id
		up.typ, up.names = strings.Join(segs[:n+1], "/"), id.names[:n]
		if t := rd.lookup(&up); t != nil {
			rd.edges[t] = true
			return
		}
	}
}

func (rd *renderer) lookupGroup(name string) *doc {
	for _, d := range rd.docs {
		if strings.EqualFold(d.typ, "Microsoft.Resources/resourceGroups") && len(d.segs) == 1 {
			if n, ok := expr.Known(d.segs[0]); ok && strings.EqualFold(fmt.Sprint(n), name) {
				return d
			}
		}
	}
	return nil
}

// lookup finds the converted doc an ID names, comparing the IDs as ARM
// does (ignoring case), deploy-time parts compared as placeholders.
func (rd *renderer) lookup(id *idRef) *doc {
	if id.typ == "" {
		return nil
	}
	want, err := rd.literalText(id.concat())
	if err != nil {
		return nil
	}
	for _, d := range rd.docs {
		if strings.EqualFold(d.typ, id.typ) && rd.docKey(d) == want {
			return d
		}
	}
	return nil
}

// docKey is a doc's ID in the form lookup compares.
func (rd *renderer) docKey(d *doc) string {
	if k, ok := rd.texts[d]; ok {
		return k
	}
	if rd.busy[d] {
		return "\x00busy"
	}
	rd.busy[d] = true
	defer delete(rd.busy, d)
	k, err := rd.literalText(rd.r.docID(d))
	if err != nil {
		k = "\x00error"
	}
	rd.texts[d] = k
	return k
}

// literalText renders an ID with every ID in it written out, lower-cased.
func (rd *renderer) literalText(v any) (string, error) {
	saved, savedEdges := rd.literal, rd.edges
	rd.literal, rd.edges = true, map[*doc]bool{}
	defer func() { rd.literal, rd.edges = saved, savedEdges }()
	s, err := rd.text(v, "")
	return strings.ToLower(strings.TrimSuffix(s, "/")), err
}

// target finds the doc a reference() or list*() names: an ID, a symbolic
// name or a resource name of the same template.
func (rd *renderer) target(v any, dep *deployment) *doc {
	switch x := v.(type) {
	case *idRef:
		return rd.lookup(x)
	case *expr.Concat:
		// An ID built as a string (resourceGroup().id + '/providers/...',
		// format('{0}', resourceId(...))).
		if d := rd.lookupIDText(x); d != nil {
			return d
		}
		// A name with deploy-time parts: compare as placeholders.
		want, err := rd.text(x, "")
		if err != nil {
			return nil
		}
		for _, d := range rd.docs {
			if d.decl == nil || d.decl.d != dep {
				continue
			}
			if n, err := rd.text(d.name, ""); err == nil && strings.EqualFold(n, want) {
				return d
			}
		}
	case string:
		if strings.HasPrefix(x, "/") {
			return rd.lookupIDText(x)
		}
		if d := rd.lookupTypeName(x); d != nil {
			return d
		}
		for _, d := range rd.docs {
			if d.decl != nil && d.decl.d == dep && d.symbolic != "" && strings.EqualFold(d.symbolic, x) {
				return d
			}
		}
		for _, d := range rd.docs {
			if d.decl == nil || d.decl.d != dep {
				continue
			}
			if n, ok := expr.Known(d.name); ok && strings.EqualFold(fmt.Sprint(n), x) {
				return d
			}
		}
	}
	return nil
}

// lookupIDText finds the converted doc whose ID a string (with
// deploy-time parts) is.
func (rd *renderer) lookupIDText(v any) *doc {
	want, err := rd.literalText(v)
	if err != nil || !strings.HasPrefix(want, "/") {
		return nil
	}
	for _, d := range rd.docs {
		if rd.docKey(d) == want {
			return d
		}
	}
	return nil
}

// lookupTypeName finds the doc a relative ID names:
// 'Microsoft.Storage/storageAccounts/st1', as reference() takes it.
func (rd *renderer) lookupTypeName(s string) *doc {
	segs := strings.Split(strings.Trim(s, "/"), "/")
	if len(segs) < 3 || len(segs)%2 == 0 {
		return nil
	}
	typ, names := segs[0], []any{}
	for i := 1; i < len(segs); i += 2 {
		typ += "/" + segs[i]
		names = append(names, segs[i+1])
	}
	for _, d := range rd.docs {
		if !strings.EqualFold(d.typ, typ) || len(d.segs) != len(names) {
			continue
		}
		same := true
		for i, n := range names {
			k, ok := expr.Known(d.segs[i])
			same = same && ok && strings.EqualFold(fmt.Sprint(k), n.(string))
		}
		if same {
			return d
		}
	}
	return nil
}

func (rd *renderer) buildRef(t *textBuilder, r *refValue, path string) error {
	target := rd.target(r.target, r.dep)
	if target == nil {
		target = rd.outsideDoc(r.target, r.apiVersion)
	}
	if target == nil {
		return &evalError{path: path, msg: fmt.Sprintf("%s is known only when deployed: it reads a resource this template does not create", r.Describe()), deferred: true}
	}
	p := refPath(r.path)
	if rd.placing && p != "" {
		// A manifest's parent, scope and group are IDs known when it
		// loads; a live value there would place the resource at apply.
		return &evalError{path: path, msg: fmt.Sprintf("%s decides where the resource is (its parent, scope or group), which a manifest must know before any read", r.Describe()), deferred: true}
	}
	if p == "" {
		return &evalError{path: path, msg: fmt.Sprintf("%s reads the whole resource; only a property of it can be a placeholder", r.Describe()), deferred: true}
	}
	rd.edges[target] = true
	t.b.WriteString("${ref:" + target.refKey + "." + p + "}")
	return nil
}

// refPath writes a reference path: dotted, [n] for items, ["a.b"] for
// names with dots.
func refPath(path []any) string {
	var b strings.Builder
	for _, p := range path {
		switch x := p.(type) {
		case int64:
			fmt.Fprintf(&b, "[%d]", x)
		case string:
			if strings.ContainsAny(x, ".[]\"${}") {
				b.WriteString("[" + strconv.Quote(x) + "]")
				continue
			}
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(x)
		}
	}
	return b.String()
}

func (rd *renderer) action(a *actionValue, path string) (map[string]any, error) {
	target, under := rd.target(a.target, a.dep), ""
	if target == nil {
		// A child the service makes under a converted resource (a
		// workflow's trigger, a namespace's RootManageSharedAccessKey): the
		// action is called below the managed resource.
		target, under = rd.serviceChild(a.target)
	}
	if target == nil {
		target = rd.outsideDoc(a.target, a.apiVersion)
	}
	if target == nil {
		return nil, &evalError{path: path, msg: rd.outsideAction(a), deferred: true}
	}
	rd.edges[target] = true
	src := map[string]any{"resource": target.refKey, "name": a.name}
	if under != "" {
		src["under"] = under
	}
	if p := refPath(a.path); p != "" {
		src["path"] = p
	}
	if a.apiVersion != "" {
		src["apiVersion"] = a.apiVersion
	}
	if a.body != nil {
		src["body"] = a.body
	}
	return src, nil
}

// serviceChild is the converted resource an unconverted action target is
// under and the path from it, when that path is TYPE/NAME pairs (the
// service's own children); nil otherwise.
func (rd *renderer) serviceChild(target any) (*doc, string) {
	up := rd.ancestorOf(target)
	if up == nil {
		return nil, ""
	}
	// The same text as literalText, in the template's own casing: the
	// child's name is sent as written.
	saved, savedEdges := rd.literal, rd.edges
	rd.literal, rd.edges = true, map[*doc]bool{}
	text, err := rd.text(target, "")
	rd.literal, rd.edges = saved, savedEdges
	text = strings.TrimSuffix(text, "/")
	key := rd.docKey(up)
	if err != nil || len(text) <= len(key)+1 || !strings.EqualFold(text[:len(key)], key) {
		return nil, ""
	}
	rest := strings.Trim(text[len(key):], "/")
	if segs := strings.Split(rest, "/"); len(segs)%2 != 0 || slices.Contains(segs, "") || strings.EqualFold(segs[0], "providers") {
		// providers/NS/...: a resource of its own in a group or under an
		// extension scope, not one the service makes below its parent.
		return nil, ""
	}
	return up, rest
}

// outsideAction says why an action of an unconverted resource is not
// expressible; a child the service makes under a converted resource (a
// namespace's RootManageSharedAccessKey, a workflow's trigger, a site's
// host/default) is named, since a manifest's action is called on a managed
// resource itself, never on a path below it.
func (rd *renderer) outsideAction(a *actionValue) string {
	msg := fmt.Sprintf("%s is known only when deployed: it calls an action of a resource this template does not create", a.Describe())
	if up := rd.ancestorOf(a.target); up != nil {
		msg += fmt.Sprintf(" (a child of %s that the service makes; a manifest's action is called on a managed resource, not below it)", up.refKey)
	}
	return msg
}

// ancestorOf is the nearest converted resource an unconverted target is
// under.
func (rd *renderer) ancestorOf(target any) *doc {
	text, err := rd.literalText(target)
	if err != nil || !strings.HasPrefix(text, "/") {
		return nil
	}
	for i := strings.LastIndex(text, "/"); i > 0; i = strings.LastIndex(text[:i], "/") {
		for _, d := range rd.docs {
			if rd.docKey(d) == text[:i] {
				return d
			}
		}
	}
	return nil
}

// value renders a body value.
func (rd *renderer) value(v any, path string) (any, error) {
	switch x := v.(type) {
	case string:
		return escape(x), nil
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			r, err := rd.value(item, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, item := range x {
			p := joinPath(path, k)
			key, err := rd.key(k, p)
			if err != nil {
				return nil, err
			}
			r, err := rd.value(item, p)
			if err != nil {
				return nil, err
			}
			out[key] = r
		}
		return out, nil
	case expr.Unknown:
		return rd.unknown(x, path)
	case *expr.Lambda:
		return nil, &evalError{path: path, msg: "a lambda is not a value"}
	}
	return v, nil
}

func (rd *renderer) key(k, path string) (string, error) {
	if !strings.HasPrefix(k, keyPrefix) {
		return escape(k), nil
	}
	i, _ := strconv.Atoi(strings.TrimPrefix(k, keyPrefix))
	// IDs in keys are written out (a hidden-link tag names the site that
	// reads the component): the loader still orders by them, and gives
	// way where that would close a cycle.
	saved := rd.literal
	rd.literal = true
	defer func() { rd.literal = saved }()
	return rd.text(rd.r.keys[i], path)
}

// unknown renders a deploy-time value: a placeholder string, or valueFrom
// when it holds a secret.
func (rd *renderer) unknown(u expr.Unknown, path string) (any, error) {
	switch x := u.(type) {
	case *expr.Encoded:
		return rd.encoded(x, path)
	case *expr.Transformed:
		return rd.transformed(x, path)
	case *expr.Parts:
		return nil, &evalError{path: path, msg: x.Describe() + " is an array known only at deploy time; only one item of it (split(...)[0]) can be a value", deferred: true}
	}
	var t textBuilder
	if err := rd.build(&t, u, path); err != nil {
		return nil, err
	}
	text := t.b.String()
	switch {
	case len(t.secrets) == 0:
		return text, nil
	case len(t.secrets) == 1 && text == "${secret:s0}":
		return map[string]any{"valueFrom": t.secrets[0].src}, nil
	}
	secrets := map[string]any{}
	for _, s := range t.secrets {
		secrets[s.name] = s.src
	}
	return map[string]any{"valueFrom": map[string]any{"template": text, "secrets": secrets}}, nil
}

// encoded renders base64() of a deploy-time string as the whole value: a
// template with encoding: base64, secret as every template is (it is what
// customData and protected settings carry).
func (rd *renderer) encoded(enc *expr.Encoded, path string) (any, error) {
	of, steps := enc.Of, []expr.Step(nil)
	if tr, ok := of.(*expr.Transformed); ok {
		of, steps = tr.Of, tr.Steps
	}
	return rd.templateOf(of, steps, "base64", path)
}

// transformed renders replace()/split()[i] of a deploy-time string as the
// whole value: a template with those steps, applied at apply time.
func (rd *renderer) transformed(tr *expr.Transformed, path string) (any, error) {
	return rd.templateOf(tr.Of, tr.Steps, "", path)
}

// templateOf writes a valueFrom.template over of, with transform steps
// and an encoding.
func (rd *renderer) templateOf(of any, steps []expr.Step, encoding, path string) (any, error) {
	var t textBuilder
	if err := rd.build(&t, of, path); err != nil {
		return nil, err
	}
	vf := map[string]any{"template": t.b.String()}
	if encoding != "" {
		vf["encoding"] = encoding
	}
	if len(steps) > 0 {
		vf["transform"] = transformSteps(steps)
	}
	if len(t.secrets) > 0 {
		secrets := map[string]any{}
		for _, s := range t.secrets {
			secrets[s.name] = s.src
		}
		vf["secrets"] = secrets
	}
	return map[string]any{"valueFrom": vf}, nil
}

// dependsOn lists the dependsOn targets no body, parent or scope implies.
func (rd *renderer) dependsOn(d *doc) []string {
	var out []string
	seen := map[*doc]bool{}
	for _, v := range d.dependsOn {
		for _, t := range rd.dependencyTargets(v, d) {
			if t == d || t.skip || rd.edges[t] || seen[t] {
				continue
			}
			seen[t] = true
			out = append(out, t.refKey)
		}
	}
	sort.Strings(out)
	return out
}

// dependencyTargets resolves one dependsOn entry: a resource, or every
// resource of a nested deployment.
func (rd *renderer) dependencyTargets(v any, from *doc) []*doc {
	dep := from.decl.d
	if t := rd.target(v, dep); t != nil {
		return []*doc{t}
	}
	if name, ok := v.(string); ok {
		// A copy loop's name stands for all its instances.
		for _, dc := range dep.decls {
			if cp, ok := memberOf(dc.raw, "copy").(map[string]any); ok && strings.EqualFold(fmt.Sprint(memberOf(cp, "name")), name) {
				return dc.docs
			}
		}
	}
	if inner := dep.findDeployment(v); inner != nil {
		var out []*doc
		for _, d := range rd.docs {
			for x := d.decl.deploymentChain(); x != nil; x = x.parent {
				if x == inner {
					out = append(out, d)
					break
				}
			}
		}
		return out
	}
	return nil
}

func (dc *decl) deploymentChain() *deployment {
	if dc == nil {
		return nil
	}
	return dc.d
}

// outputs renders the top template's outputs.
func (rd *renderer) outputs() []Output {
	outs, err := rd.r.top.outputsOf()
	if err != nil {
		rd.r.problem("outputs", manifest.SeverityWarning, "outputs: %v", err)
		return nil
	}
	var res []Output
	for _, k := range expr.SortedKeys(outs) {
		v := outs[k].(map[string]any)["value"]
		rd.edges = map[*doc]bool{}
		r, err := rd.value(v, joinPath("outputs", k))
		if err != nil {
			res = append(res, Output{Name: k, Value: "(not converted: " + err.Error() + ")"})
			continue
		}
		if tr, ok := v.(*expr.Transformed); ok {
			// replace()/split() of one live value: read it, then the steps.
			if get := rd.getCommand(tr.Of); get != "" {
				steps, _ := expr.JSON(transformSteps(tr.Steps))
				res = append(res, Output{Name: k, Value: "(known after apply)", Get: get, Transform: string(steps)})
				continue
			}
		}
		if m, ok := r.(map[string]any); ok {
			if _, secret := m["valueFrom"]; secret {
				res = append(res, Output{Name: k, Value: "(secret)"})
				continue
			}
		}
		s, _ := expr.JSON(r)
		if str, ok := r.(string); ok {
			s = str
		}
		res = append(res, Output{Name: k, Value: s, Get: rd.getCommand(v)})
	}
	return res
}

// getCommand reads a reference()'s value with kubectl azure get.
func (rd *renderer) getCommand(v any) string {
	ref, ok := v.(*refValue)
	if !ok {
		return ""
	}
	target := rd.target(ref.target, ref.dep)
	p := refPath(ref.path)
	if target == nil || p == "" {
		return ""
	}
	// get selects by ARM name: only a name known now can be given.
	leaf, ok := target.segs[len(target.segs)-1].(string)
	if !ok {
		return ""
	}
	if !strings.HasPrefix(p, "[") {
		p = "." + p
	}
	return fmt.Sprintf("kubectl azure get -f MANIFESTS %s/%s -o jsonpath='{.body%s}'", target.typ, leaf, p)
}

// transformSteps writes transform steps as a manifest takes them.
func transformSteps(steps []expr.Step) []any {
	out := make([]any, 0, len(steps))
	for _, st := range steps {
		if st.Replace {
			out = append(out, map[string]any{"replace": map[string]any{"old": st.Old, "new": st.New}})
			continue
		}
		sp := map[string]any{"index": st.Index}
		if len(st.Seps) == 1 {
			sp["separator"] = st.Seps[0]
		} else {
			seps := make([]any, len(st.Seps))
			for i, s := range st.Seps {
				seps[i] = s
			}
			sp["separators"] = seps
		}
		out = append(out, map[string]any{"split": sp})
	}
	return out
}
