package importer_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/importer"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// priorSecret is a tag value an earlier apply read from valueFrom.env, so
// state holds it hashed; the emulator returns it in clear, as ARM does.
const priorSecret = "Zq7SECRETzq7-VALUE"

const priorRG = "rg-sec"

// applySecretTag applies a resource group whose owner tag comes from the
// environment, with the CLI, and returns the state file it recorded into.
func applySecretTag(t *testing.T, url string) (stateFile string, common []string) {
	t.Helper()
	dir := t.TempDir()
	stateFile = filepath.Join(dir, "state.json")
	file := filepath.Join(dir, "rg.yaml")
	doc := `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata:
  name: ` + priorRG + `
spec:
  type: Microsoft.Resources/resourceGroups@2021-04-01
  body:
    location: westeurope
    tags:
      owner: {valueFrom: {env: SEC}}
      team: platform
`
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SEC", priorSecret)
	common = []string{"--endpoint", url, "--state", stateFile, "--subscription", testSub}
	if stdout, stderr, code := runCLI(t, append([]string{"apply", "-f", file, "-y"}, common...)...); code != 0 {
		t.Fatalf("apply exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	raw, err := os.ReadFile(stateFile)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), priorSecret) {
		t.Fatalf("apply itself left the secret in clear in state")
	}
	return stateFile, common
}

func openStateFile(t *testing.T, file string) state.Store {
	t.Helper()
	st, err := state.Open(context.Background(), file, state.DefaultOptions())
	if err != nil {
		t.Fatalf("opening state: %v", err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// checkRecordHashed fails when the state record of the group holds the
// secret in clear or no longer hashes the owner tag.
func checkRecordHashed(t *testing.T, st state.Store, stateFile string) {
	t.Helper()
	rec, err := st.Get(context.Background(), "/subscriptions/"+testSub+"/resourceGroups/"+priorRG)
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]map[string]any{"LastApplied": rec.LastApplied, "Baseline": rec.Baseline} {
		tags, _ := body["tags"].(map[string]any)
		if !secret.IsHash(tags["owner"]) {
			t.Errorf("%s tags.owner is %v after the import, want it hashed as the apply recorded it", name, tags["owner"])
		}
		if tags["team"] != "platform" {
			t.Errorf("%s tags.team = %v, want platform in clear (not secret)", name, tags["team"])
		}
	}
	b, _ := json.Marshal(rec)
	if strings.Contains(string(b), priorSecret) {
		t.Errorf("the import wrote the secret in clear into the record: %s", b)
	}
	raw, err := os.ReadFile(stateFile)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), priorSecret) {
		t.Errorf("the state file holds the secret in clear after the import")
	}
}

// priorImport is an importer of the group applySecretTag applied, over
// the state that recorded it, with its warnings collected.
type priorImport struct {
	st        state.Store
	stateFile string
	c         *arm.Client
	im        *importer.Importer
	warn      *strings.Builder
}

func newPriorImport(t *testing.T) priorImport {
	t.Helper()
	srv := startEmulator(t, false)
	stateFile, _ := applySecretTag(t, srv.URL())
	c := armClient(t, srv.URL(), false)
	o := importer.DefaultOptions()
	o.IDs = []string{"/subscriptions/" + testSub + "/resourceGroups/" + priorRG}
	o.Subscription = testSub
	im := newImporter(c, o)
	warn := &strings.Builder{}
	im.Warn = warn
	return priorImport{st: openStateFile(t, stateFile), stateFile: stateFile, c: c, im: im, warn: warn}
}

// TestImportKeepsSecretsTheRecordHashed: a resource already in state whose
// record hashes a value (it came from valueFrom) is imported with the
// state known to Read: the manifest reads that value from an environment
// variable instead of printing it, the new record keeps it hashed, and the
// next plan with the variable set is empty.
func TestImportKeepsSecretsTheRecordHashed(t *testing.T) {
	p := newPriorImport(t)
	st, stateFile, c, im, warn := p.st, p.stateFile, p.c, p.im, p.warn
	im.State = st
	res, err := im.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	y := yamlOf(t, res)
	if strings.Contains(string(y), priorSecret) || strings.Contains(warn.String(), priorSecret) {
		t.Fatalf("the import printed a value state holds as a secret:\n%s\n%s", y, warn.String())
	}
	if !strings.Contains(string(y), "valueFrom") || !strings.Contains(string(y), "team: platform") {
		t.Errorf("the manifest should read tags.owner from valueFrom and keep tags.team:\n%s", y)
	}
	vars := res.SecretVariables()
	if len(vars) != 1 || vars[0].Path != "tags.owner" {
		t.Errorf("secret variables = %+v, want one for tags.owner", vars)
	}
	if err := im.Record(context.Background(), st, res, time.Second); err != nil {
		t.Fatal(err)
	}
	checkRecordHashed(t, st, stateFile)
	if strings.Contains(warn.String(), priorSecret) {
		t.Errorf("a warning holds the secret: %s", warn.String())
	}

	// The user exports the variable the manifest names: nothing to do.
	plan := planSet(t, c, st, loadYAMLEnv(t, y, importer.EnvValues(res)))
	for _, r := range plan.Resources {
		if len(r.Changes) > 0 {
			t.Errorf("plan after import changes %s: %s", r.ID, describeChanges(r.Changes))
		}
	}
}

// TestImportRecordKeepsHashesReadDidNotKnow: even when Read did not
// consult state (the manifest was produced without it), Record never
// replaces a hashed value with the clear one, and says which path the
// printed manifest holds in clear without printing it.
func TestImportRecordKeepsHashesReadDidNotKnow(t *testing.T) {
	p := newPriorImport(t)
	st, stateFile, im, warn := p.st, p.stateFile, p.im, p.warn
	res, err := im.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := im.Record(context.Background(), st, res, time.Second); err != nil {
		t.Fatal(err)
	}
	checkRecordHashed(t, st, stateFile)
	if strings.Contains(warn.String(), priorSecret) {
		t.Errorf("a warning holds the secret: %s", warn.String())
	}
	if !strings.Contains(warn.String(), "tags.owner") {
		t.Errorf("no warning names tags.owner, which the printed manifest holds in clear:\n%s", warn.String())
	}
}

// TestCLIImportKeepsSecretsTheRecordHashed is the tester's report end to
// end: apply with a tag from valueFrom.env, then import the group into the
// same state. State must keep the tag hashed.
func TestCLIImportKeepsSecretsTheRecordHashed(t *testing.T) {
	srv := startEmulator(t, false)
	stateFile, common := applySecretTag(t, srv.URL())
	stdout, stderr, code := runCLI(t, append([]string{"import", "/subscriptions/" + testSub + "/resourceGroups/" + priorRG}, common...)...)
	if code != 0 {
		t.Fatalf("import exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if strings.Contains(stdout, priorSecret) || !strings.Contains(stdout, "valueFrom") {
		t.Errorf("import printed the secret, or no valueFrom for it:\n%s", stdout)
	}
	if strings.Contains(stderr, priorSecret) {
		t.Errorf("import's messages hold the secret:\n%s", stderr)
	}
	checkRecordHashed(t, openStateFile(t, stateFile), stateFile)
	if stdout, stderr, code = runCLI(t, append([]string{"state", "show", "/subscriptions/" + testSub + "/resourceGroups/" + priorRG}, common...)...); code != 0 || strings.Contains(stdout+stderr, priorSecret) {
		t.Errorf("state show after import: exit %d, secret shown: %v\n%s%s", code, strings.Contains(stdout+stderr, priorSecret), stdout, stderr)
	}
}
