package manifest

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
)

// walk resolves a body value, expanding placeholders in strings and map
// keys and filling valueFrom secrets. docPath is the field path messages
// use ("spec.body.tags.a.b"); bodyPath is the same place in the diff's path
// syntax, relative to the body (tags."a.b"), the form SecretPaths,
// Deferred and Actions are keyed by. Maps and lists are copied only where
// something below them changes (changed reports it): most bodies are
// literal, and the decoded value is not used elsewhere.
func (l *loader) walk(e *entry, v any, docPath, bodyPath string) (out any, changed, ok bool) {
	switch x := v.(type) {
	case string:
		val, d, ok := l.expandValue(e, docPath, x, liveRefs)
		if !ok {
			return nil, true, false
		}
		if d != nil {
			// IDs in its known parts are edges too ("${ref:vnet}/subnets/a?p=${ref:x.properties.y}").
			var known []string
			for _, t := range d.terms {
				if t.fn == "" && t.ref == nil {
					known = append(known, t.lit)
				}
			}
			l.idEdges(e, docPath, x, strings.Join(known, "\x00"))
			e.defer_(bodyPath, d)
			return unknown, true, true
		}
		l.idEdges(e, docPath, x, val)
		if x == val {
			return v, false, true
		}
		return val, true, true
	case []any:
		var out []any // nil until an item changes
		ok := true
		for i, item := range x {
			nv, ichanged, iok := l.walk(e, item, fmt.Sprintf("%s[%d]", docPath, i), bodypath.JoinIndex(bodyPath, i))
			ok = ok && iok
			if ichanged && out == nil {
				out = slices.Clone(x)
			}
			if out != nil {
				out[i] = nv
			}
		}
		if out == nil {
			return v, false, ok
		}
		return out, true, ok
	case map[string]any:
		if vf, isVF := x["valueFrom"]; isVF && len(x) == 1 {
			nv, ok := l.valueFrom(e, vf, bodyPath, docPath+".valueFrom")
			return nv, true, ok
		}
		var out map[string]any // nil until a key or value changes
		ok := true
		keys := slices.Sorted(maps.Keys(x))
		for i, k := range keys {
			kp := joinPath(docPath, k)
			nk, kok := l.expand(e, kp, k, true)
			if kok {
				l.idEdges(e, kp, k, nk)
			}
			nv, vchanged, vok := l.walk(e, x[k], kp, bodypath.JoinMember(bodyPath, nk))
			ok = ok && kok && vok
			if out == nil && (nk != k || vchanged) {
				out = make(map[string]any, len(x))
				for _, pk := range keys[:i] {
					out[pk] = x[pk]
				}
			}
			if out != nil {
				out[nk] = nv
			}
		}
		if out == nil {
			return v, false, ok
		}
		return out, true, ok
	}
	return v, false, true
}

// defer_ records a value known only during apply.
func (e *entry) defer_(bodyPath string, d *Deferred) {
	if e.res.Deferred == nil {
		e.res.Deferred = map[string]*Deferred{}
	}
	e.res.Deferred[bodyPath] = d
}

// idEdges makes every ARM ID of another managed resource that the
// resolved string val names a dependency edge to the most specific managed
// resource it names: the whole value, IDs inside arrays (each item is a
// string of its own) and IDs inside a longer string ("a;/subscriptions/...;b"),
// however they were written (literally, with ${subscriptionId}, as
// ${ref:vnet}/subnets/snet), compared as ARM compares IDs. A whole value
// written without ${ref:...} gets a warning suggesting the reference,
// which follows the resource if its name changes.
func (l *loader) idEdges(e *entry, docPath, written, val string) {
	if l.byID == nil {
		return
	}
	const marker = "/subscriptions/"
	for from := 0; ; {
		// Most strings hold no "/": find candidates without copying val.
		i := strings.IndexByte(val[from:], '/')
		if i < 0 {
			return
		}
		start := from + i
		if len(val)-start < len(marker) || !strings.EqualFold(val[start:start+len(marker)], marker) {
			from = start + 1
			continue
		}
		end := start + 1
		for end < len(val) && idByte(val[end]) {
			end++
		}
		from = end
		t, ok := l.mostSpecific(e, val[start:end])
		if t == nil || !ok {
			continue
		}
		e.edges = append(e.edges, edge{to: t, path: docPath, literal: !strings.Contains(written, "${ref:")})
		if start != 0 || end != len(val) || strings.Contains(written, "${ref:") {
			continue
		}
		ref := t.refName()
		if len(l.byName[strings.ToLower(ref)]) > 1 {
			ref = t.typ.full + "/" + ref
		}
		suggest := "${ref:" + ref + "}" + val[len(strings.TrimRight(t.res.ID, "/")):]
		l.warn(e.res.Origin, docPath, "the literal ID of %s could be written %s, which follows the resource if its name changes", t.describe(), suggest)
	}
}

