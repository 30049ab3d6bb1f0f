package manifest

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
	Message  string
}

// SchemaValidator checks a body against what the ARM specs say about
// (type, apiVersion). note is a one-line remark for the user (schema not
// found, nearest api-version used) or "".
type SchemaValidator func(typ, apiVersion string, body map[string]any) (issues []SchemaIssue, note string)

// DefaultSchemaValidator is used when LoadOptions.Schema is nil. It is the
// hook to pkg/schema (see schema_default.go); without it, bodies are not
// validated against the specs.
var DefaultSchemaValidator SchemaValidator = noSchema // replaced in schema_default.go

func noSchema(string, string, map[string]any) ([]SchemaIssue, string) { return nil, "" }
