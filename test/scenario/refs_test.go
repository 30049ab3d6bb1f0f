package scenario

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/emulator/emulatortest"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

// readerRole is the built-in Reader role definition.
const readerRole = "acdd72a7-3385-48ef-bd42-f606fba81ae7"

// refsManifests: a group, an identity, and a role assignment whose name and
// principalId come from the identity's principalId, which Azure generates
// when the identity is created.
var refsManifests = emulatortest.Manifests(
	emulatortest.Group("rg-refs"),
	emulatortest.Identity("id-app", "rg-refs"),
	emulatortest.Doc{
		Name:  "${guid:${ref:rg-refs},${ref:id-app.properties.principalId}," + readerRole + "}",
		Type:  "Microsoft.Authorization/roleAssignments@2022-04-01",
		Place: "scope: ${ref:rg-refs}",
		Body: []string{
			"properties:",
			"  roleDefinitionId: /subscriptions/${subscriptionId}/providers/Microsoft.Authorization/roleDefinitions/" + readerRole,
			"  principalId: ${ref:id-app.properties.principalId}",
			"  principalType: ServicePrincipal",
		},
	},
)

// TestGeneratedValuesInOneRun: against an empty ARM, diff shows the role
// assignment with its name and principalId known after apply (exit 1); one
// apply creates all three (exit 0); the role assignment exists under the
// guid of the identity's real principalId; the next diff is clean (exit 0).
func TestGeneratedValuesInOneRun(t *testing.T) {
	a := harness.StartARM(t, harness.FastOptions())
	dir := t.TempDir()
	state := filepath.Join(dir, "state.json")
	harness.WriteFile(t, filepath.Join(dir, "infra", "refs.yaml"), refsManifests)
	infra := filepath.Join(dir, "infra")

	d := harness.Run(a.URL, state, "diff", "-f", infra, "-o", "json").Must(t, 1)
	if !strings.Contains(d.Stdout, "(known after apply)") {
		t.Errorf("the plan does not say what is known after apply:\n%s", d.Stdout)
	}
	harness.Run(a.URL, state, "apply", "-f", infra, "--yes").Must(t, 0)

	rg := "/subscriptions/" + harness.Sub + "/resourceGroups/rg-refs"
	var principal string
	for _, r := range a.Live() {
		if strings.EqualFold(r.ID, rg+"/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-app") {
			props, _ := r.Body["properties"].(map[string]any)
			principal, _ = props["principalId"].(string)
		}
	}
	if principal == "" {
		t.Fatal("the identity has no principalId in Azure")
	}
	raID := rg + "/providers/Microsoft.Authorization/roleAssignments/" + manifest.ARMGuid(rg, principal, readerRole)
	found := false
	for _, r := range a.Live() {
		if strings.EqualFold(r.ID, raID) {
			found = true
			props, _ := r.Body["properties"].(map[string]any)
			if got, _ := props["principalId"].(string); got != principal {
				t.Errorf("role assignment principalId = %q, want %q", got, principal)
			}
		}
	}
	if !found {
		var ids []string
		for _, r := range a.Live() {
			ids = append(ids, r.ID)
		}
		t.Fatalf("no role assignment %s; Azure holds:\n%s", raID, strings.Join(ids, "\n"))
	}
	harness.Run(a.URL, state, "diff", "-f", infra).Must(t, 0)
}