// idByte reports whether c may continue an ARM ID inside a longer string:
// IDs end at spaces, quotes and the separators strings put between them.
func idByte(c byte) bool {
	if c < 0x20 {
		return false
	}
	switch c {
	case ' ', '"', '\'', ',', ';', '?', '#', '(', ')', '[', ']', '{', '}', '<', '>', '|', '=':
		return false
	}
	return true
}

// mostSpecific returns the managed resource an ID names, or the nearest
// managed ancestor of what it names. ok is false when that resource needs no
// edge: e itself, an ancestor of e (already an edge) or a descendant of e
// (a parent listing its children inline depends on none of them).
func (l *loader) mostSpecific(e *entry, id string) (*entry, bool) {
	id = strings.TrimRight(id, "/")
	for len(id) > len("/subscriptions/") {
		if t := l.byID.get(id); t != nil {
			if t == e || armid.Contains(t.res.ID, e.res.ID) || armid.Contains(e.res.ID, t.res.ID) {
				return t, false
			}
			return t, true
		}
		j := strings.LastIndexByte(id, '/')
		if j <= 0 {
			break
		}
		id = id[:j]
	}
	return nil, false
}

// joinPath joins document path segments with dots, as messages show them.
func joinPath(base, k string) string {
	if base == "" || k == "" {
		return base + k
	}
	return base + "." + k
}

// valueFrom resolves {valueFrom: {env: NAME}},
// {valueFrom: {secretKeyRef: {name, key, namespace}}} or
// {valueFrom: {action: {resource, name, path, apiVersion}}}. Every value
// it produces is secret: its path joins SecretPaths and the value is
// registered for scrubbing.
func (l *loader) valueFrom(e *entry, vf any, bodyPath, path string) (any, bool) {
	o := e.res.Origin
	const forms = "must hold exactly one of env: NAME, secretKeyRef: {name, key, namespace}, action: {resource, name, path} or template: \"...\" (with secrets)"
	m, isMap := vf.(map[string]any)
	if isMap && m["template"] != nil {
		return l.template(e, m, bodyPath, path)
	}
	if !isMap || len(m) != 1 {
		l.ps.add(o, path, forms)
		return nil, false
	}
	if m["action"] != nil {
		e.res.SecretPaths = append(e.res.SecretPaths, bodyPath)
		return l.action(e, m["action"], bodyPath, path+".action")
	}
	if m["env"] == nil && m["secretKeyRef"] == nil {
		l.ps.add(o, path, forms)
		return nil, false
	}
	e.res.SecretPaths = append(e.res.SecretPaths, bodyPath)
	v, ok := l.valueFromKnown(e, m, path)
	if !ok || !e.selected {
		return nil, ok
	}
	return v, true
}

// valueFromKnown reads a source known at load time: {env: NAME} or
// {secretKeyRef: {...}}. The value is registered for scrubbing. A
// resource -l leaves out does not demand its secrets ("" is returned).
func (l *loader) valueFromKnown(e *entry, m map[string]any, path string) (string, bool) {
	o := e.res.Origin
	var v string
	switch {
	case m["env"] != nil:
		name, isStr := m["env"].(string)
		if !isStr || name == "" {
			l.ps.add(o, path+".env", "must be the name of an environment variable")
			return "", false
		}
		if !l.envAllowed(o, path+".env", name) {
			return "", false
		}
		if !e.selected {
			return "", true // -l leaves it out of this run: do not demand its secret
		}
		val, set := l.opts.LookupEnv(name)
		if !set {
			l.ps.add(o, path+".env", "environment variable %s is not set; export it before running", name)
			return "", false
		}
		v = val
	case m["secretKeyRef"] != nil:
		val, ok := l.secretKeyRef(e, m["secretKeyRef"], path+".secretKeyRef")
		if !ok || !e.selected {
			return "", ok
		}
		v = val
	default:
		l.ps.add(o, path, "must hold exactly one of env: NAME, secretKeyRef: {name, key, namespace} or action: {resource, name, path}")
		return "", false
	}
	l.opts.SecretValues.Register(v)
	return v, true
}

