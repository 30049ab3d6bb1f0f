package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// noDeleteDocs: a vault with a secret, and a site with its app settings:
// ARM has no DELETE for either child.
const noDeleteDocs = `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: rg-nd}
spec:
  type: Microsoft.Resources/resourceGroups@2021-04-01
  body: {location: westeurope}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: kv-nd-001}
spec:
  type: Microsoft.KeyVault/vaults@2023-07-01
  resourceGroup: rg-nd
  body:
    location: westeurope
    properties:
      tenantId: 8e2a4c1d-3b5f-4e7a-9c0d-6f1b2a3c4d5e
      sku: {family: A, name: standard}
      enableRbacAuthorization: true
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: db-password}
spec:
  type: Microsoft.KeyVault/vaults/secrets@2023-07-01
  parent: kv-nd-001
  body:
    properties: {value: not-a-real-secret}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: plan-nd}
spec:
  type: Microsoft.Web/serverfarms@2023-12-01
  resourceGroup: rg-nd
  body: {location: westeurope, sku: {name: B1}}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: app-nd-001}
spec:
  type: Microsoft.Web/sites@2023-12-01
  resourceGroup: rg-nd
  body:
    location: westeurope
    properties: {serverFarmId: "${ref:plan-nd}"}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: appsettings}
spec:
  type: Microsoft.Web/sites/config@2023-12-01
  parent: app-nd-001
  body:
    properties: {MODE: demo}
`

// TestDeleteSendsNoDeleteARMRefuses: a Key Vault secret and a site's
// config have no DELETE in ARM. Deleted with their parent they go with
// it, without a request of their own; deleted alone they stay, and the
// plan says so and how to remove them (issue 44 item 3).
func TestDeleteSendsNoDeleteARMRefuses(t *testing.T) {
	e := newEnv(t, nil)
	dir := manifestDir(t, filepath.Join(t.TempDir(), "nd"), "nd.yaml", noDeleteDocs)
	e.mustRun(0, "apply", "-f", dir, "--yes")
	kv := rg("rg-nd") + "/providers/Microsoft.KeyVault/vaults/kv-nd-001"

	// Alone: nothing is sent, the plan says what stays, and the delete
	// ends cleanly with the record gone.
	before := e.srv.Stats().Requests["DELETE"]
	out, errOut, code := e.run("delete", "-f", dir, "Microsoft.KeyVault/vaults/secrets/db-password", "--yes")
	if code != 0 || !strings.Contains(out+errOut, "stays in Azure") || !strings.Contains(out+errOut, "az keyvault secret delete") {
		t.Fatalf("delete of a secret alone: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if n := e.srv.Stats().Requests["DELETE"] - before; n != 0 {
		t.Errorf("the delete of a secret alone sent %d DELETE(s), which ARM refuses", n)
	}
	if _, code := e.live(kv+"/secrets/db-password", "2023-07-01"); code != 200 {
		t.Errorf("the secret: GET %d, want it kept", code)
	}
	if _, _, code := e.run("state", "show", "Microsoft.KeyVault/vaults/secrets/db-password"); code == 0 {
		t.Error("the secret's record is still in state")
	}

	// With its parent: it goes with the vault, the config with the site.
	// The secret is no longer in state: applying it again adopts it.
	e.mustRun(0, "apply", "-f", dir, "--yes", "--adopt")
	args := []string{"delete", "-f", dir, "Microsoft.KeyVault/vaults/kv-nd-001", "Microsoft.KeyVault/vaults/secrets/db-password",
		"Microsoft.Web/sites/app-nd-001", "Microsoft.Web/sites/config/appsettings"}
	out = e.mustRun(1, append(args, "--dry-run")...)
	if !strings.Contains(out, "it goes with its parent") {
		t.Errorf("delete --dry-run does not say the children go with their parents:\n%s", out)
	}
	before = e.srv.Stats().Requests["DELETE"]
	out, errOut, code = e.run(append(args, "--yes")...)
	if code != 0 {
		t.Fatalf("delete with parents: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if n := e.srv.Stats().Requests["DELETE"] - before; n != 2 {
		t.Errorf("the delete sent %d DELETEs, want 2 (the vault and the site)\n%s", n, out)
	}
	for _, id := range []string{kv + "/secrets/db-password", rg("rg-nd") + "/providers/Microsoft.Web/sites/app-nd-001"} {
		if _, code := e.live(id, "2023-12-01"); code != 404 {
			t.Errorf("%s: GET %d after its parent's delete", id, code)
		}
	}
	out = e.mustRun(0, "state", "list")
	if strings.Contains(out, "db-password") || strings.Contains(out, "appsettings") {
		t.Errorf("state still lists a child deleted with its parent:\n%s", out)
	}
}

// TestPruneOfSecretSaysItStays: a secret dropped from the manifests is
// not sent a DELETE by --prune either: the plan says it stays.
func TestPruneOfSecretSaysItStays(t *testing.T) {
	e := newEnv(t, nil)
	dir := manifestDir(t, filepath.Join(t.TempDir(), "nd"), "nd.yaml", noDeleteDocs)
	e.mustRun(0, "apply", "-f", dir, "--yes")
	i := strings.Index(noDeleteDocs, "---\napiVersion: azure.kubectl.io/v1alpha1\nkind: Resource\nmetadata: {name: db-password}")
	j := strings.Index(noDeleteDocs, "---\napiVersion: azure.kubectl.io/v1alpha1\nkind: Resource\nmetadata: {name: plan-nd}")
	manifestDir(t, dir, "nd.yaml", noDeleteDocs[:i]+noDeleteDocs[j:])
	before := e.srv.Stats().Requests["DELETE"]
	out, errOut, code := e.run("apply", "-f", dir, "--prune", "--yes")
	if code != 0 || !strings.Contains(out+errOut, "stays in Azure") {
		t.Fatalf("apply --prune without the secret: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if n := e.srv.Stats().Requests["DELETE"] - before; n != 0 {
		t.Errorf("--prune sent %d DELETE(s) for a secret", n)
	}
	e.mustRun(0, "diff", "-f", dir, "--prune")
}

// TestReplaceOfSecretIsRefused: --replace of a secret would need a DELETE
// ARM refuses: the plan is refused before any write, saying why.
func TestReplaceOfSecretIsRefused(t *testing.T) {
	e := newEnv(t, nil)
	dir := manifestDir(t, filepath.Join(t.TempDir(), "nd"), "nd.yaml", noDeleteDocs)
	e.mustRun(0, "apply", "-f", dir, "--yes")
	before := e.writes()
	_, errOut, code := e.run("apply", "-f", dir, "--replace", "Microsoft.KeyVault/vaults/secrets/db-password", "--yes")
	if code == 0 || !strings.Contains(errOut, "ARM cannot delete them") || !strings.Contains(errOut, "db-password") {
		t.Fatalf("apply --replace of a secret: exit %d\n%s", code, errOut)
	}
	if w := e.writes(); w != before {
		t.Errorf("a refused replace wrote %d times", w-before)
	}
}
