package schema

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzParseQuery: explain queries come from users; parsing never panics
// and a parsed type always carries its namespace.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{
		"Microsoft.Storage/storageAccounts@2025-01-01.properties.minimumTlsVersion",
		"Microsoft.Web/sites/config@2024-04-01", "a/b.", "/@", "x/y@", "Microsoft.Storage",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := ParseQuery(s)
		if err != nil {
			return
		}
		if !strings.Contains(q.Type, "/") {
			t.Errorf("ParseQuery(%q) type %q has no namespace", s, q.Type)
		}
		var b bytes.Buffer
		_ = Explain(&b, Default(), s, ExplainOptions{})
	})
}

// FuzzValidate: manifests come from users; validating any JSON body never
// panics, reports each path at most once, and never reports an error on
// a fallback version.
func FuzzValidate(f *testing.F) {
	for _, s := range []string{
		`{"location":"westeurope","kind":"StorageV2","sku":{"name":"Standard_LRS"},"properties":{"minimumTlsVersion":"TLS1_2"}}`,
		`{"properties":{"isHnsEnabled":"true","keyPolicy":{"keyExpirationPeriodInDays":"abc"}}}`,
		`{"tags":{"a":1},"properties":{"networkAcls":{"ipRules":[{"value":{}}]}}}`,
		`{"properties":{"encryption":[1,2],"accessTier":12345678901234567890}}`,
	} {
		f.Add(s, "2025-01-01", true)
	}
	f.Fuzz(func(t *testing.T, body, version string, create bool) {
		dec := json.NewDecoder(strings.NewReader(body))
		dec.UseNumber()
		var m map[string]any
		if dec.Decode(&m) != nil {
			return
		}
		ty, _ := Default().Lookup("Microsoft.Storage/storageAccounts", version)
		seen := map[string]bool{}
		for _, is := range ty.ValidateWith(m, ValidateOptions{Name: "acct", Create: create}) {
			if seen[is.Path] {
				t.Errorf("path %s reported twice", is.Path)
			}
			seen[is.Path] = true
			if ty.Fallback() && is.Severity == Error {
				t.Errorf("error on a fallback version: %v", is)
			}
		}
	})
}
