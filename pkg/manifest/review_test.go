package manifest

import "testing"

// TestRoleAssignmentReview: role, principal and scope of a role assignment
// whose name is known after apply are still named.
func TestRoleAssignmentReview(t *testing.T) {
	s := load(t, LoadOptions{Kustomize: "../../testdata/templates/dev"})
	ra := byName(t, s, nameKnownAfterApply)
	role, principal, scope, ok := ra.RoleAssignment()
	rg := "/subscriptions/" + testSub + "/resourceGroups/rg-app-dev"
	wantScope := rg + "/providers/Microsoft.Storage/storageAccounts/st" + ARMUniqueString(rg)
	if !ok || role != "/subscriptions/"+testSub+"/providers/Microsoft.Authorization/roleDefinitions/2a2b9908-6ea1-4ae2-8e65-a410df84e7d1" ||
		principal != "${ref:id-app.properties.principalId}" || scope != wantScope {
		t.Errorf("RoleAssignment = %q, %q, %q, %v", role, principal, scope, ok)
	}
	if _, _, _, ok := byName(t, s, "id-app-dev").RoleAssignment(); ok {
		t.Error("an identity is no role assignment")
	}
}

// TestRoleAssignmentScopes: the scope is what the assignment extends, at
// every level, and the tenant root is "/".
func TestRoleAssignmentScopes(t *testing.T) {
	const ra = "/providers/Microsoft.Authorization/roleAssignments/00000000-0000-0000-0000-000000000001"
	rg := "/subscriptions/" + testSub + "/resourceGroups/rg"
	for id, want := range map[string]string{
		ra:                               "/",
		"/subscriptions/" + testSub + ra: "/subscriptions/" + testSub,
		rg + ra:                          rg,
		rg + "/providers/Microsoft.KeyVault/vaults/kv" + ra:                           rg + "/providers/Microsoft.KeyVault/vaults/kv",
		rg + "/providers/microsoft.authorization/ROLEASSIGNMENTS/(known after apply)": rg,
	} {
		r := &Resource{Type: "Microsoft.Authorization/roleAssignments", ID: id}
		if _, _, scope, ok := r.RoleAssignment(); !ok || scope != want {
			t.Errorf("%s: scope %q, want %q", id, scope, want)
		}
	}
}
