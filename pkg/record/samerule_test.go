package record

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// The plan and the state record ask one secret rule with one reading of
// the schema: a value the record hashes is never shown by the plan, and
// one the plan shows is kept in clear. Before, the diff looked the schema
// up by exact member name and the record case-insensitively (as ARM reads
// members), so a manifest writing osProfile.CustomData had its secret
// hashed in state and printed in the plan.
func TestPlanAndRecordJudgeSecretsAlike(t *testing.T) {
	s := &schema.Type{Name: "Microsoft.Compute/virtualMachines", APIVersion: "2024-03-01", Properties: map[string]*schema.Property{
		"properties":                      {Type: schema.TypeObject},
		"properties.osProfile":            {Type: schema.TypeObject},
		"properties.osProfile.customData": {Type: schema.TypeString, Secret: true},
		"properties.apiKey":               {Type: schema.TypeString, Enum: []string{"Enabled", "Disabled"}},
		"properties.tagsMap":              {Type: schema.TypeObject},
		"properties.tagsMap.*":            {Type: schema.TypeString, Secret: true},
	}}
	const id = "/subscriptions/s/resourceGroups/g/providers/Microsoft.Compute/virtualMachines/vm"
	for _, tt := range []struct {
		name   string
		props  map[string]any
		secret bool
	}{
		{"schema secret", map[string]any{"osProfile": map[string]any{"customData": "value-1"}}, true},
		{"schema secret, other case", map[string]any{"osProfile": map[string]any{"CustomData": "value-1"}}, true},
		{"map value the schema marks", map[string]any{"tagsMap": map[string]any{"anything": "value-1"}}, true},
		{"credential name", map[string]any{"adminPassword": "value-1"}, true},
		{"enum named like a credential", map[string]any{"apiKey": "value-1"}, false},
		{"plain", map[string]any{"comment": "value-1"}, false},
	} {
		d := map[string]any{"properties": tt.props}
		planned, _ := json.Marshal(diff.Compute(diff.Input{ID: id, Desired: d, Schema: s}).Changes)
		rec, err := Build(Input{ID: id, Type: s.Name, APIVersion: s.APIVersion, Desired: d, Live: d, Schema: s, Key: []byte("k")})
		if err != nil {
			t.Fatal(err)
		}
		stored, _ := json.Marshal(rec.LastApplied)
		shown, kept := strings.Contains(string(planned), "value-1"), strings.Contains(string(stored), "value-1")
		if shown != kept || shown == tt.secret {
			t.Errorf("%s: plan shows the value %v, state keeps it in clear %v; want both %v", tt.name, shown, kept, !tt.secret)
		}
	}
}
