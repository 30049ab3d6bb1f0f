package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Removing a document without --prune is not silent: the plan says which
// recorded resources are no longer declared and that --prune would delete
// them, in text, JSON and markdown (issue 33 item 4).
func TestUndeclaredRecordsAreNamed(t *testing.T) {
	e := newEnv(t, nil)
	e.mustRun(0, "apply", "-f", e.dir, "--yes")
	if err := os.Remove(filepath.Join(e.dir, "role-assignment.yaml")); err != nil {
		t.Fatal(err)
	}
	out := e.mustRun(0, "diff", "-f", e.dir)
	for _, want := range []string{"1 recorded resource is no longer declared by the manifests; `--prune` would delete:",
		"  - Microsoft.Authorization/roleAssignments/3f0c8a3e-6d4b-4f7e-9a52-1c2b7d9e0a11 in rg-demo\n", "No changes:"} {
		if !strings.Contains(out, want) {
			t.Errorf("text plan lacks %q:\n%s", want, out)
		}
	}
	var doc struct {
		Undeclared []string `json:"undeclared"`
	}
	js := e.mustRun(0, "diff", "-f", e.dir, "-o", "json")
	if err := json.Unmarshal([]byte(js), &doc); err != nil || len(doc.Undeclared) != 1 || !strings.Contains(doc.Undeclared[0], "/roleAssignments/") {
		t.Errorf("-o json undeclared = %v (%v)\n%s", doc.Undeclared, err, js)
	}
	if md := e.mustRun(0, "diff", "-f", e.dir, "-o", "markdown"); !strings.Contains(md, "`--prune` would delete") {
		t.Errorf("-o markdown lacks the note:\n%s", md)
	}
	// With --prune the plan deletes it instead, and says so as a delete.
	if out := e.mustRun(1, "diff", "-f", e.dir, "--prune"); strings.Contains(out, "no longer declared by the manifests; `--prune` would delete") {
		t.Errorf("--prune still shows the note:\n%s", out)
	}
}
