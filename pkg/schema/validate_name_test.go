package schema

import (
	"strings"
	"testing"
)

// A singleton child (blobServices is always "default") or a child whose
// names are a closed list is checked by name: ARM refuses any other name,
// and kustomize's nameSuffix produces one silently.
func TestValidateClosedResourceName(t *testing.T) {
	cases := []struct {
		typ, ver, name string
		sev            Severity // -1: no finding
		allowed        string
	}{
		{"Microsoft.Storage/storageAccounts/blobServices", "2023-05-01", "default-prod", Error, "default"},
		{"Microsoft.Storage/storageAccounts/blobServices", "2023-05-01", "default", -1, ""},
		{"Microsoft.Storage/storageAccounts/blobServices", "2023-05-01", "Default", -1, ""}, // ARM names are case-insensitive
		{"Microsoft.Storage/storageAccounts/blobServices", "2023-05-01", "st1/default", -1, ""},
		{"Microsoft.Storage/storageAccounts/blobServices", "2023-05-01", "", -1, ""}, // name unknown: not judged
		{"Microsoft.KeyVault/vaults/accessPolicies", "2023-07-01", "append", Error, "add, replace, remove"},
		{"Microsoft.KeyVault/vaults/accessPolicies", "2023-07-01", "add", -1, ""},
		// An open name list is a hint, not a rule.
		{"Microsoft.Storage/storageAccounts/blobServices/containers", "2023-05-01", "anything", -1, ""},
	}
	for _, tc := range cases {
		t.Run(tc.typ+"/"+tc.name, func(t *testing.T) {
			ty := lookup(t, tc.typ, tc.ver)
			var found []Issue
			for _, is := range ty.ValidateWith(map[string]any{"properties": map[string]any{}}, ValidateOptions{Name: tc.name}) {
				if is.Kind == KindName {
					found = append(found, is)
				}
			}
			if tc.sev < 0 {
				if len(found) > 0 {
					t.Fatalf("unexpected %v", found)
				}
				return
			}
			if len(found) != 1 || found[0].Severity != tc.sev {
				t.Fatalf("got %v, want one %v", found, tc.sev)
			}
			m := found[0].Message
			if !strings.Contains(m, tc.name) || !strings.Contains(m, tc.allowed) || !strings.Contains(m, "metadata.name") {
				t.Errorf("message should name the name, the allowed names and where to fix it: %q", m)
			}
		})
	}
}

// On a nearest api-version the name check is a warning, like every other
// finding judged there.
func TestValidateClosedResourceNameOnFallback(t *testing.T) {
	ty, res := Default().Lookup("Microsoft.Storage/storageAccounts/blobServices", "2023-05-02")
	if ty == nil || !ty.Fallback() {
		t.Fatalf("want a fallback lookup, got %v %v", ty, res)
	}
	for _, is := range ty.ValidateWith(nil, ValidateOptions{Name: "default-prod"}) {
		if is.Kind == KindName && is.Severity == Warning {
			return
		}
	}
	t.Fatal("no warning for the name")
}
