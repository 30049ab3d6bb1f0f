package manifest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// SchemaSeverity grades a schema finding.
type SchemaSeverity int

const (
	// SchemaError fails the run (wrong JSON type, closed-enum violation,
	// readonly property under Strict).
	SchemaError SchemaSeverity = iota
	// SchemaWarning is reported and the run goes on (unknown property).
	SchemaWarning
	// SchemaIgnored marks a readonly property the user set: reported once,
	// removed from the body so it is never owned.
	SchemaIgnored
)

// SchemaIssue is one finding about a body, Path relative to the body
// ("properties.minimumTlsVersion", array items as [index]).
type SchemaIssue struct {
	Path     string
	Severity SchemaSeverity
	// Kind says what the finding is about (pkg/schema's IssueKind:
	// "unknown-property", "wrong-type", "coerced", "enum", ...), so
	// callers act on it without matching message text.
	Kind    string
	Message string
	// Suggestions are the nearest names the schema knows, for an unknown
	// property.
	Suggestions []string
}

// SchemaValidator checks a body against what the ARM specs say about
// (type, apiVersion); name is the resource's own name, which selects the
// body of types such as Microsoft.Web/sites/config (appsettings,
// connectionstrings, …). note is a one-line remark for the user (schema not
// found, nearest api-version used) or "".
type SchemaValidator func(typ, apiVersion, name string, body map[string]any) (issues []SchemaIssue, note string)

// DefaultSchemaValidator is used when LoadOptions.Schema is nil: the
// schema built into the binary (--schema-dir and tests replace it).
var DefaultSchemaValidator = RegistryValidator(schema.Default())

// RegistryValidator validates bodies against a schema registry (the
// embedded one, or one opened from --schema-dir). An unknown type is not an
// error: it is noted and the body goes unvalidated. Severities are the
// schema's own: errors only where it is certain on the exact api-version.
func RegistryValidator(reg *schema.Registry) SchemaValidator {
	return func(typ, apiVersion, name string, body map[string]any) ([]SchemaIssue, string) {
		t, res := reg.Lookup(typ, apiVersion)
		if t == nil {
			return nil, res.Warning
		}
		var out []SchemaIssue
		for _, is := range t.ValidateWith(body, schema.ValidateOptions{Name: name}) {
			sev := SchemaWarning
			switch is.Severity {
			case schema.Error:
				sev = SchemaError
			case schema.Ignored:
				sev = SchemaIgnored
			}
			out = append(out, SchemaIssue{Path: is.Path, Severity: sev, Kind: string(is.Kind), Message: is.Message, Suggestions: is.Suggestions})
		}
		return out, res.Warning
	}
}

// schema applies the schema validator and removes ignored readonly paths.
func (l *loader) schema(e *entry) {
	issues, note := l.opts.Schema(e.typ.full, e.res.APIVersion, e.res.Name, e.res.Body)
	o := e.res.Origin
	if note != "" && !e.versionReported {
		l.warn(o, "", "%s", note)
	}
	var ignored []string
	for _, is := range issues {
		path := "spec.body"
		switch {
		case is.Kind == string(schema.KindName):
			path = "metadata.name" // the resource's own name, not a body value
		case is.Path != "":
			path += "." + is.Path
		}
		if e.res.Deferred[is.Path] != nil || e.res.Actions[is.Path] != nil {
			continue // a placeholder until apply: there is no value to judge
		}
		msg := is.Message
		if e.res.IsSecret(is.Path) {
			// Schema messages may quote the value; this one is a secret.
			msg = "the value from valueFrom does not fit the schema (the message is withheld: it could show the secret); check the variable or Secret it comes from"
		}
		switch is.Severity {
		case SchemaError:
			l.ps.add(o, path, "%s", msg)
		case SchemaWarning:
			if l.opts.Strict {
				l.ps.add(o, path, "%s (--strict)", msg)
				continue
			}
			l.warn(o, path, "%s", msg)
			if is.Kind == string(schema.KindCase) && len(is.Suggestions) > 0 && !e.res.marksUnder(is.Path) {
				// The provider reads the member whatever its case and answers
				// in the schema's spelling: write that, so the plan compares
				// what Azure will hold.
				schema.RenameMember(e.res.Body, schema.SplitPath(is.Path), is.Suggestions[0])
			}
		case SchemaIgnored:
			if l.opts.Strict {
				l.ps.add(o, path, "readonly property set (the server sets it); remove it from the manifest (--strict)")
				continue
			}
			removePath(e.res.Body, is.Path)
			e.res.dropUnder(is.Path)
			e.unsentUnder("spec.body." + is.Path)
			ignored = append(ignored, is.Path)
		}
	}
	if len(ignored) > 0 {
		l.warn(o, "", "ignored readonly properties (the server sets them; they are never compared or sent): %s", strings.Join(ignored, ", "))
	}
	l.checkIgnoreChanges(e)
}

