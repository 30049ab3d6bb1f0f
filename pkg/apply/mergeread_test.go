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

// TestAccessPolicyAddIsDeletedWithRemove: ARM has no DELETE for an access
// policy operation, so deleting accessPolicies/add (its vault staying) is
// a PUT of its entries to accessPolicies/remove: the vault keeps the
// permissions someone else gave the same principal, and nothing else.
func TestAccessPolicyAddIsDeletedWithRemove(t *testing.T) {
	ctx := context.Background()
	_, c := emulated(t)
	st := newMemStore()
	opts := DefaultOptions()
	e := &Engine{Client: FromARM(c), Store: st, Schemas: schema.Default(), Options: opts}
	p, err := e.Plan(ctx, loadDocs(t, vaultDocs(`get, list`)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Execute(ctx, p); err != nil {
		t.Fatal(err)
	}
	vault := idOf("rg1", "Microsoft.KeyVault/vaults", "kv1")
	theirs := map[string]any{"properties": map[string]any{"accessPolicies": []any{map[string]any{
		"tenantId": vaultTenant, "objectId": "11111111-2222-3333-4444-555555555555",
		"permissions": map[string]any{"keys": []any{"get"}}}}}}
	if _, err := c.Put(ctx, vault+"/accessPolicies/add", "2023-07-01", theirs, nil); err != nil {
		t.Fatal(err)
	}

	// Only the access policy goes: the vault is declared without it.
	docs := vaultDocs(`get, list`)
	docs = docs[:strings.LastIndex(docs, "---")]
	opts.Prune = true
	e = &Engine{Client: FromARM(c), Store: st, Schemas: schema.Default(), Options: opts}
	p, err = e.Plan(ctx, loadDocs(t, docs))
	if err != nil {
		t.Fatal(err)
	}
	var planned plan.Resource
	for _, r := range p.Plan.Resources {
		if strings.HasSuffix(r.ID, "/accessPolicies/add") {
			planned = r
		}
	}
	if planned.Action != plan.ActionDelete || planned.Method != plan.MethodPut {
		t.Fatalf("the pruned access policy plans %s %q (%s); want a delete sent as a PUT to remove", planned.Action, planned.Method, planned.Reason)
	}
	if _, err := e.Execute(ctx, p); err != nil {
		t.Fatal(err)
	}
	resp, err := c.Get(ctx, vault, "2023-07-01")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := listAt(resp.Body, []string{"properties", "accessPolicies"})
	if len(got) != 1 {
		t.Fatalf("vault holds %d access policies after the delete; want the one entry with their permission: %v", len(got), got)
	}
	perms, _ := got[0].(map[string]any)["permissions"].(map[string]any)
	if secrets, _ := perms["secrets"].([]any); len(secrets) != 0 {
		t.Errorf("the deleted policy's secret permissions are still there: %v", secrets)
	}
	if keys, _ := perms["keys"].([]any); len(keys) != 1 {
		t.Errorf("their key permission went with ours: %v", perms)
	}
	if rec, _ := st.Get(ctx, planned.ID); rec != nil {
		t.Errorf("the deleted access policy is still recorded")
	}
}
