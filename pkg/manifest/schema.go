package manifest

import (
	"strings"

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
			out = append(out, SchemaIssue{Path: is.Path, Severity: sev, Kind: string(is.Kind), Message: is.Message})
		}
		return out, res.Warning
	}
}

// schema applies the schema validator and removes ignored readonly paths.
func (l *loader) schema(e *entry) {
	issues, note := l.opts.Schema(e.typ.full, e.res.APIVersion, e.res.Name, e.res.Body)
	o := e.res.Origin
	if note != "" {
		l.warn(o, "", "%s", note)
	}
	var ignored []string
	for _, is := range issues {
		path := "spec.body"
		if is.Path != "" {
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
		l.warn(o, "", "ignored readonly properties (the server sets them; they are never compared or sent): %s", strings.Join(ignored, ", "))
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
