package manifest

import (
	"context"
	"testing"
)

// TestBodySelectedByName: Microsoft.Web/sites/config has one body per
// resource name; a connectionstrings body must be judged as one, not
// against a merge of every config kind (ARM accepts it).
func TestBodySelectedByName(t *testing.T) {
	const doc = `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: connectionstrings}
spec:
  type: Microsoft.Web/sites/config@2023-12-01
  id: /subscriptions/` + testSub + `/resourceGroups/rg/providers/Microsoft.Web/sites/app1/config/connectionstrings
  body:
    properties:
      db: {value: "Server=x", type: SQLAzure}
`
	s := load(t, stdin(doc))
	for _, f := range s.Findings {
		t.Errorf("unexpected finding: %v", f)
	}
}

// TestBodySelectedByNameFindsMisfit: a {value, type} pair is right for
// connectionstrings but not for appsettings (plain strings); only the name
// tells the two bodies apart.
func TestBodySelectedByNameFindsMisfit(t *testing.T) {
	const doc = `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: appsettings}
spec:
  type: Microsoft.Web/sites/config@2023-12-01
  id: /subscriptions/` + testSub + `/resourceGroups/rg/providers/Microsoft.Web/sites/app1/config/appsettings
  body:
    properties:
      db: {value: "Server=x", type: SQLAzure}
`
	s, err := loadAny(t, stdin(doc))
	if err == nil && len(s.Findings) == 0 {
		t.Error("appsettings holding connection-string pairs: no finding")
	}
}

func loadAny(t *testing.T, o LoadOptions) (*Set, error) {
	t.Helper()
	if o.LookupEnv == nil {
		o.LookupEnv = envOf(map[string]string{"AZURE_SUBSCRIPTION_ID": testSub})
	}
	return Load(context.Background(), o)
}
