package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/cli"
)

// TestExistingResourceIsReadNeverManaged: a resource annotated
// azure.kubectl.io/existing feeds live values and an action to the set,
// and no plan, apply, prune or delete of the set writes, records or
// deletes it.
func TestExistingResourceIsReadNeverManaged(t *testing.T) {
	e := newEnv(t, nil)
	outside := filepath.Join(t.TempDir(), "outside")
	reading := filepath.Join(t.TempDir(), "reading")
	for dir, text := range map[string]string{outside: cli.ExistingOutsideSet, reading: cli.ExistingReadingSet} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "set.yaml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	otherState := filepath.Join(t.TempDir(), "other-state.json")
	const stID = "/subscriptions/" + testSub + "/resourceGroups/rg-shared/providers/Microsoft.Storage/storageAccounts/stshared001"

	// Before the account exists the plan is refused, naming the fix.
	_, errOut, code := e.run("diff", "-f", reading)
	if code == 0 || !strings.Contains(errOut, "does not exist in Azure") || !strings.Contains(errOut, "azure.kubectl.io/existing") {
		t.Fatalf("diff before the existing resource exists: exit %d\n%s", code, errOut)
	}
	e.mustRun(0, "apply", "-f", outside, "--yes", "--state", otherState)

	out := e.mustRun(1, "diff", "-f", reading)
	if strings.Contains(out, "stshared001") && !strings.Contains(out, "shared-key") {
		t.Fatalf("the plan names the existing account:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "storageAccounts") {
			t.Errorf("the plan shows the existing account: %q\n%s", l, out)
		}
	}
	before := e.srv.Stats().Requests
	e.mustRun(0, "apply", "-f", reading, "--yes")
	after := e.srv.Stats().Requests
	if puts := after["PUT"] - before["PUT"]; puts != 3 {
		t.Errorf("apply sent %d PUTs, want 3 (group, vault, secret; never the account)", puts)
	}
	rg, _ := e.live("/subscriptions/"+testSub+"/resourceGroups/rg-app", "2021-04-01")
	if tags, _ := rg["tags"].(map[string]any); !strings.HasPrefix(tags["blob"].(string), "https://stshared001.blob.") {
		t.Errorf("rg-app's tag from the existing account's endpoint: %v", rg["tags"])
	}
	if st := e.mustRun(0, "state", "list"); strings.Contains(st, "stshared001") {
		t.Errorf("state records the existing account:\n%s", st)
	}
	if out := e.mustRun(0, "diff", "-f", reading); strings.TrimSpace(out) != "" && !strings.Contains(out, "No changes") {
		t.Errorf("second diff not quiet:\n%s", out)
	}
	before = e.srv.Stats().Requests
	e.mustRun(0, "apply", "-f", reading, "--yes", "--prune")
	after = e.srv.Stats().Requests
	for _, m := range []string{"PUT", "PATCH", "DELETE"} {
		if n := after[m] - before[m]; n != 0 {
			t.Errorf("second apply (with --prune) sent %d %s", n, m)
		}
	}
	if n := after["POST"] - before["POST"]; n != 1 {
		t.Errorf("second apply sent %d POSTs, want 1 (listKeys, to compare the secret)", n)
	}
	// A body on an existing resource is bad input: exit 2, naming the line.
	bad := strings.Replace(cli.ExistingReadingSet, "  resourceGroup: rg-shared\n", "  resourceGroup: rg-shared\n  body: {tags: {a: b}}\n", 1)
	if err := os.WriteFile(filepath.Join(reading, "set.yaml"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := e.run("diff", "-f", reading); code != 2 || !strings.Contains(errOut, "spec.body") || !strings.Contains(errOut, "only read") {
		t.Errorf("body on an existing resource: exit %d\n%s", code, errOut)
	}
	if err := os.WriteFile(filepath.Join(reading, "set.yaml"), []byte(cli.ExistingReadingSet), 0o644); err != nil {
		t.Fatal(err)
	}
	e.mustRun(0, "delete", "-f", reading, "--yes")
	if _, code := e.live(stID, "2023-05-01"); code != 200 {
		t.Errorf("the existing account after delete -f of the reading set: HTTP %d", code)
	}
	if _, code := e.live("/subscriptions/"+testSub+"/resourceGroups/rg-app", "2021-04-01"); code != 404 {
		t.Errorf("rg-app after delete: HTTP %d", code)
	}
}