// checkIgnoreChanges warns about ignore-changes paths the type's schema
// does not know: such a path ignores nothing, and a typo in it would go
// unnoticed until the drift it was meant to hide shows up. Each path is
// validated as a body holding just that path.
func (l *loader) checkIgnoreChanges(e *entry) {
	v := e.res.Annotations[AnnotationIgnoreChanges]
	if v == "" {
		return
	}
	field := "metadata.annotations." + AnnotationIgnoreChanges
	for _, raw := range strings.Split(v, ",") {
		raw = strings.TrimSpace(raw)
		p, err := bodypath.ParsePattern(raw)
		if err != nil {
			continue // checkAnnotation reported it
		}
		body, ok := skeleton(p)
		if !ok {
			continue
		}
		issues, _ := l.opts.Schema(e.typ.full, e.res.APIVersion, e.res.Name, body)
		for _, is := range issues {
			if is.Kind != string(schema.KindUnknown) {
				continue
			}
			msg := fmt.Sprintf("path %s is not in the schema of %s@%s, so it ignores nothing", raw, e.typ.full, e.res.APIVersion)
			at, perr := bodypath.Parse(is.Path)
			if n := len(at); perr == nil && n > 0 && n <= len(p) && len(is.Suggestions) > 0 {
				near := append(p[:n-1].Clone(), bodypath.Seg{Kind: bodypath.Member, Name: is.Suggestions[0]})
				near = append(near, p[n:]...)
				msg += "; did you mean " + near.String() + "?"
			}
			if l.opts.Strict {
				l.ps.add(e.res.Origin, field, "%s (--strict)", msg)
			} else {
				l.warn(e.res.Origin, field, "%s", msg)
			}
			break
		}
	}
}

// skeleton is a body holding only the pattern's path (one item per array,
// with its identifiers; nothing below a "*" member, which names no member
// to check), or false when the path cannot be one.
func skeleton(p bodypath.Path) (map[string]any, bool) {
	if len(p) == 0 || p[0].Kind != bodypath.Member || p[0].Name == "*" {
		return nil, false
	}
	var build func(i int) any
	build = func(i int) any {
		if i == len(p) {
			return nil
		}
		s := p[i]
		switch s.Kind {
		case bodypath.Member:
			if s.Name == "*" {
				return map[string]any{}
			}
			return map[string]any{s.Name: build(i + 1)}
		case bodypath.Keyed:
			item, _ := build(i + 1).(map[string]any)
			if item == nil {
				item = map[string]any{}
			}
			for k, key := range s.Keys {
				if k < len(s.Values) {
					item[key] = s.Values[k]
				}
			}
			return []any{item}
		}
		return []any{build(i + 1)}
	}
	m, ok := build(0).(map[string]any)
	return m, ok
}

