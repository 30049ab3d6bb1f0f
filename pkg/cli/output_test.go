package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// decodeOne fails unless s is exactly one JSON document.
func decodeOne(t *testing.T, s string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	if err := dec.Decode(v); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, s)
	}
	if dec.More() {
		t.Fatalf("stdout holds more than one JSON document:\n%s", s)
	}
}

func TestApplyJSONIsOneResultDocument(t *testing.T) {
	e := newEnv(t, nil)
	out, errOut, code := e.run("apply", "-f", e.dir, "--yes", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	var doc struct {
		Plan struct {
			Subscription string `json:"subscription"`
			State        string `json:"state"`
			Set          string `json:"set"`
		} `json:"plan"`
		Results []struct{ ID, Action, Status string } `json:"results"`
		Summary struct{ Done, Failed, Skipped int }   `json:"summary"`
	}
	decodeOne(t, out, &doc)
	if len(doc.Results) == 0 || doc.Summary.Done != len(doc.Results) {
		t.Fatalf("results %+v, summary %+v", doc.Results, doc.Summary)
	}
	for _, r := range doc.Results {
		if r.ID == "" || r.Status != "done" {
			t.Errorf("result %+v", r)
		}
	}
	if doc.Plan.Subscription != testSub || doc.Plan.State != e.state || doc.Plan.Set != "default" {
		t.Errorf("plan header fields: %+v", doc.Plan)
	}
	if !strings.Contains(errOut, "done") {
		t.Errorf("progress not on stderr:\n%s", errOut)
	}
	// Nothing to do: still one document.
	out = e.mustRun(0, "apply", "-f", e.dir, "--yes", "-o", "json")
	decodeOne(t, out, &doc)
}

func TestTextPlanNamesSubscriptionAndState(t *testing.T) {
	e := newEnv(t, nil)
	out := e.mustRun(1, "diff", "-f", e.dir)
	if !strings.Contains(out, "Subscription: "+testSub) || !strings.Contains(out, "State: "+e.state+` (manifest set "default": --prune deletes only its records)`) {
		t.Errorf("no header:\n%s", out)
	}
}

func TestInvalidManifestInEveryFormat(t *testing.T) {
	e := newEnv(t, nil)
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("apiVersion: azure.kubectl.io/v1\nkind: Resource\nmetadata:\n  name: x\nspec:\n  type: Microsoft.Storage/storageAccounts@2023-05-01\n  resourceGroup: rg\n  body:\n    location: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"markdown", "json", "yaml", "text"} {
		out, errOut, code := e.run("diff", "-f", bad, "-o", f, "--annotations", "github")
		if code != 2 {
			t.Fatalf("-o %s: exit %d, want 2\n%s", f, code, errOut)
		}
		if f != "text" && !strings.Contains(out, "bad.yaml") {
			t.Errorf("-o %s: stdout does not carry the error:\n%s", f, out)
		}
		if !strings.Contains(errOut, "::error file="+bad) {
			t.Errorf("-o %s: no annotation:\n%s", f, errOut)
		}
		if f == "json" {
			var doc struct{ Error string }
			decodeOne(t, out, &doc)
		}
	}
}

func TestInvalidInputExitsTwo(t *testing.T) {
	e := newEnv(t, nil)
	notState := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notState, []byte("shopping list\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	cases := [][]string{
		{"diff", "-f", e.dir, "-o", "bogus"},
		{"state", "list", "-o", "markdown"},
		{"apply", "-f", e.dir}, // no terminal, no --yes
		{"diff", "-f", empty},
		{"apply", "-f", empty, "--yes", "--prune"},
		{"delete", "-f", empty, "--yes"},
		{"apply", "-f", e.dir, "--dry-run=maybe"},
		{"delete", "Microsoft.Storage/storageAccounts/nope", "--yes"},
	}
	for _, args := range cases {
		if _, errOut, code := e.run(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", args, code, errOut)
		}
	}
	if _, errOut, code := e.run("--state", notState, "diff", "-f", e.dir); code != 2 {
		t.Errorf("--state on a non-state file: exit %d, want 2\n%s", code, errOut)
	}
	if e.writes() != 0 {
		t.Errorf("invalid input sent %d writes", e.writes())
	}
}

func TestKubectlHabits(t *testing.T) {
	e := newEnv(t, nil)
	// --dry-run=client sends nothing; --dry-run=server plans and exits 0.
	out := e.mustRun(0, "apply", "-f", e.dir, "--dry-run=client", "-o", "name")
	if !strings.Contains(out, "Microsoft.Storage/storageAccounts/stdemo001") {
		t.Errorf("client dry run:\n%s", out)
	}
	out = e.mustRun(0, "apply", "-f", e.dir, "--dry-run")
	if !strings.Contains(out, "to create") || e.writes() != 0 {
		t.Errorf("server dry run wrote %d times:\n%s", e.writes(), out)
	}
	e.mustRun(0, "apply", "-f", e.dir, "--yes")
	// state show by TYPE/NAME and by a trailing part of it.
	out = e.mustRun(0, "state", "show", "storageAccounts/stdemo001", "-o", "json")
	if !strings.Contains(out, "/storageAccounts/stdemo001") {
		t.Errorf("state show:\n%s", out)
	}
	out = e.mustRun(0, "state", "list", "-o", "wide")
	if !strings.Contains(out, "API VERSION") {
		t.Errorf("state list -o wide:\n%s", out)
	}
	// delete TYPE/NAME from state alone, with delete's own wording.
	out, errOut, code := e.run("delete", "Microsoft.Authorization/roleAssignments/3f0c8a3e-6d4b-4f7e-9a52-1c2b7d9e0a11", "--yes")
	if code != 0 {
		t.Fatalf("delete TYPE/NAME: exit %d\n%s\n%s", code, out, errOut)
	}
	if strings.Contains(out, "Apply complete") || !strings.Contains(out, "Delete complete") {
		t.Errorf("delete wording:\n%s", out)
	}
	if _, _, code := e.run("state", "show", "roleAssignments/3f0c8a3e-6d4b-4f7e-9a52-1c2b7d9e0a11"); code != 2 {
		t.Errorf("deleted resource still recorded (exit %d)", code)
	}
}

func TestHelpPutsCommandFlagsFirst(t *testing.T) {
	e := newEnv(t, nil)
	out := e.mustRun(0, "delete", "--help")
	for _, gone := range []string{"adopt", "allow-replace", "prune", "explain", "kubeconfig"} {
		if regexp.MustCompile(`(?m)^\s+(-\w, )?--` + gone + `\b`).MatchString(out) {
			t.Errorf("delete --help lists --%s", gone)
		}
	}
	// Global flags are listed once, by `options`, not under every command.
	if !strings.Contains(out, "--allow-cascade") || strings.Contains(out, "--authority-host") || !strings.Contains(out, `Use "kubectl azure options" for the global flags`) {
		t.Errorf("delete --help: want its own flags and a pointer to options, not the global flags:\n%s", out)
	}
	if out := e.mustRun(0, "diff", "--help"); strings.Contains(out, "--out kubectl") {
		t.Errorf("flag help mangled:\n%s", out)
	}
	if out := e.mustRun(0, "options"); !strings.Contains(out, "--kubeconfig") {
		t.Errorf("options does not list the kubeconfig flags:\n%s", out)
	}
}

func TestDriftOnlyAndGet(t *testing.T) {
	e := newEnv(t, nil)
	e.mustRun(0, "apply", "-f", e.dir, "--yes")
	sa := rg("rg-demo") + "/providers/Microsoft.Storage/storageAccounts/stdemo001"

	// get reads Azure, not state.
	out := e.mustRun(0, "get", "storageAccounts/stdemo001", "-o", "json")
	var doc struct {
		Resources []struct {
			ID   string
			Body map[string]any
		}
	}
	decodeOne(t, out, &doc)
	if len(doc.Resources) != 1 || doc.Resources[0].Body["location"] != "westeurope" {
		t.Fatalf("get -o json:\n%s", out)
	}
	if out := e.mustRun(0, "get", "-f", e.dir, "storageAccounts/stdemo001", "-o", "jsonpath={.body.location}"); strings.TrimSpace(out) != "westeurope" {
		t.Errorf("get -o jsonpath = %q", out)
	}

	// A manifest edit is a change but not drift.
	e.edit("storage.yaml", "minimumTlsVersion: TLS1_2", "minimumTlsVersion: TLS1_3")
	e.mustRun(1, "diff", "-f", e.dir)
	e.mustRun(0, "diff", "-f", e.dir, "--drift-only")
	e.mustRun(0, "apply", "-f", e.dir, "--yes")

	// A change made in Azure is drift.
	live, _ := e.live(sa, "2023-05-01")
	props := live["properties"].(map[string]any)
	props["minimumTlsVersion"] = "TLS1_0"
	if err := e.srv.Seed(sa, "2023-05-01", live); err != nil {
		t.Fatal(err)
	}
	out = e.mustRun(1, "diff", "-f", e.dir, "--drift-only")
	if !strings.Contains(out, "drift") {
		t.Errorf("drift not marked:\n%s", out)
	}
}

func TestImportGroupIncludesTheGroupAndChildren(t *testing.T) {
	e := newEnv(t, nil)
	e.mustRun(0, "apply", "-f", e.dir, "--yes")
	out := e.mustRun(0, "import", "-g", "rg-demo", "--no-state")
	if !strings.Contains(out, "Microsoft.Resources/resourceGroups@") {
		t.Errorf("import -g leaves out the group itself:\n%s", out)
	}
	if strings.Contains(out, "type: Microsoft.Network/virtualNetworks/subnets@") {
		t.Errorf("subnets imported as resources without --children:\n%s", out)
	}
	out = e.mustRun(0, "import", "-g", "rg-demo", "--no-state", "--children")
	if !strings.Contains(out, "type: Microsoft.Network/virtualNetworks/subnets@") {
		t.Errorf("--children does not import subnets as resources:\n%s", out)
	}
}
