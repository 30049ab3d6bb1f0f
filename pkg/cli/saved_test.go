package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/cli"
)

// `apply plan.json` works on the state and set the plan was made against,
// with no --state or --set of its own, and leaves no default state behind
// (issue 33 item 3, issue 27 item 12).
func TestSavedPlanUsesItsStateAndSet(t *testing.T) {
	e := newEnv(t, nil)
	e.mustRun(0, "apply", "-f", e.dir, "--yes", "--set", "team-a")
	e.edit("storage.yaml", "allowBlobPublicAccess: false", "allowBlobPublicAccess: true")

	work := t.TempDir()
	t.Chdir(work)
	saved := filepath.Join(work, "plan.json")
	e.mustRun(1, "diff", "-f", e.dir, "--set", "team-a", "--out", saved)

	// No --state, no --set: only what the plan says.
	run := func(args ...string) (string, string, int) {
		var out, errOut bytes.Buffer
		code := cli.Main(append([]string{"--endpoint", e.srv.URL(), "--subscription", testSub}, args...),
			genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
		return out.String(), errOut.String(), code
	}
	if out, errOut, code := run("--state", filepath.Join(work, "other.json"), "apply", saved, "--yes"); code != 2 || !strings.Contains(errOut, "was made against state") {
		t.Errorf("a different --state: exit %d, want 2 naming the plan's state\n%s%s", code, out, errOut)
	}
	if out, errOut, code := run("--set", "team-b", "apply", saved, "--yes"); code != 2 || !strings.Contains(errOut, "set team-a") {
		t.Errorf("a different --set: exit %d, want 2 naming the plan's set\n%s%s", code, out, errOut)
	}
	out, errOut, code := run("apply", saved, "--yes")
	if code != 0 {
		t.Fatalf("apply plan.json: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(work, ".kubectl-azure")); err == nil {
		t.Errorf("apply plan.json created the default state directory")
	}
	// The recorded set is still team-a: its diff is silent.
	e.mustRun(0, "diff", "-f", e.dir, "--set", "team-a")
}

// When Azure moved since the plan, the refusal names the way to make a new
// plan from the same source (the -k or -f paths, state and set).
func TestSavedPlanMismatchSuggestsTheSameSource(t *testing.T) {
	e := newEnv(t, nil)
	e.mustRun(0, "apply", "-f", e.dir, "--yes")
	e.edit("storage.yaml", "allowBlobPublicAccess: false", "allowBlobPublicAccess: true")
	saved := filepath.Join(t.TempDir(), "plan.json")
	e.mustRun(1, "diff", "-f", e.dir, "--out", saved)
	e.edit("storage.yaml", "allowBlobPublicAccess: true", "allowBlobPublicAccess: false")
	_, errOut, code := e.run("apply", saved, "--yes")
	if code == 0 {
		t.Fatal("a stale saved plan was applied")
	}
	for _, want := range []string{"\n  kubectl azure diff -f " + e.dir + " --state " + e.state + " ", " --out " + saved + "\n", "Microsoft.Storage/storageAccounts/stdemo001: "} {
		if !strings.Contains(errOut, want) {
			t.Errorf("the refusal lacks %q (the same source, the resource by name):\n%s", want, errOut)
		}
	}
}

// A plan saved by `diff --refresh-only --out` records drift; it is not a
// plan of writes. Applying it is refused up front, naming the command that
// records the drift, instead of failing as a plan that no longer matches.
func TestRefreshOnlySavedPlanIsRefusedClearly(t *testing.T) {
	e := newEnv(t, nil)
	e.mustRun(0, "apply", "-f", e.dir, "--yes")
	e.edit("storage.yaml", "allowBlobPublicAccess: false", "allowBlobPublicAccess: true")
	saved := filepath.Join(t.TempDir(), "plan.json")
	_, errOut, code := e.run("diff", "-f", e.dir, "--refresh-only", "--out", saved)
	if code != 0 && code != 1 {
		t.Fatalf("diff --refresh-only --out: exit %d\n%s", code, errOut)
	}
	before, err := os.ReadFile(e.state)
	if err != nil {
		t.Fatal(err)
	}
	_, errOut, code = e.run("apply", saved, "--yes")
	if code != 2 || !strings.Contains(errOut, "--refresh-only") || !strings.Contains(errOut, "\n  kubectl azure apply -f "+e.dir+" --state "+e.state+" ") || !strings.HasSuffix(strings.TrimSpace(errOut), " --refresh-only") {
		t.Errorf("apply of a refresh-only plan: exit %d, want 2 naming apply --refresh-only\n%s", code, errOut)
	}
	if after, _ := os.ReadFile(e.state); !bytes.Equal(before, after) {
		t.Errorf("the refused apply changed the state")
	}
}

// A reference to a path the existing identity does not have (a typo) can
// never resolve: the plan refuses it as bad input, exit 2, naming the
// place, and nothing is written (the vault's new tag is not applied).
func TestReferenceTypoToAnExistingResourceExits2(t *testing.T) {
	e := newEnv(t, nil)
	e.mustRun(0, "apply", "-f", e.dir, "--yes")
	e.edit("keyvault.yaml", "    tags: {app: demo, env: dev}\n", "    tags: {app: demo, env: dev, owner: \"${ref:id-demo-app.properties.principalld}\"}\n")
	before, err := os.ReadFile(e.state)
	if err != nil {
		t.Fatal(err)
	}
	_, errOut, code := e.run("apply", "-f", e.dir, "--yes")
	if code != 2 || !strings.Contains(errOut, "keyvault.yaml") || !strings.Contains(errOut, "principalld") {
		t.Errorf("apply with a typo in a reference: exit %d, want 2 naming the file and the path\n%s", code, errOut)
	}
	if after, _ := os.ReadFile(e.state); !bytes.Equal(before, after) {
		t.Errorf("the refused apply changed the state")
	}
}
