package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
)

func TestAdoptNeedsFlagAndWritesNothingWithout(t *testing.T) {
	e := newEnv(t, nil)
	// Someone created the group and the identity by hand, with other tags.
	if err := e.srv.Seed(rg("rg-demo"), "2021-04-01", map[string]any{"location": "westeurope"}); err != nil {
		t.Fatal(err)
	}
	id := rg("rg-demo") + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-demo-app"
	if err := e.srv.Seed(id, "2023-01-31", map[string]any{"location": "westeurope", "tags": map[string]any{"app": "demo", "env": "manual"}}); err != nil {
		t.Fatal(err)
	}
	out := e.mustRun(1, "diff", "-f", e.dir)
	if !strings.Contains(out, "<=") || !strings.Contains(out, "id-demo-app") {
		t.Fatalf("plan should show the identity as adopt:\n%s", out)
	}
	before := e.writes()
	_, errOut, code := e.run("apply", "-f", e.dir, "--yes")
	if code == 0 || !strings.Contains(errOut, "--adopt") || !strings.Contains(errOut, "id-demo-app") {
		t.Fatalf("apply without --adopt: exit %d, stderr:\n%s", code, errOut)
	}
	if e.writes() != before {
		t.Fatalf("a refused apply wrote to ARM: %v", e.srv.Stats().Requests)
	}
	e.mustRun(0, "apply", "-f", e.dir, "--yes", "--adopt")
	e.mustRun(0, "diff", "-f", e.dir)
}

func TestReplaceRefusedWithoutFlag(t *testing.T) {
	e := newEnv(t, nil)
	e.mustRun(0, "apply", "-f", e.dir, "--yes")
	// location is create-only for storage accounts.
	e.edit("storage.yaml", "location: westeurope", "location: northeurope")
	out := e.mustRun(1, "diff", "-f", e.dir)
	if !strings.Contains(out, "-/+") {
		t.Fatalf("a create-only change must plan a replace:\n%s", out)
	}
	before := e.writes()
	_, errOut, code := e.run("apply", "-f", e.dir, "--yes")
	if code == 0 || !strings.Contains(errOut, "--allow-replace") {
		t.Fatalf("apply of a replace without --allow-replace: exit %d\n%s", code, errOut)
	}
	if e.writes() != before {
		t.Fatal("a refused replace wrote to ARM")
	}
	e.mustRun(0, "apply", "-f", e.dir, "--yes", "--allow-replace")
	e.mustRun(0, "diff", "-f", e.dir)
}

func TestSavedPlanAppliesExactlyAndRefusesWhenLiveMoved(t *testing.T) {
	e := newEnv(t, nil)
	plan := filepath.Join(t.TempDir(), "plan.json")
	e.mustRun(1, "diff", "-f", e.dir, "--out", plan)
	e.mustRun(0, "apply", plan)
	e.mustRun(0, "diff", "-f", e.dir)

	// A second plan, then the resource moves in Azure before it is applied.
	e.edit("identity.yaml", "tags: {app: demo, env: dev}", "tags: {app: demo, env: test}")
	e.mustRun(1, "diff", "-f", e.dir, "--out", plan)
	id := rg("rg-demo") + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-demo-app"
	if err := e.srv.Seed(id, "2023-01-31", map[string]any{"location": "westeurope", "tags": map[string]any{"app": "demo", "env": "hand-edited"}}); err != nil {
		t.Fatal(err)
	}
	before := e.writes()
	_, errOut, code := e.run("apply", plan)
	if code == 0 || !strings.Contains(errOut, "refusing to apply") || !strings.Contains(errOut, "id-demo-app") {
		t.Fatalf("stale saved plan: exit %d\n%s", code, errOut)
	}
	if e.writes() != before {
		t.Fatal("a refused saved plan wrote to ARM")
	}
}

func TestInvalidManifestWritesNothing(t *testing.T) {
	e := newEnv(t, nil)
	e.edit("storage.yaml", "type: Microsoft.Storage/storageAccounts@2023-05-01", "type: Microsoft.Storage/storageAccounts")
	_, errOut, code := e.run("apply", "-f", e.dir, "--yes")
	if code != 2 || !strings.Contains(errOut, "storage.yaml") {
		t.Fatalf("exit %d, want 2 naming the file:\n%s", code, errOut)
	}
	st := e.srv.Stats().Requests
	if n := st["GET"] + st["PUT"] + st["PATCH"] + st["DELETE"]; n != 0 {
		t.Fatalf("invalid input reached ARM: %v", st)
	}
	if _, err := os.Stat(e.state); err == nil {
		t.Fatal("invalid input created a state file")
	}
}