// envAllowed refuses the tool's own credential variables everywhere, and
// what LoadOptions.EnvAllowed refuses (the controller's allow-list).
func (l *loader) envAllowed(o Origin, path, name string) bool {
	if CredentialEnv(name) {
		l.ps.add(o, path, "%s holds this tool's own Azure credential and is never read by valueFrom; put the value in a variable of its own", name)
		return false
	}
	if l.opts.EnvAllowed == nil {
		return true
	}
	if err := l.opts.EnvAllowed(name); err != nil {
		l.ps.add(o, path, "%v", err)
		return false
	}
	return true
}

func (l *loader) secretKeyRef(e *entry, v any, path string) (string, bool) {
	o := e.res.Origin
	ref, isMap := v.(map[string]any)
	if !isMap {
		l.ps.add(o, path, "must be a mapping with name, key and namespace")
		return "", false
	}
	for k := range ref {
		if k != "name" && k != "key" && k != "namespace" {
			l.ps.add(o, path+"."+k, "unknown field; secretKeyRef has name, key and namespace")
			return "", false
		}
	}
	get := func(k string) string { s, _ := ref[k].(string); return s }
	name, key, ns := get("name"), get("key"), get("namespace")
	if name == "" || key == "" {
		l.ps.add(o, path, "needs name and key (namespace is optional)")
		return "", false
	}
	if !e.selected {
		return "", true
	}
	if l.opts.Secrets == nil {
		l.ps.add(o, path, "reading a Kubernetes Secret needs a cluster, and none is configured; use the kubeconfig flags or valueFrom.env")
		return "", false
	}
	val, err := l.opts.Secrets.SecretValue(l.ctx, ns, name, key)
	if err != nil {
		l.ps.add(o, path, "%v", err)
		return "", false
	}
	return val, true
}

// action records a secret read from a POST action of a managed resource
// (listKeys, listConnectionStrings, ...) at apply time; nothing is read
// or stored now.
func (l *loader) action(e *entry, v any, bodyPath, path string) (any, bool) {
	a, ok := l.actionRef(e, v, path)
	if !ok {
		return nil, false
	}
	if e.res.Actions == nil {
		e.res.Actions = map[string]*ActionRef{}
	}
	e.res.Actions[bodyPath] = a
	return unknown, true
}

