package cli_test

import (
	"strings"
	"testing"
)

// A group holding a custom role definition is deleted without
// --allow-cascade: the role definitions listed at the group's scope
// include every built-in role, whose IDs are the subscription's, and a
// group's DELETE takes none of them. Before, each built-in role was an
// entry "without a valid id" that refused the delete.
func TestDeleteGroupWithARoleDefinitionIgnoresBuiltInRoles(t *testing.T) {
	e := newEnv(t, nil)
	dir := t.TempDir()
	manifestDir(t, dir, "rg.yaml", `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: rg-roles}
spec:
  type: Microsoft.Resources/resourceGroups@2021-04-01
  body: {location: westeurope}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: 5b3a2c1e-7f4d-4e55-9a0b-2c6d8e9f0a11}
spec:
  type: Microsoft.Authorization/roleDefinitions@2022-04-01
  scope: ${ref:rg-roles}
  body:
    properties:
      roleName: image builder
      description: what the image builder may do
      type: CustomRole
      permissions: [{actions: [Microsoft.Compute/galleries/read]}]
      assignableScopes: ["/subscriptions/`+"${subscriptionId}"+`/resourceGroups/rg-roles"]
`)
	e.mustRun(0, "apply", "-f", dir, "--yes")
	out, errOut, code := e.run("delete", "-f", dir, "--yes")
	if code != 0 || strings.Contains(out+errOut, "without a valid id") {
		t.Fatalf("delete exit %d:\n%s\n%s", code, out, errOut)
	}
}