// Fifty resources, 10% injected 503s and jittered latency: apply converges
// through retries and the next plan is quiet.
func TestFaultyARMConverges(t *testing.T) {
	e := newEnv(t, func(o *emulator.Options) {
		o.Faults.Status = map[int]float64{503: 0.10}
		o.Latency = 5 * time.Millisecond
		o.Seed = 42
	})
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("apiVersion: azure.kubectl.io/v1alpha1\nkind: Resource\nmetadata: {name: rg-many}\nspec:\n  type: Microsoft.Resources/resourceGroups@2021-04-01\n  body: {location: westeurope}\n")
	for i := 0; i < 49; i++ {
		fmt.Fprintf(&b, "---\napiVersion: azure.kubectl.io/v1alpha1\nkind: Resource\nmetadata: {name: id-%02d}\nspec:\n  type: Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31\n  resourceGroup: rg-many\n  body: {location: westeurope, tags: {n: \"%d\"}}\n", i, i)
	}
	manifestDir(t, dir, "many.yaml", b.String())
	e.mustRun(0, "apply", "-f", dir, "--yes")
	if e.srv.Stats().Faults == 0 {
		t.Fatal("no fault was injected: the test proves nothing")
	}
	e.mustRun(0, "diff", "-f", dir)
}

func TestPruneDeletesWhatTheSetNoLongerDeclares(t *testing.T) {
	e := newEnv(t, nil)
	e.mustRun(0, "apply", "-f", e.dir, "--yes")
	if err := os.Remove(filepath.Join(e.dir, "keyvault.yaml")); err != nil {
		t.Fatal(err)
	}
	// Without --prune the vault is left alone: not ours to judge any more.
	e.mustRun(0, "diff", "-f", e.dir)
	out := e.mustRun(1, "diff", "-f", e.dir, "--prune")
	if !strings.Contains(out, "kv-demo-001") || !strings.Contains(out, "1 to delete") {
		t.Fatalf("prune plan:\n%s", out)
	}
	e.mustRun(0, "apply", "-f", e.dir, "--yes", "--prune")
	kv := rg("rg-demo") + "/providers/Microsoft.KeyVault/vaults/kv-demo-001"
	if _, code := e.live(kv, "2023-07-01"); code != 404 {
		t.Fatalf("pruned vault still in Azure (GET %d)", code)
	}
	e.mustRun(0, "diff", "-f", e.dir, "--prune")
}

// A secret from the environment is written to Azure, never shown or stored
// in clear, compared by hash afterwards, and a new value is a (sensitive) change.
func TestSecretFromEnvNeverLeaks(t *testing.T) {
	e := newEnv(t, nil)
	dir := t.TempDir()
	manifest := `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: rg-db}
spec:
  type: Microsoft.Resources/resourceGroups@2021-04-01
  body: {location: westeurope}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: mysql-demo-001}
spec:
  type: Microsoft.DBforMySQL/flexibleServers@2023-12-30
  resourceGroup: rg-db
  body:
    location: westeurope
    sku: {name: Standard_B1ms, tier: Burstable}
    properties:
      administratorLogin: dbadmin
      administratorLoginPassword: {valueFrom: {env: DB_PASSWORD}}
      version: "8.0.21"
`
	manifestDir(t, dir, "db.yaml", manifest)
	const secret = "Sup3r-Secret-Value-123"
	t.Setenv("DB_PASSWORD", secret)
	for _, args := range [][]string{{"diff", "-f", dir, "-o", "json"}, {"diff", "-f", dir}, {"apply", "-f", dir, "--yes"}} {
		out, errOut, _ := e.run(args...)
		if strings.Contains(out+errOut, secret) {
			t.Fatalf("%v printed the secret:\n%s\n%s", args, out, errOut)
		}
	}
	state, err := os.ReadFile(e.state)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(state), secret) {
		t.Fatal("the state file holds the secret in clear")
	}
	// ARM does not return the password; the plan must still be quiet.
	e.mustRun(0, "diff", "-f", dir)

	t.Setenv("DB_PASSWORD", "Another-Secret-456")
	out := e.mustRun(1, "diff", "-f", dir)
	if !strings.Contains(out, "administratorLoginPassword") || !strings.Contains(out, "(sensitive)") || strings.Contains(out, "Another-Secret-456") {
		t.Fatalf("rotated secret plan:\n%s", out)
	}
}

func TestPruneWithSelectorIsRefused(t *testing.T) {
	e := newEnv(t, nil)
	_, errOut, code := e.run("apply", "-f", e.dir, "-l", "tier=data", "--prune", "--yes")
	if code != 2 || !strings.Contains(errOut, "--prune cannot be combined with -l") {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
	if n := e.srv.Stats().Requests; n["GET"]+n["PUT"] != 0 {
		t.Fatalf("requests were sent: %v", n)
	}
}

// Two manifest sets share one state file; pruning one never touches the other.
func TestPruneIsScopedToItsSet(t *testing.T) {
	e := newEnv(t, nil)
	e.mustRun(0, "--set", "landing-zone", "apply", "-f", e.dir, "--yes")
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "id.yaml"), []byte(`apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: id-other}
spec:
  type: Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31
  resourceGroup: rg-demo
  body: {location: westeurope}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := e.mustRun(1, "--set", "other", "diff", "-f", other, "--prune")
	if strings.Contains(out, "to delete") && !strings.Contains(out, "0 to delete") {
		t.Fatalf("pruning set other would delete the landing zone:\n%s", out)
	}
	e.mustRun(0, "--set", "other", "apply", "-f", other, "--prune", "--yes")
	e.mustRun(0, "--set", "landing-zone", "diff", "-f", e.dir, "--prune")
}
