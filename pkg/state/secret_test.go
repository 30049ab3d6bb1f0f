package state

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// TestSanitizerAsksTheSecretRule: whatever a caller hands a store, both
// backends hash what the one rule calls secret (here: by type, by
// container) and keep what it does not (permission names).
func TestSanitizerAsksTheSecretRule(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	const rg = "/subscriptions/s1/resourceGroups/rg/providers/"
	tests := []struct {
		id    string
		body  string
		clear []string // must be hashed
		keep  []string // must stay as they are
	}{
		{rg + "Microsoft.KeyVault/vaults/kv/secrets/db", `{"properties":{"value":"kv-clear-1","contentType":"text/plain"}}`,
			[]string{"kv-clear-1"}, []string{"text/plain"}},
		{rg + "Microsoft.App/containerApps/app", `{"properties":{"configuration":{"secrets":[{"name":"db","value":"app-clear-2"}]}}}`,
			[]string{"app-clear-2"}, []string{`"name":"db"`}},
		{rg + "Microsoft.KeyVault/vaults/kv", `{"properties":{"accessPolicies":[{"permissions":{"secrets":["get","list"]}}]}}`,
			nil, []string{`"secrets":["get","list"]`}},
	}
	for _, tt := range tests {
		var body map[string]any
		if err := json.Unmarshal([]byte(tt.body), &body); err != nil {
			t.Fatal(err)
		}
		r, err := sanitizedRecord(func() ([]byte, error) { return key, nil }, &Record{ID: tt.id, LastApplied: body, Baseline: body})
		if err != nil {
			t.Fatal(err)
		}
		for name, m := range map[string]map[string]any{"L": r.LastApplied, "B": r.Baseline} {
			b, _ := json.Marshal(m)
			for _, c := range tt.clear {
				if strings.Contains(string(b), c) {
					t.Errorf("%s of %s keeps %q in clear: %s", name, tt.id, c, b)
				}
			}
			for _, k := range tt.keep {
				if !strings.Contains(string(b), k) {
					t.Errorf("%s of %s lost %s: %s", name, tt.id, k, b)
				}
			}
			if len(tt.clear) > 0 && !strings.Contains(string(b), secret.HashPrefix) {
				t.Errorf("%s of %s: no hash: %s", name, tt.id, b)
			}
		}
	}
}
