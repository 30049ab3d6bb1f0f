package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// get hides what the plan hides: a live value the schema marks secret under
// a name that says nothing (a VM's osProfile.customData) is masked by both.
// Before, get asked the rule without the schema and printed it.
func TestGetMasksWhatThePlanHides(t *testing.T) {
	s := &schema.Type{Name: "Microsoft.Compute/virtualMachines", APIVersion: "2024-03-01", Properties: map[string]*schema.Property{
		"properties":                      {Type: schema.TypeObject},
		"properties.osProfile":            {Type: schema.TypeObject},
		"properties.osProfile.customData": {Type: schema.TypeString, Secret: true},
		"properties.apiKey":               {Type: schema.TypeString, Enum: []string{"Enabled", "Disabled"}},
	}}
	const id = "/subscriptions/s/resourceGroups/g/providers/Microsoft.Compute/virtualMachines/vm"
	r := &manifest.Resource{ID: id, Type: s.Name, APIVersion: s.APIVersion}
	for _, props := range []map[string]any{
		{"osProfile": map[string]any{"customData": "value-1"}},
		{"apiKey": "value-1"},
		{"comment": "value-1"},
	} {
		live := map[string]any{"properties": props}
		planned, _ := json.Marshal(diff.Compute(diff.Input{ID: id, Desired: live, Schema: s}).Changes)
		got, _ := json.Marshal(liveMasked(id, s, r, live))
		if shown, printed := strings.Contains(string(planned), "value-1"), strings.Contains(string(got), "value-1"); shown != printed {
			t.Errorf("%v: the plan shows the value %v, get prints it %v", props, shown, printed)
		}
	}
}
