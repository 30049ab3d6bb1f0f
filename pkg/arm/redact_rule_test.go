package arm

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// TestLogHidesWhatTheRuleHides: a -v 8 body log may hide more than the
// plan (it errs on the side of hiding), never less. Every leaf the one
// rule calls sensitive, for the type, name and paths the client is given,
// is hidden in the logged body; a leaf the rule calls plain and no looser
// log rule matches is shown.
func TestLogHidesWhatTheRuleHides(t *testing.T) {
	const id = "/subscriptions/s/resourceGroups/g/providers/Microsoft.Compute/virtualMachines/vm"
	paths := []string{"properties.osProfile.customData", "properties.secrets[*].value"}
	c := &Client{}
	c.opts.SensitivePaths = func(string, string) []string { return paths }
	body := map[string]any{"properties": map[string]any{
		"osProfile":         map[string]any{"CustomData": "leaf-1", "adminUsername": "leaf-2", "adminPassword": "leaf-3"},
		"secrets":           []any{map[string]any{"name": "leaf-4", "value": "leaf-5"}},
		"protectedSettings": map[string]any{"script": "leaf-6"},
		"keys":              []any{"leaf-7"},
		"comment":           "leaf-8",
		"connection":        map[string]any{"connectionString": map[string]any{"value": "leaf-9"}},
	}}
	data, err := encodeJSON(body)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse("https://management.azure.com" + id + "?api-version=2024-03-01")
	logged := c.bodyContext(http.MethodPut, u).redact(data, false)
	rule := secret.ForID(id, nil, paths...)
	hidden := 0
	bodypath.Leaves(body, func(p bodypath.Path, v any) {
		s := fmt.Sprint(v)
		shown := strings.Contains(logged, `"`+s+`"`)
		if rule.At(p, v) {
			hidden++
			if shown {
				t.Errorf("%s: the rule hides it, the log shows it: %s", p.Display(), logged)
			}
		}
	})
	for _, plain := range []string{"leaf-2", "leaf-8"} {
		if !strings.Contains(logged, plain) {
			t.Errorf("%s is plain to every rule but hidden: %s", plain, logged)
		}
	}
	if hidden < 5 {
		t.Fatalf("the cases exercise too little of the rule: %d leaves hidden", hidden)
	}
}
