package diff

import (
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// TestSensitiveVerdict: one rule decides which changes hide their values,
// with the rule's exemptions (a plain enum named like a credential, the
// identifiers of a secret entry) and a caller's own rule in Input.Secrets.
func TestSensitiveVerdict(t *testing.T) {
	sch := &schema.Type{Name: "Test.RP/things", APIVersion: "2024-01-01", Properties: map[string]*schema.Property{
		"properties.apiKey":   {Type: schema.TypeString, Enum: []string{"Enabled", "Disabled"}},
		"properties.token":    {Type: schema.TypeString},
		"properties.vault":    {Type: schema.TypeString, Secret: true},
		"properties.note":     {Type: schema.TypeString},
		"properties.settings": {Type: schema.TypeObject},
	}}
	const thing = "/subscriptions/s/resourceGroups/rg/providers/Test.RP/things/t"
	const vaultSecret = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.KeyVault/vaults/kv/secrets/s"
	tests := []struct {
		name, id, desired, live, path string
		secretPaths                   []string
		rule                          *secret.Rule
		want                          bool
	}{
		{"credential name", thing, `{"properties":{"token":"b"}}`, `{"properties":{"token":"a"}}`, "properties.token", nil, nil, true},
		{"schema secret", thing, `{"properties":{"vault":"b"}}`, `{"properties":{"vault":"a"}}`, "properties.vault", nil, nil, true},
		{"plain enum named like a credential", thing, `{"properties":{"apiKey":"Enabled"}}`, `{"properties":{"apiKey":"Disabled"}}`, "properties.apiKey", nil, nil, false},
		{"plain value", thing, `{"properties":{"note":"b"}}`, `{"properties":{"note":"a"}}`, "properties.note", nil, nil, false},
		{"valueFrom path", thing, `{"properties":{"note":"b"}}`, `{"properties":{"note":"a"}}`, "properties.note", []string{"properties.note"}, nil, true},
		{"inside a credential container", thing, `{"properties":{"protectedSettings":{"x":"b"}}}`, `{"properties":{"protectedSettings":{"x":"a"}}}`, "properties.protectedSettings.x", nil, nil, true},
		{"type secret path", vaultSecret, `{"properties":{"value":"b"}}`, `{"properties":{"value":"a"}}`, "properties.value", nil, nil, true},
		{"caller's rule", thing, `{"properties":{"note":"b"}}`, `{"properties":{"note":"a"}}`, "properties.note", nil, secret.For("Test.RP/things", "t", nil, "properties.note"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Compute(Input{ID: tt.id, Desired: obj(t, tt.desired), Live: obj(t, tt.live), Schema: sch, SecretPaths: tt.secretPaths, Secrets: tt.rule})
			c := change(t, r, tt.path)
			if c.Sensitive != tt.want {
				t.Fatalf("Sensitive = %v, want %v (%+v)", c.Sensitive, tt.want, c)
			}
			js := mustJSON(t, c)
			if hidden := !strings.Contains(js, `"a"`) && !strings.Contains(js, `"b"`); tt.want && !hidden {
				t.Errorf("a sensitive change shows its values: %s", js)
			}
			if !tt.want && c.After == (plan.Sensitive{}) {
				t.Errorf("a plain change is masked: %s", js)
			}
		})
	}
}

// A plain enum named like a credential (Grafana's apiKey: Enabled or
// Disabled) is plain on every path of the diff, as the rule and the state
// record have it: a change the user makes is shown and compared in clear,
// and drift Azure makes is planned. Before, the comparers asked the name
// alone: the user's change was hidden as a secret compared by hash, and
// drift was taken for a value GET withholds.
func TestPlainEnumNamedLikeCredentialOnUpdate(t *testing.T) {
	sch := &schema.Type{Name: "Microsoft.Dashboard/grafana", APIVersion: "2023-09-01", Properties: map[string]*schema.Property{
		"properties":        {Type: schema.TypeObject},
		"properties.apiKey": {Type: schema.TypeString, Enum: []string{"Enabled", "Disabled"}},
	}}
	const id = "/subscriptions/s/resourceGroups/g/providers/Microsoft.Dashboard/grafana/g1"
	w := func(v string) map[string]any { return map[string]any{"properties": map[string]any{"apiKey": v}} }
	for _, tt := range []struct {
		name                string
		desired, last, live string
		cause               plan.Cause
	}{
		{"user change", "Disabled", "Enabled", "Enabled", plan.CauseUser},
		{"drift", "Enabled", "Enabled", "Disabled", plan.CauseDrift},
	} {
		r := Compute(Input{ID: id, Schema: sch, Desired: w(tt.desired), LastApplied: w(tt.last), Baseline: w(tt.last), Live: w(tt.live)})
		c, ok := findChange(r, "properties.apiKey")
		if !ok {
			t.Errorf("%s: no change planned: %+v", tt.name, r.Changes)
			continue
		}
		if c.Sensitive || c.Cause != tt.cause || c.Before != tt.live || c.After != tt.desired {
			t.Errorf("%s: %+v, want %s -> %s shown, cause %s", tt.name, c, tt.live, tt.desired, tt.cause)
		}
	}
}

func findChange(r Result, path string) (plan.Change, bool) {
	for _, c := range r.Changes {
		if c.Path == path {
			return c, true
		}
	}
	return plan.Change{}, false
}
