package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

const getRoleDocs = `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: rg-get}
spec:
  type: Microsoft.Resources/resourceGroups@2021-04-01
  body: {location: westeurope}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: id-get}
spec:
  type: Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31
  resourceGroup: rg-get
  body: {location: westeurope}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata:
  name: ${guid:${ref:rg-get},${ref:id-get.properties.principalId},acdd72a7-3385-48ef-bd42-f606fba81ae7}
spec:
  type: Microsoft.Authorization/roleAssignments@2022-04-01
  scope: ${ref:rg-get}
  body:
    properties:
      roleDefinitionId: /subscriptions/${subscriptionId}/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7
      principalId: ${ref:id-get.properties.principalId}
      principalType: ServicePrincipal
`

// TestGetResolvesComputedNames: before apply, get lists the role assignment
// whose name depends on the identity as "name known after apply" instead of
// failing for the whole set; after apply it reads it under its real name.
func TestGetResolvesComputedNames(t *testing.T) {
	e := newEnv(t, nil)
	dir := manifestDir(t, filepath.Join(t.TempDir(), "roles"), "roles.yaml", getRoleDocs)

	// Only the role assignment selected, nothing applied: its name cannot
	// be computed, and that is reported for it alone.
	out, errOut, code := e.run("get", "-f", dir, "roleAssignments/(known after apply)")
	if code != 0 || !strings.Contains(out, "name known after apply") || !strings.Contains(errOut, "name known after apply") {
		t.Fatalf("get before apply: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}

	e.mustRun(0, "apply", "-f", dir, "--yes")
	js := e.mustRun(0, "get", "-f", dir, "-o", "json")
	var doc struct {
		Resources []struct {
			ID                  string         `json:"id"`
			Body                map[string]any `json:"body"`
			NameKnownAfterApply bool           `json:"nameKnownAfterApply"`
		} `json:"resources"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatalf("%v\n%s", err, js)
	}
	if len(doc.Resources) != 3 {
		t.Fatalf("got %d resources:\n%s", len(doc.Resources), js)
	}
	ra := doc.Resources[2]
	if ra.NameKnownAfterApply || strings.Contains(ra.ID, "known after apply") || !strings.Contains(ra.ID, "/roleAssignments/") || ra.Body["properties"] == nil {
		t.Errorf("role assignment after apply: %+v", ra)
	}
}
