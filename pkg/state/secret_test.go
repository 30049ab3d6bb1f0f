package state

import (
	"context"
	"encoding/json"
	"errors"
	"os"
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
		r, err := sanitizedRecord(func() ([]byte, error) { return key, nil }, &Record{ID: tt.id, LastApplied: body, Baseline: body}, Options{Secrets: secret.NewRegistry()})
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

// TestStoreRefusesAClearSecretItCannotHash: a Secret the sanitizer cannot
// hash (in a typed container) makes Put and BeginIntent fail with
// Secret.MarshalJSON's error, checked before anything is marshalled, and
// nothing stored holds it.
func TestStoreRefusesAClearSecretItCannotHash(t *testing.T) {
	const planted = "planted-typed-S3cret-4d2"
	dir := t.TempDir()
	path := dir + "/state.json"
	st := openLocalT(t, path)
	ctx := context.Background()
	unlock, err := st.Lock(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]any{
		"slice":   []Secret{planted},
		"map":     map[string]Secret{"k": planted},
		"pointer": &struct{ S Secret }{planted},
	} {
		r := testRecord(testID)
		r.LastApplied["properties"] = map[string]any{"x": v}
		if err := st.Put(ctx, r); err == nil || !errors.Is(err, errClearSecret) || strings.Contains(err.Error(), planted) {
			t.Errorf("%s: Put = %v, want the clear-secret refusal without the value", name, err)
		}
		if err := st.BeginIntent(ctx, Intent{ID: testID, Op: OpPut, Record: r}); err == nil || !errors.Is(err, errClearSecret) {
			t.Errorf("%s: BeginIntent = %v, want the clear-secret refusal", name, err)
		}
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		b, _ := os.ReadFile(dir + "/" + e.Name())
		if strings.Contains(string(b), planted) {
			t.Errorf("%s holds the planted secret", e.Name())
		}
	}
}

// TestStoresDoNotShareRegistries: each store hashes the values of its own
// run's registry only; a value another run registered stays as it is.
func TestStoresDoNotShareRegistries(t *testing.T) {
	key := func() ([]byte, error) { return []byte("0123456789abcdef0123456789abcdef"), nil }
	first, second := secret.NewRegistry(), secret.NewRegistry()
	first.Register("first-run-value-81")
	body := func() map[string]any {
		return map[string]any{"properties": map[string]any{"note": "first-run-value-81"}}
	}
	a, err := sanitizedRecord(key, &Record{ID: testID, LastApplied: body(), Origin: "x first-run-value-81"}, Options{Secrets: first})
	if err != nil {
		t.Fatal(err)
	}
	b, err := sanitizedRecord(key, &Record{ID: testID, LastApplied: body(), Origin: "x first-run-value-81"}, Options{Secrets: second})
	if err != nil {
		t.Fatal(err)
	}
	if got := a.LastApplied["properties"].(map[string]any)["note"]; !secret.IsHash(got.(string)) || strings.Contains(a.Origin, "first-run") {
		t.Errorf("the first run's value is not hashed by its store: %v, origin %q", got, a.Origin)
	}
	if got := b.LastApplied["properties"].(map[string]any)["note"]; got != "first-run-value-81" {
		t.Errorf("another run's registry leaked into this store: %v", got)
	}
}
