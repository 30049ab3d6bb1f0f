package manifest

import "github.com/kubectl-azure/kubectl-azure/pkg/schema"

func init() {
	// Bodies are validated against the schema built into the binary unless
	// LoadOptions.Schema says otherwise (tests, --schema-dir).
	DefaultSchemaValidator = RegistryValidator(schema.Default())
}

// RegistryValidator validates bodies against a schema registry (the
// embedded one, or one opened from --schema-dir). An unknown type is not an
// error: it is noted and the body goes unvalidated, as DESIGN §6 asks.
func RegistryValidator(reg *schema.Registry) SchemaValidator {
	return func(typ, apiVersion string, body map[string]any) ([]SchemaIssue, string) {
		t, res := reg.Lookup(typ, apiVersion)
		if t == nil {
			return nil, res.Warning
		}
		var out []SchemaIssue
		for _, is := range t.Validate(body) {
			sev := SchemaWarning
			switch is.Severity {
			case schema.Error:
				sev = SchemaError
			case schema.Ignored:
				sev = SchemaIgnored
			}
			out = append(out, SchemaIssue{Path: is.Path, Severity: sev, Message: is.Message})
		}
		return out, res.Warning
	}
}
