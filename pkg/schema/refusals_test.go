package schema_test

import (
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// A member the Network provider does not know is refused by it (400
// InvalidRequestFormat), so validation calls it an error on the exact
// api-version; other providers ignore such members: a warning.
func TestUnknownMembersOfAStrictProviderAreErrors(t *testing.T) {
	reg := schema.Default()
	for _, tc := range []struct {
		typ, version string
		body         map[string]any
		want         schema.Severity
	}{
		{"Microsoft.Network/routeTables", "2023-09-01", map[string]any{"location": "westeurope", "properties": map[string]any{"disableBgpRoutPropagation": true}}, schema.Error},
		{"Microsoft.Network/privateDnsZones", "2020-06-01", map[string]any{"location": "global", "properties": map[string]any{"notAMember": 1}}, schema.Warning},
		{"Microsoft.Storage/storageAccounts", "2023-05-01", map[string]any{"location": "westeurope", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}, "properties": map[string]any{"notAMember": 1}}, schema.Warning},
		// No schema for the exact version: judged on a neighbour, never an error.
		{"Microsoft.Network/routeTables", "2023-09-02", map[string]any{"location": "westeurope", "properties": map[string]any{"notAMember": 1}}, schema.Warning},
	} {
		typ, _ := reg.Lookup(tc.typ, tc.version)
		if typ == nil {
			t.Fatalf("%s@%s: no schema", tc.typ, tc.version)
		}
		var got []schema.Issue
		for _, is := range typ.Validate(tc.body) {
			if is.Kind == schema.KindUnknown {
				got = append(got, is)
			}
		}
		if len(got) != 1 || got[0].Severity != tc.want {
			t.Errorf("%s@%s: unknown-property findings %v, want one %s", tc.typ, tc.version, got, tc.want)
			continue
		}
		if tc.want == schema.Error && !strings.Contains(got[0].Message, "did you mean") {
			t.Errorf("%s@%s: %q lacks the suggestion", tc.typ, tc.version, got[0].Message)
		}
	}
}
