package cli_test

import (
	"os/exec"
	"strings"
	"testing"
)

// KUBECTL_EXTERNAL_DIFF shows the plan with the user's diff program, as
// kubectl diff does; the exit code still says whether there are changes.
func TestExternalDiff(t *testing.T) {
	if _, err := exec.LookPath("diff"); err != nil {
		t.Skip("no diff program")
	}
	e := newEnv(t, nil)
	e.mustRun(0, "apply", "-f", e.dir, "--yes")
	e.edit("storage.yaml", "allowBlobPublicAccess: false", "allowBlobPublicAccess: true")
	t.Setenv("KUBECTL_EXTERNAL_DIFF", "diff -u -N")
	out := e.mustRun(1, "diff", "-f", e.dir)
	for _, want := range []string{"LIVE/rg-demo_Microsoft.Storage_storageAccounts_stdemo001.yaml", "MERGED/rg-demo_Microsoft.Storage_storageAccounts_stdemo001.yaml",
		"-  properties.allowBlobPublicAccess: false", "+  properties.allowBlobPublicAccess: true"} {
		if !strings.Contains(out, want) {
			t.Errorf("external diff output lacks %q:\n%s", want, out)
		}
	}
	t.Setenv("KUBECTL_EXTERNAL_DIFF", "kubectl-azure-no-such-program")
	if _, _, code := e.run("diff", "-f", e.dir); code != 3 {
		t.Errorf("a missing diff program: exit %d, want 3", code)
	}
}

// A blank KUBECTL_EXTERNAL_DIFF is no program: the plan prints as usual.
func TestExternalDiffBlankIsUnset(t *testing.T) {
	e := newEnv(t, nil)
	for _, v := range []string{"", "   ", "\t"} {
		t.Setenv("KUBECTL_EXTERNAL_DIFF", v)
		out := e.mustRun(1, "diff", "-f", e.dir)
		if !strings.Contains(out, "stdemo001") {
			t.Errorf("KUBECTL_EXTERNAL_DIFF=%q: the plan was not printed:\n%s", v, out)
		}
	}
}
