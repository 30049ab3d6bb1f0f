package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConsentFlags: each refusal names its flag, writes nothing, and the
// flag lets the same command through.
func TestConsentFlags(t *testing.T) {
	e := newEnv(t, nil)
	dir := t.TempDir()
	manifest := filepath.Join(dir, "rg.yaml")
	if err := os.WriteFile(manifest, []byte(`apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata:
  name: rg-theirs
spec:
  type: Microsoft.Resources/resourceGroups@2021-04-01
  body:
    location: westeurope
`), 0o644); err != nil {
		t.Fatal(err)
	}
	// Someone else's group, with something inside it.
	if err := e.srv.Seed(rg("rg-theirs"), "2021-04-01", map[string]any{"location": "westeurope"}); err != nil {
		t.Fatal(err)
	}
	id := rg("rg-theirs") + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-theirs"
	if err := e.srv.Seed(id, "2023-01-31", map[string]any{"location": "westeurope"}); err != nil {
		t.Fatal(err)
	}
	before := e.writes()
	_, errOut, code := e.run("delete", "-f", manifest, "--yes")
	if code == 0 || !strings.Contains(errOut, "--allow-delete-unmanaged") {
		t.Fatalf("unmanaged delete: exit %d\n%s", code, errOut)
	}
	if e.writes() != before {
		t.Fatalf("refused runs wrote %d times", e.writes()-before)
	}
	e.mustRun(0, "delete", "-f", manifest, "--yes", "--allow-delete-unmanaged", "--allow-cascade")
	if _, code := e.live(rg("rg-theirs"), "2021-04-01"); code != 404 {
		t.Errorf("group still there (GET %d)", code)
	}
}
