package manifest

import (
	"context"
	"strings"
	"testing"
)

// TestBodySelectedByName: Microsoft.Web/sites/config has one body per
// resource name, and only the name tells them apart. A {value, type} pair
// is right for connectionstrings, judged as such and not against a merge
// of every config kind (ARM accepts it), and wrong for appsettings (plain
// strings).
func TestBodySelectedByName(t *testing.T) {
	const doc = `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: NAME}
spec:
  type: Microsoft.Web/sites/config@2023-12-01
  id: /subscriptions/` + testSub + `/resourceGroups/rg/providers/Microsoft.Web/sites/app1/config/NAME
  body:
    properties:
      db: {value: "Server=x", type: SQLAzure}
`
	for _, c := range []struct {
		name   string
		misfit bool
	}{
		{"connectionstrings", false},
		{"appsettings", true},
	} {
		s, err := loadAny(t, stdin(strings.ReplaceAll(doc, "NAME", c.name)))
		var findings []Problem
		if s != nil {
			findings = s.Findings
		}
		if got := err != nil || len(findings) > 0; got != c.misfit {
			t.Errorf("%s holding connection-string pairs: error %v, findings %v; want misfit %v", c.name, err, findings, c.misfit)
		}
	}
}

func loadAny(t *testing.T, o LoadOptions) (*Set, error) {
	t.Helper()
	if o.LookupEnv == nil {
		o.LookupEnv = envOf(map[string]string{"AZURE_SUBSCRIPTION_ID": testSub})
	}
	return Load(context.Background(), o)
}