// checkVersions reports, once each and on spec.type, the api-versions the
// schema index lacks for types it knows: ARM is asked (ServedVersions)
// whether it serves them, once per provider namespace.
func (l *loader) checkVersions() {
	byNS := map[string][]*entry{}
	var namespaces []string
	for _, e := range l.entries {
		if e.state != idDone {
			continue
		}
		known := l.opts.Versions(e.typ.full)
		if len(known) == 0 || slices.ContainsFunc(known, func(v string) bool { return strings.EqualFold(v, e.res.APIVersion) }) {
			continue
		}
		e.versionReported = true
		ns := strings.ToLower(e.typ.namespace)
		if byNS[ns] == nil {
			namespaces = append(namespaces, ns)
		}
		byNS[ns] = append(byNS[ns], e)
	}
	for _, ns := range namespaces {
		var served map[string][]string
		var err error
		if l.opts.ServedVersions != nil {
			first := byNS[ns][0]
			sub := armid.SubscriptionOf(first.res.ID)
			if sub == "" {
				sub = l.acct.subscription
			}
			served, err = l.opts.ServedVersions(l.ctx, sub, first.typ.namespace)
		}
		for _, e := range byNS[ns] {
			typ, v := e.typ.full, e.res.APIVersion
			known := l.opts.Versions(typ)
			nearest := schema.SuggestVersions(known, v, 1)
			switch {
			case l.opts.ServedVersions == nil || err != nil:
				why := ""
				if err != nil {
					why = fmt.Sprintf(" (could not ask ARM whether it serves it: %v)", err)
				}
				l.warn(e.res.Origin, "spec.type", "api-version %s of %s is not in the schema index%s; did you mean %s? Until ARM says whether it serves %s, the body is checked against the schema of %s, as warnings only", v, typ, why, nearest[0], v, nearest[0])
			case slices.ContainsFunc(served[strings.ToLower(typ)], func(s string) bool { return strings.EqualFold(s, v) }):
				l.warn(e.res.Origin, "spec.type", "api-version %s of %s is not in the schema index, but ARM serves it: only ARM checks the body", v, typ)
			case len(served[strings.ToLower(typ)]) == 0:
				l.ps.add(e.res.Origin, "spec.type", "ARM lists no type %s under %s: check the type name (`kubectl azure explain %s` lists its types)", typ, e.typ.namespace, e.typ.namespace)
			default:
				vs := served[strings.ToLower(typ)]
				l.ps.add(e.res.Origin, "spec.type", "ARM does not serve api-version %s of %s; did you mean %s? (`kubectl azure explain %s` lists the versions)", v, typ, strings.Join(schema.SuggestVersions(vs, v, 2), " or "), typ)
			}
		}
	}
}

// removePath deletes the member a concrete body path names, if present.
// An array item is never removed: that would renumber its siblings.
func removePath(body map[string]any, path string) {
	p, err := bodypath.Parse(path)
	if err != nil || len(p) == 0 || p[len(p)-1].Kind != bodypath.Member {
		return
	}
	if m, ok := bodypath.Path(p[:len(p)-1]).Get(body); ok {
		if obj, isObj := m.(map[string]any); isObj {
			delete(obj, p[len(p)-1].Name)
		}
	}
}

// marksUnder says whether a secret, deferred value or action is recorded at
// path or below it: renaming a member there would leave the mark behind.
func (r *Resource) marksUnder(path string) bool {
	under := func(k string) bool {
		return k == path || strings.HasPrefix(k, path+".") || strings.HasPrefix(k, path+"[")
	}
	for _, k := range r.SecretPaths {
		if under(k) {
			return true
		}
	}
	for k := range r.Deferred {
		if under(k) {
			return true
		}
	}
	for k := range r.Actions {
		if under(k) {
			return true
		}
	}
	return false
}

// dropUnder forgets the live values, actions and secret marks at or below
// a body path the loader removed (an ignored readonly value): nothing is
// left to fill in there. A reference it held stays a dependency.
func (r *Resource) dropUnder(path string) {
	under := func(k string) bool {
		return k == path || strings.HasPrefix(k, path+".") || strings.HasPrefix(k, path+"[")
	}
	for k, d := range r.Deferred {
		if under(k) {
			for _, ref := range d.Refs {
				r.dependOn(ref.Target)
			}
			delete(r.Deferred, k)
		}
	}
	for k, a := range r.Actions {
		if under(k) {
			r.dependOn(a.Target)
			delete(r.Actions, k)
		}
	}
	r.SecretPaths = slices.DeleteFunc(r.SecretPaths, under)
}

func (r *Resource) dependOn(id string) {
	if id == "" || slices.Contains(r.DependsOn, id) {
		return
	}
	r.DependsOn = append(r.DependsOn, id)
	slices.Sort(r.DependsOn)
}

// unsentUnder marks the dependencies that values at or below a body path
// the loader removed gave the entry: they order, but a cycle breaks there.
func (e *entry) unsentUnder(path string) {
	for i, ed := range e.edges {
		if rest, ok := strings.CutPrefix(ed.path, path); ok && (rest == "" || rest[0] == '.' || rest[0] == '[') {
			e.edges[i].unsent = true
		}
	}
}
