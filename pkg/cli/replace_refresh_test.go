package cli_test

import (
	"strings"
	"testing"
)

// TestRefreshOnlyFlag: diff --refresh-only shows only drift under its
// header; apply --refresh-only writes nothing to Azure and records the live
// values, so the next plan is silent about that drift; it cannot be
// combined with --prune, --replace or a saved plan (issue 33 item 9).
func TestRefreshOnlyFlag(t *testing.T) {
	e := newEnv(t, nil)
	e.mustRun(0, "apply", "-f", e.dir, "--yes")
	sa := rg("rg-demo") + "/providers/Microsoft.Storage/storageAccounts/stdemo001"

	for _, args := range [][]string{
		{"diff", "-f", e.dir, "--refresh-only", "--prune"},
		{"apply", "-f", e.dir, "--refresh-only", "--replace", "storageAccounts/stdemo001", "--yes"},
	} {
		if _, errOut, code := e.run(args...); code != 2 || !strings.Contains(errOut, "--refresh-only") {
			t.Errorf("%v: exit %d, want 2\n%s", args, code, errOut)
		}
	}
	plan := e.t.TempDir() + "/plan.json"
	e.mustRun(0, "diff", "-f", e.dir, "--out", plan)
	if _, errOut, code := e.run("apply", plan, "--refresh-only"); code != 2 {
		t.Errorf("apply PLAN --refresh-only: exit %d, want 2\n%s", code, errOut)
	}

	// Drift in Azure, and a manifest edit not yet applied.
	live, _ := e.live(sa, "2023-05-01")
	live["properties"].(map[string]any)["minimumTlsVersion"] = "TLS1_0"
	if err := e.srv.Seed(sa, "2023-05-01", live); err != nil {
		t.Fatal(err)
	}
	e.edit("storage.yaml", "tags: {app: demo, env: dev}", "tags: {app: demo, env: test}")

	before := e.writes()
	out := e.mustRun(1, "diff", "-f", e.dir, "--refresh-only")
	if !strings.Contains(out, "refresh only: nothing will be written to Azure") || !strings.Contains(out, "minimumTlsVersion") || strings.Contains(out, "tags.env") {
		t.Fatalf("refresh plan should show the drift only, under its header:\n%s", out)
	}
	out = e.mustRun(0, "apply", "-f", e.dir, "--refresh-only", "--yes")
	if !strings.Contains(out, "refresh only") {
		t.Fatalf("apply --refresh-only without its header:\n%s", out)
	}
	if e.writes() != before {
		t.Fatalf("--refresh-only wrote %d times to Azure", e.writes()-before)
	}
	if live, _ := e.live(sa, "2023-05-01"); dig(live, "properties", "minimumTlsVersion") != "TLS1_0" {
		t.Fatalf("the refresh changed Azure: minimumTlsVersion %v", dig(live, "properties", "minimumTlsVersion"))
	}

	// The drift is the baseline now; the manifest edit is still planned.
	e.mustRun(0, "diff", "-f", e.dir, "--drift-only")
	out = e.mustRun(1, "diff", "-f", e.dir)
	if strings.Contains(out, "minimumTlsVersion:") || !strings.Contains(out, "tags.env") {
		t.Fatalf("plan after the refresh should hold the manifest edit only (the accepted value is listed, not changed):\n%s", out)
	}

	// Without the edit nothing is written, but Azure still holds the
	// accepted TLS1_0 where the manifest says TLS1_2: the plan must not
	// claim that Azure matches the manifests.
	e.edit("storage.yaml", "tags: {app: demo, env: test}", "tags: {app: demo, env: dev}")
	out = e.mustRun(0, "diff", "-f", e.dir)
	if strings.Contains(out, "matches the manifests") || !strings.Contains(out, "nothing to write") {
		t.Fatalf("plan after accepted drift:\n%s", out)
	}
	// It names what it accepted, in every format, until they converge.
	if !strings.Contains(out, "accepted by apply --refresh-only") || !strings.Contains(out, "stdemo001: properties.minimumTlsVersion") {
		t.Fatalf("the plan does not say which accepted value differs from the manifests:\n%s", out)
	}
	if js := e.mustRun(0, "diff", "-f", e.dir, "-o", "json"); !strings.Contains(js, `"accepted": [`) {
		t.Fatalf("the JSON plan lacks the accepted paths:\n%s", js)
	}
	if md := e.mustRun(0, "diff", "-f", e.dir, "-o", "markdown"); !strings.Contains(md, "properties.minimumTlsVersion") {
		t.Fatalf("the markdown plan lacks the accepted paths:\n%s", md)
	}
	// To restore the manifest's value later: forget the record and adopt,
	// which compares the manifest with Azure again and writes the difference.
	e.mustRun(0, "state", "rm", "storageAccounts/stdemo001", "--yes")
	out = e.mustRun(0, "apply", "-f", e.dir, "--adopt", "--yes")
	if live, _ := e.live(sa, "2023-05-01"); dig(live, "properties", "minimumTlsVersion") != "TLS1_2" {
		t.Fatalf("adopting after state rm left minimumTlsVersion %v:\n%s", dig(live, "properties", "minimumTlsVersion"), out)
	}
	if out = e.mustRun(0, "diff", "-f", e.dir); strings.Contains(out, "accepted by") {
		t.Fatalf("converged, yet the plan still lists accepted values:\n%s", out)
	}
}
