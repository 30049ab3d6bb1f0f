package apply

import (
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// TestRequiredOnCreate: a create that lacks a property its exact
// api-version requires is refused before any write; the same body on a
// resource that exists is an update and passes.
func TestRequiredOnCreate(t *testing.T) {
	id := idOf("rg", "Microsoft.Storage/storageAccounts", "st1")
	noSku := map[string]any{"location": "westeurope", "kind": "StorageV2"}
	r := res(id, noSku)
	r.APIVersion = "2023-05-01"
	for _, exists := range []bool{false, true} {
		a := newFakeARM()
		a.seed(rgID("rg"), map[string]any{"location": "westeurope"})
		if exists {
			a.seed(id, map[string]any{"location": "westeurope", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}})
		}
		e := newEngine(a, newMemStore(), Options{Consent: Consent{Adopt: true}})
		e.Schemas = schema.Default()
		p := mustPlan(t, e, r)
		err := e.Check(p)
		if !exists && (err == nil || !strings.Contains(err.Error(), "needs sku when it is created")) {
			t.Fatalf("create without sku: Check = %v", err)
		}
		if exists && err != nil {
			t.Fatalf("update without sku: Check = %v", err)
		}
	}
}
