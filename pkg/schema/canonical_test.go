package schema_test

import (
	"slices"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// A member written in another case than the schema's is matched (the
// provider reads it so) and warned about with the schema's spelling,
// which CanonicalPath gives; exact spellings and map keys are left alone.
func TestCaseMismatchedNamesWarnAndCanonicalise(t *testing.T) {
	typ, _ := schema.Default().Lookup("Microsoft.Storage/storageAccounts", "2023-05-01")
	if typ == nil || typ.Fallback() {
		t.Fatal("no exact schema for storageAccounts@2023-05-01")
	}
	body := map[string]any{"location": "westeurope", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"},
		"tags":       map[string]any{"MinimumTlsVersion": "x"},
		"properties": map[string]any{"minimumTLSVersion": "TLS1_2", "supportsHttpsTrafficOnly": true}}
	var found []schema.Issue
	for _, is := range typ.Validate(body) {
		if is.Kind == schema.KindCase {
			found = append(found, is)
		}
	}
	if len(found) != 1 || found[0].Path != "properties.minimumTLSVersion" || found[0].Severity != schema.Warning ||
		!slices.Equal(found[0].Suggestions, []string{"minimumTlsVersion"}) {
		t.Fatalf("case findings %v, want one warning at properties.minimumTLSVersion suggesting minimumTlsVersion", found)
	}
	if got := typ.CanonicalPath([]string{"Properties", "minimumTLSVersion"}); !slices.Equal(got, []string{"properties", "minimumTlsVersion"}) {
		t.Errorf("CanonicalPath = %v", got)
	}
	if got := typ.CanonicalPath([]string{"tags", "MinimumTlsVersion"}); !slices.Equal(got, []string{"tags", "MinimumTlsVersion"}) {
		t.Errorf("a tag key was respelt: %v", got)
	}
	if got := typ.CanonicalName("properties", "MINIMUMTLSVERSION"); got != "minimumTlsVersion" {
		t.Errorf("CanonicalName = %q", got)
	}
}

// RenameMember writes the schema's spelling in place, and refuses when
// both spellings are present.
func TestRenameMemberToTheSchemasSpelling(t *testing.T) {
	body := map[string]any{"properties": map[string]any{"minimumTLSVersion": "TLS1_2", "rules": []any{map[string]any{"Name": "a"}}}}
	if !schema.RenameMember(body, []string{"properties", "minimumTLSVersion"}, "minimumTlsVersion") {
		t.Fatal("not renamed")
	}
	props := body["properties"].(map[string]any)
	if props["minimumTlsVersion"] != "TLS1_2" || props["minimumTLSVersion"] != nil {
		t.Errorf("after rename: %v", props)
	}
	if !schema.RenameMember(body, []string{"properties", "rules", "[0]", "Name"}, "name") || props["rules"].([]any)[0].(map[string]any)["name"] != "a" {
		t.Errorf("item member not renamed: %v", props)
	}
	both := map[string]any{"a": 1, "A": 2}
	if schema.RenameMember(both, []string{"A"}, "a") || both["A"] != 2 || both["a"] != 1 {
		t.Errorf("renamed over an existing member: %v", both)
	}
}
