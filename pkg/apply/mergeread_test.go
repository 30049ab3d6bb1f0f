package apply

import (
	"context"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

const vaultTenant = "00000000-0000-0000-0000-0000000ca0ca"

func vaultDocs(perms string) string {
	return rgDoc + `---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: kv1}
spec:
  type: Microsoft.KeyVault/vaults@2023-07-01
  resourceGroup: rg1
  body:
    location: westeurope
    properties:
      tenantId: ` + vaultTenant + `
      sku: {family: A, name: standard}
      accessPolicies: []
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: add}
spec:
  type: Microsoft.KeyVault/vaults/accessPolicies@2023-07-01
  resourceGroup: rg1
  parent: Microsoft.KeyVault/vaults/kv1
  body:
    properties:
      accessPolicies:
      - tenantId: ` + vaultTenant + `
        objectId: 11111111-2222-3333-4444-555555555555
        permissions: {secrets: [` + perms + `]}
`
}

// TestAccessPolicyAddIsReadThroughItsVault: Key Vault's accessPolicies/add
// has no GET (its PUT merges entries into the vault), so it is read
// through the vault: after an apply the plan is quiet, a permission taken
// away outside is drift put back, and one added outside to the same
// principal is not drift (add unions).
func TestAccessPolicyAddIsReadThroughItsVault(t *testing.T) {
	ctx := context.Background()
	_, c := emulated(t)
	st := newMemStore()
	engine := func() *Engine {
		return &Engine{Client: FromARM(c), Store: st, Schemas: schema.Default(), Options: DefaultOptions()}
	}
	policy := idOf("rg1", "Microsoft.KeyVault/vaults", "kv1") + "/accessPolicies/add"
	planOf := func(perms string) plan.Resource {
		t.Helper()
		p, err := engine().Plan(ctx, loadDocs(t, vaultDocs(perms)))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range p.Plan.Resources {
			if strings.EqualFold(r.ID, policy) {
				return r
			}
		}
		t.Fatalf("no plan for %s", policy)
		return plan.Resource{}
	}
	e := engine()
	p, err := e.Plan(ctx, loadDocs(t, vaultDocs(`get, list`)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Execute(ctx, p); err != nil {
		t.Fatal(err)
	}
	if r := planOf(`get, list`); r.Action != plan.ActionNoOp {
		t.Fatalf("after apply the access policy plans %s %v; want no-op", r.Action, r.Changes)
	}

	// Outside: "list" removed, "set" added to the same entry.
	vault := idOf("rg1", "Microsoft.KeyVault/vaults", "kv1")
	replace := map[string]any{"properties": map[string]any{"accessPolicies": []any{map[string]any{
		"tenantId": vaultTenant, "objectId": "11111111-2222-3333-4444-555555555555",
		"permissions": map[string]any{"secrets": []any{"Get", "Set"}}}}}}
	if _, err := c.Put(ctx, vault+"/accessPolicies/replace", "2023-07-01", replace, nil); err != nil {
		t.Fatal(err)
	}
	r := planOf(`get, list`)
	if r.Action != plan.ActionUpdate || len(r.Changes) == 0 {
		t.Fatalf("with list removed outside the access policy plans %s; want an update", r.Action)
	}
	if got := r.Changes[0].Path; !strings.Contains(got, "permissions.secrets") {
		t.Errorf("the change is at %q; want the secrets permissions", got)
	}
	if r := planOf(`get`); r.Action != plan.ActionNoOp {
		t.Errorf("a permission added outside is drift for add: planned %s %v", r.Action, r.Changes)
	}
}
