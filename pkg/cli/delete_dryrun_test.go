package cli_test

import (
	"strings"
	"testing"
)

// TestDeleteDryRun: delete --dry-run plans the deletion against Azure and
// writes nothing, exiting as diff does (1: something would be deleted);
// --dry-run=client lists what would be considered without planning.
func TestDeleteDryRun(t *testing.T) {
	e := newEnv(t, nil)
	e.mustRun(0, "apply", "-f", e.dir, "--yes")
	before := e.writes()
	out := e.mustRun(1, "delete", "storageAccounts/stdemo001", "--dry-run")
	if !strings.Contains(out, "Microsoft.Storage/storageAccounts/stdemo001") || !strings.Contains(out, "1 to delete") ||
		strings.Contains(out, "declared by the manifests") || !strings.Contains(out, "named on the command line") {
		t.Errorf("delete --dry-run:\n%s", out)
	}
	out = e.mustRun(1, "delete", "-f", e.dir, "storageAccounts/stdemo001", "--dry-run=server", "-o", "json")
	if !strings.Contains(out, `"delete"`) {
		t.Errorf("delete --dry-run=server -o json:\n%s", out)
	}
	out = e.mustRun(0, "delete", "storageAccounts/stdemo001", "--dry-run=client", "-o", "name")
	if !strings.Contains(out, "Microsoft.Storage/storageAccounts/stdemo001") {
		t.Errorf("delete --dry-run=client:\n%s", out)
	}
	if _, errOut, code := e.run("delete", "storageAccounts/stdemo001", "--dry-run=maybe"); code != 2 || !strings.Contains(errOut, "--dry-run") {
		t.Errorf("delete --dry-run=maybe: exit %d\n%s", code, errOut)
	}
	if w := e.writes(); w != before {
		t.Fatalf("delete --dry-run wrote %d times", w-before)
	}
	e.mustRun(0, "state", "show", "storageAccounts/stdemo001")
}

// A dry run of a delete the real one refuses says so: deleting the group
// would take a protected storage account along.
func TestDeleteDryRunSaysWhatTheDeleteRefuses(t *testing.T) {
	e := newEnv(t, nil)
	e.edit("storage.yaml", "  labels: {app: demo, env: dev, tier: data}\n", "  labels: {app: demo, env: dev, tier: data}\n  annotations: {azure.kubectl.io/prevent-destroy: \"true\"}\n")
	e.mustRun(0, "apply", "-f", e.dir, "--yes")
	out, errOut, code := e.run("delete", "resourceGroups/rg-demo", "--dry-run")
	if code != 1 || !strings.Contains(errOut, "the delete would be refused") || !strings.Contains(errOut, "stdemo001") || !strings.Contains(errOut, "protected") {
		t.Fatalf("delete --dry-run of a group holding a protected resource: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if _, _, code := e.run("delete", "resourceGroups/rg-demo", "--yes"); code == 0 {
		t.Fatal("the real delete went ahead")
	}
}
