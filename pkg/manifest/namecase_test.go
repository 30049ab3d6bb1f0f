package manifest

import (
	"strings"
	"testing"
)

// A member spelt in another case than the schema's (minimumTLSVersion for
// minimumTlsVersion) is read by the provider, which answers in its own
// spelling: the loader warns and writes the schema's, so the plan compares
// what Azure will hold instead of a value Azure never shows under that
// name. A member under a valueFrom mark keeps its spelling.
func TestCaseMismatchedMemberTakesTheSchemasSpelling(t *testing.T) {
	const doc = `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: stcase001}
spec:
  type: Microsoft.Storage/storageAccounts@2023-05-01
  resourceGroup: rg
  body:
    location: westeurope
    kind: StorageV2
    sku: {name: Standard_LRS}
    properties:
      minimumTLSVersion: TLS1_2
`
	s, err := loadAny(t, stdin(doc))
	if err != nil {
		t.Fatal(err)
	}
	props := s.Resources[0].Body["properties"].(map[string]any)
	if props["minimumTlsVersion"] != "TLS1_2" || props["minimumTLSVersion"] != nil {
		t.Errorf("body after load: %v, want the schema's spelling minimumTlsVersion", props)
	}
	if w := strings.Join(s.Warnings, "\n"); !strings.Contains(w, "minimumTlsVersion") {
		t.Errorf("no warning naming the schema's spelling:\n%s", w)
	}
}
