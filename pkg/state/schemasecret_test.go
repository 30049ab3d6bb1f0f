package state_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// A property the schema marks secret under a name that sounds like no
// credential (a VM's customData) is hashed by the store itself when the
// caller hands it the rule built from the schema: no stored byte, of the
// state file or its journal, holds it in clear, whether it comes by Put or
// by an intent's record. Before, the store's rule knew no schema and wrote
// it as it came.
func TestStoreHashesASchemaSecretWhateverItsName(t *testing.T) {
	const clear = "I2Nsb3VkLWNvbmZpZwpTRUNSRVQtQ1VTVE9NLURBVEE="
	vmType := "Microsoft.Compute/virtualMachines"
	vm := "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/" + vmType + "/vm1"
	s := &schema.Type{Name: vmType, APIVersion: "2024-03-01", Properties: map[string]*schema.Property{
		"properties.osProfile.customData": {Type: schema.TypeString, Secret: true},
	}}
	rules := func(r *state.Record) *secret.Rule {
		if !strings.EqualFold(r.Type, vmType) {
			return nil
		}
		return diff.SecretRule(r.ID, s)
	}
	dir := t.TempDir()
	ctx := context.Background()
	st, err := state.Open(ctx, filepath.Join(dir, "state.json"), state.Options{SecretRule: rules})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	body := func() map[string]any {
		return map[string]any{"location": "westeurope", "properties": map[string]any{"osProfile": map[string]any{"customData": clear, "computerName": "vm1"}}}
	}
	rec := func() *state.Record {
		return &state.Record{ID: vm, Type: vmType, APIVersion: "2024-03-01", LastApplied: body(), Baseline: body()}
	}
	if err := st.BeginIntent(ctx, state.Intent{ID: vm, Op: state.OpPut, Type: vmType, APIVersion: "2024-03-01", Record: rec()}); err != nil {
		t.Fatal(err)
	}
	if err := st.Put(ctx, rec()); err != nil {
		t.Fatal(err)
	}
	got, err := st.Get(ctx, vm)
	if err != nil || got == nil {
		t.Fatalf("get: %v %v", got, err)
	}
	if v := got.LastApplied["properties"].(map[string]any)["osProfile"].(map[string]any)["customData"]; !secret.IsHash(v) {
		t.Errorf("customData read back as %v, want a hash", v)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) == 0 {
		t.Fatal("nothing stored")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // a directory
		}
		if strings.Contains(string(b), clear) || strings.Contains(string(b), "SECRET-CUSTOM-DATA") {
			t.Errorf("%s holds the schema secret in clear", filepath.Base(f))
		}
		if strings.Contains(string(b), `"computerName"`) && !strings.Contains(string(b), `"vm1"`) {
			t.Errorf("%s: a plain value was hashed", filepath.Base(f))
		}
	}
}