// actionRef checks {resource, name, path, apiVersion} and makes the
// resource called a dependency edge.
func (l *loader) actionRef(e *entry, v any, path string) (*ActionRef, bool) {
	o := e.res.Origin
	a, isMap := v.(map[string]any)
	if !isMap {
		l.ps.add(o, path, "must be a mapping with resource, name and path, e.g. {resource: mystorage, name: listKeys, path: \"keys[0].value\"}")
		return nil, false
	}
	for k := range a {
		switch k {
		case "resource", "under", "name", "path", "apiVersion", "body":
		default:
			l.ps.add(o, path+"."+k, "unknown field; action has resource, under, name, path, apiVersion and body")
			return nil, false
		}
	}
	body, bodyOK := actionBody(a["body"])
	if !bodyOK {
		l.ps.add(o, path+".body", "must be a mapping, the action's request body as ARM takes it (e.g. listAccountSas's signedServices, signedExpiry, ...), with no ${...} placeholders")
	}
	get := func(k string) string { s, _ := a[k].(string); return strings.TrimSpace(s) }
	target, name, sub, ver := get("resource"), get("name"), get("path"), get("apiVersion")
	under, ok := actionUnder(get("under"))
	if !ok {
		l.ps.add(o, path+".under", "must be a path below the resource, TYPE/NAME pairs such as triggers/manual or authorizationRules/RootManageSharedAccessKey")
	}
	if target == "" {
		l.ps.add(o, path+".resource", "missing; name the managed resource whose action is called (NAME or TYPE/NAME)")
		ok = false
	}
	if name == "" || strings.ContainsAny(name, "/?#% ") {
		l.ps.add(o, path+".name", "must be the action's name, e.g. listKeys")
		ok = false
	}
	if _, err := bodypath.ParseRef(sub); err != nil {
		l.ps.add(o, path+".path", "must pick a value of the action's response, e.g. keys[0].value")
		ok = false
	}
	if ver != "" && !apiVersionRE.MatchString(ver) {
		l.ps.add(o, path+".apiVersion", "api-version %q is malformed; use YYYY-MM-DD or YYYY-MM-DD-preview", ver)
		ok = false
	}
	if !ok || !bodyOK {
		return nil, false
	}
	t, found := l.lookup(e, path+".resource", target, "")
	if !found {
		return nil, false
	}
	if t == e {
		l.ps.add(o, path+".resource", "names this resource itself; an action of a resource cannot feed its own body")
		return nil, false
	}
	e.edges = append(e.edges, edge{to: t, path: path})
	if !l.resolveID(t) {
		return nil, false
	}
	if ver == "" {
		ver = t.res.APIVersion
	}
	return &ActionRef{Target: t.res.ID, Under: under, Action: name, APIVersion: ver, Path: sub, Body: body, Existing: t.existing}, true
}

// actionBody is an action's request body as canonical JSON ("" for none):
// a mapping of literal values, since the answer is compared across plans
// and a body that changed between them would be a different call.
func actionBody(v any) (string, bool) {
	if v == nil {
		return "", true
	}
	m, isMap := v.(map[string]any)
	if !isMap {
		return "", false
	}
	raw, err := json.Marshal(m) // sorted keys: one text per body
	if err != nil || strings.Contains(string(raw), "${") {
		return "", false
	}
	return string(raw), true
}

// actionUnder checks an action's under: segments in TYPE/NAME pairs, none
// empty or a dot segment, nothing a URL would read otherwise.
func actionUnder(s string) (string, bool) {
	if s == "" {
		return "", true
	}
	segs := strings.Split(strings.Trim(s, "/"), "/")
	if len(segs)%2 != 0 || strings.ContainsAny(s, "?#%\\ ") {
		return "", false
	}
	for _, g := range segs {
		if g == "" || g == "." || g == ".." {
			return "", false
		}
	}
	return strings.Join(segs, "/"), true
}

