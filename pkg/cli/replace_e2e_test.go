package cli_test

import (
	"strings"
	"testing"
)

// TestReplaceFlag: --replace TYPE/NAME forces one resource's replacement,
// shown with its reason; naming it is the consent; prevent-destroy still
// refuses; a ref naming nothing is invalid input with a did-you-mean
// (issue 33 item 9).
func TestReplaceFlag(t *testing.T) {
	e := newEnv(t, nil)
	e.mustRun(0, "apply", "-f", e.dir, "--yes")

	before := e.writes()
	_, errOut, code := e.run("diff", "-f", e.dir, "--replace", "storageAccounts/stdemo01")
	if code != 2 || !strings.Contains(errOut, "did you mean Microsoft.Storage/storageAccounts/stdemo001") {
		t.Fatalf("typo in --replace: exit %d, want 2 with a did-you-mean\n%s", code, errOut)
	}

	out := e.mustRun(1, "diff", "-f", e.dir, "--replace", "storageAccounts/stdemo001")
	if !strings.Contains(out, "replacement requested with --replace") || !strings.Contains(out, "1 to replace") {
		t.Fatalf("plan does not show the requested replacement:\n%s", out)
	}
	if e.writes() != before {
		t.Fatal("diff --replace wrote to ARM")
	}

	sa := rg("rg-demo") + "/providers/Microsoft.Storage/storageAccounts/stdemo001"
	deletes := e.srv.Stats().Requests["DELETE"]
	e.mustRun(0, "apply", "-f", e.dir, "--yes", "--replace", sa)
	if got := e.srv.Stats().Requests["DELETE"]; got != deletes+1 {
		t.Fatalf("apply --replace sent %d DELETEs, want 1", got-deletes)
	}
	if _, code := e.live(sa, "2023-05-01"); code != 200 {
		t.Fatalf("replaced account not created again (GET %d)", code)
	}
	e.mustRun(0, "diff", "-f", e.dir)

	// A saved plan keeps the replacement; apply PLAN takes no new --replace.
	saved := t.TempDir() + "/plan.json"
	e.mustRun(1, "diff", "-f", e.dir, "--replace", "stdemo001", "--out", saved)
	if _, errOut, code := e.run("apply", saved, "--replace", "stdemo001"); code != 2 {
		t.Fatalf("apply PLAN --replace: exit %d, want 2\n%s", code, errOut)
	}
	deletes = e.srv.Stats().Requests["DELETE"]
	e.mustRun(0, "apply", saved)
	if got := e.srv.Stats().Requests["DELETE"]; got != deletes+1 {
		t.Fatalf("apply of a plan saved with --replace sent %d DELETEs, want 1", got-deletes)
	}
	if _, errOut, code := e.run("apply", "-f", e.dir, "--watch", "--replace", "stdemo001"); code != 2 {
		t.Fatalf("apply --watch --replace: exit %d, want 2\n%s", code, errOut)
	}

	// prevent-destroy still refuses, before any write.
	e.edit("storage.yaml", "  name: stdemo001\n", "  name: stdemo001\n  annotations: {azure.kubectl.io/prevent-destroy: \"true\"}\n")
	before = e.writes()
	_, errOut, code = e.run("apply", "-f", e.dir, "--yes", "--replace", "storageAccounts/stdemo001")
	if code == 0 || !strings.Contains(errOut, "prevent-destroy") || e.writes() != before {
		t.Fatalf("--replace of a protected resource: exit %d, %d writes\n%s", code, e.writes()-before, errOut)
	}
}
