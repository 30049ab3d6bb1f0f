package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
)

// TestUnservedAPIVersionIsOneProblem: an api-version the schema index lacks
// is checked with ARM's providers API while the manifests load, and one ARM
// does not serve is a single problem on spec.type with its line (exit 2,
// nothing written), not a warning followed by a contradicting error.
func TestUnservedAPIVersionIsOneProblem(t *testing.T) {
	e := newEnv(t, nil)
	doc := `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: stversions}
spec:
  type: Microsoft.Storage/storageAccounts@2099-02-01
  resourceGroup: rg-versions
  body: {location: westeurope, sku: {name: Standard_LRS}, kind: StorageV2}
`
	dir := t.TempDir()
	f := filepath.Join(dir, "st.yaml")
	if err := os.WriteFile(f, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := e.run("diff", "-f", f)
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "ARM does not serve api-version 2099-02-01") || !strings.Contains(stderr, "line 5") {
		t.Errorf("stderr does not name the unserved version with its line:\n%s", stderr)
	}
	if strings.Contains(stderr, "warning:") && strings.Contains(stderr, "2099-02-01") && strings.Count(stderr, "2099-02-01") > 1 {
		t.Errorf("the version is reported more than once:\n%s", stderr)
	}
	if _, err := os.Stat(e.state); err == nil {
		t.Errorf("state was written for invalid input")
	}
}

// TestPlanSaysWhenItWaitsForARMsBudget: a plan slowed by a small read
// bucket says so on stderr, naming the bucket, instead of going quiet.
// The resource group exists, so the plan reads each resource in it (a
// first plan reads nothing inside a resource group it found absent).
func TestPlanSaysWhenItWaitsForARMsBudget(t *testing.T) {
	e := newEnv(t, func(o *emulator.Options) {
		o.Throttle.Reads = emulator.Bucket{Size: 2, Refill: 4}
	})
	if err := e.srv.Seed(rg("rg-demo"), "2021-04-01", map[string]any{"location": "westeurope"}); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := e.run("diff", "-f", e.dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (changes)\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "waiting for ARM's read budget") || !strings.Contains(stderr, "subscription reads") {
		t.Errorf("stderr does not say the plan waited for ARM's read budget:\n%s", stderr)
	}
}

// TestPreventDestroyAloneIsRecorded: adding the annotation to a resource
// that needs no write still records the protection (apply executes a plan
// with no changes for it), so a later prune or delete is refused even
// after the document is dropped.
func TestPreventDestroyAloneIsRecorded(t *testing.T) {
	e := newEnv(t, nil)
	e.mustRun(0, "apply", "-f", e.dir, "--yes")
	writes := e.writes()
	e.edit("role-assignment.yaml", "  labels: {app: demo, tier: security}",
		"  labels: {app: demo, tier: security}\n  annotations: {azure.kubectl.io/prevent-destroy: \"true\"}")
	out := e.mustRun(0, "apply", "-f", e.dir, "--yes")
	if !strings.Contains(out, "prevent-destroy will be recorded in state") {
		t.Errorf("apply does not say the protection is recorded:\n%s", out)
	}
	if e.writes() != writes {
		t.Errorf("recording the protection wrote to Azure (%d writes)", e.writes()-writes)
	}
	if err := os.Remove(filepath.Join(e.dir, "role-assignment.yaml")); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := e.run("apply", "-f", e.dir, "--yes", "--prune")
	if code == 0 || !strings.Contains(stderr, "prevent-destroy") {
		t.Fatalf("prune of a protected resource: exit %d, want a refusal naming prevent-destroy\n%s", code, stderr)
	}
}

// TestRoleAssignmentPlanNamesRolePrincipalScope: the plan of a role
// assignment names the role (by name for a built-in one), the principal
// and the scope a reviewer must check.
func TestRoleAssignmentPlanNamesRolePrincipalScope(t *testing.T) {
	e := newEnv(t, nil)
	out, stderr, code := e.run("diff", "-f", e.dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, stderr)
	}
	i := strings.Index(out, "Microsoft.Authorization/roleAssignments/")
	if i < 0 {
		t.Fatalf("no role assignment in the plan:\n%s", out)
	}
	block := out[i:]
	for _, want := range []string{"role:", "Storage Blob Data Contributor", "principal:", "scope:", "storageAccounts/stdemo001"} {
		if !strings.Contains(block, want) {
			t.Errorf("the role assignment's plan lacks %q:\n%s", want, block)
		}
	}
}

// TestDevOverlayPlanShowsDeferredRoleAssignment: the dev overlay of
// testdata/templates renames every resource, and its role assignment, named
// by a GUID over a principal ID known only after apply, is planned with its
// role, principal and scope and every property it will write.
func TestDevOverlayPlanShowsDeferredRoleAssignment(t *testing.T) {
	e := newEnv(t, nil)
	out, stderr, code := e.run("diff", "-k", filepath.Join("..", "..", "testdata", "templates", "dev"))
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{"rg-app-dev", "id-app-dev", "(known after apply)", "review role:", "(Storage Blob Data Reader)", "review principal: ${ref:id-app.properties.principalId}", "review scope:", "+ properties.roleDefinitionId:"} {
		if !strings.Contains(out, want) {
			t.Errorf("the dev plan lacks %q:\n%s", want, out)
		}
	}
}