// template resolves {valueFrom: {template: "...", secrets: {NAME: SOURCE}}}:
// a string mixing literals, placeholders and ${secret:NAME}, each NAME one
// valueFrom source (env, secretKeyRef, action). The whole result is
// secret, whatever part of it came from a secret.
func (l *loader) template(e *entry, m map[string]any, bodyPath, path string) (any, bool) {
	o := e.res.Origin
	text, isStr := m["template"].(string)
	if !isStr {
		l.ps.add(o, path+".template", "must be a string, e.g. \"AccountName=${ref:st.name};AccountKey=${secret:key}\"")
		return nil, false
	}
	for k := range m {
		if k != "template" && k != "secrets" && k != "encoding" && k != "transform" {
			l.ps.add(o, path+"."+k, "unknown field; a template has template, secrets, transform and encoding")
			return nil, false
		}
	}
	steps, tok := l.parseTransform(o, m["transform"], path+".transform")
	if !tok {
		return nil, false
	}
	encoding, isStr := m["encoding"].(string)
	if m["encoding"] != nil && (!isStr || encoding != encodingBase64) {
		l.ps.add(o, path+".encoding", "must be %q (the whole value, base64-encoded, as a template's base64() gives it), or left out", encodingBase64)
		return nil, false
	}
	srcs, isMap := m["secrets"].(map[string]any)
	if m["secrets"] != nil && !isMap {
		l.ps.add(o, path+".secrets", "must map names to sources: {key: {action: {...}}, password: {env: NAME}}")
		return nil, false
	}
	e.res.SecretPaths = append(e.res.SecretPaths, bodyPath)
	ok := true
	vals := map[string]term{}
	for _, name := range slices.Sorted(maps.Keys(srcs)) {
		sp := path + ".secrets." + name
		src, isMap := srcs[name].(map[string]any)
		if _, isPart := src["template"]; isMap && isPart {
			t, pok := l.templatePart(e, src, sp)
			ok = ok && pok
			if pok {
				vals[name] = t
			}
			continue
		}
		if !isMap || len(src) != 1 {
			l.ps.add(o, sp, "must hold exactly one of env: NAME, secretKeyRef: {name, key, namespace} or action: {resource, name, path}")
			ok = false
			continue
		}
		if a, isAction := src["action"]; isAction {
			ar, aok := l.actionRef(e, a, sp+".action")
			ok = ok && aok
			if aok {
				vals[name] = term{fn: "action", action: ar}
			}
			continue
		}
		v, vok := l.valueFromKnown(e, src, sp)
		ok = ok && vok
		if vok {
			vals[name] = term{lit: v}
		}
	}
	if !ok {
		return nil, false
	}
	l.tmplSecrets = vals
	val, d, vok := l.expandValue(e, path+".template", text, liveRefs)
	l.tmplSecrets = nil
	if !vok {
		return nil, false
	}
	if d != nil {
		d.encoding, d.transform = encoding, steps
		e.defer_(bodyPath, d)
		return unknown, true
	}
	l.opts.SecretValues.Register(val)
	val, err := applyTransform(steps, val)
	if err != nil {
		l.ps.add(o, path+".transform", "%v", err)
		return nil, false
	}
	l.opts.SecretValues.Register(val)
	if encoding != "" {
		val = encode(encoding, val)
		l.opts.SecretValues.Register(val)
	}
	return val, true
}

// templatePart reads a template under a valueFrom.template's secrets:
// {template: "${ref:st.properties.primaryEndpoints.blob}", transform: [...],
// encoding: base64}, a string function over a live value that the outer
// template writes inside a longer string. It holds literals and
// placeholders only; its ${secret:} would be the outer template's.
func (l *loader) templatePart(e *entry, src map[string]any, path string) (term, bool) {
	o := e.res.Origin
	for k := range src {
		if k != "template" && k != "transform" && k != "encoding" {
			l.ps.add(o, path+"."+k, "unknown field; a template under secrets has template, transform and encoding")
			return term{}, false
		}
	}
	text, isStr := src["template"].(string)
	if !isStr {
		l.ps.add(o, path+".template", "must be a string, e.g. \"${ref:st.properties.primaryEndpoints.blob}\"")
		return term{}, false
	}
	steps, tok := l.parseTransform(o, src["transform"], path+".transform")
	if !tok {
		return term{}, false
	}
	encoding, isStr := src["encoding"].(string)
	if src["encoding"] != nil && (!isStr || encoding != encodingBase64) {
		l.ps.add(o, path+".encoding", "must be %q, or left out", encodingBase64)
		return term{}, false
	}
	if strings.Contains(text, "${secret:") {
		l.ps.add(o, path+".template", "a template under secrets holds literals and placeholders; name its secrets in the outer template")
		return term{}, false
	}
	outer := l.tmplSecrets
	l.tmplSecrets = nil
	val, d, vok := l.expandValue(e, path+".template", text, liveRefs)
	l.tmplSecrets = outer
	if !vok {
		return term{}, false
	}
	if d == nil {
		// Known now: the part is a literal.
		v, err := applyTransform(steps, val)
		if err != nil {
			l.ps.add(o, path+".transform", "%v", err)
			return term{}, false
		}
		return term{lit: encode(encoding, v)}, true
	}
	return term{fn: "template", sub: d.terms, steps: steps, encoding: encoding}, true
}

// warn records a non-fatal finding.
func (l *loader) warn(o Origin, path, format string, args ...any) {
	p := Problem{File: o.File, Index: o.Index, Line: l.ps.line(o, path), Path: path, Message: l.opts.SecretValues.Scrub(fmt.Sprintf(format, args...)), Severity: SeverityWarning}
	l.findings = append(l.findings, p)
	prefix := o.String() + ": "
	if path != "" {
		prefix += path + ": "
	}
	l.warnings = append(l.warnings, prefix+p.Message)
}
