package cli_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRefreshOnlyJSON: a refresh-only plan says so to machine readers too
// (refreshOnly in the JSON plan; the header for people goes to stderr), and
// a plan of writes does not carry the field.
func TestRefreshOnlyJSON(t *testing.T) {
	e := newEnv(t, nil)
	e.mustRun(0, "apply", "-f", e.dir, "--yes")
	sa := rg("rg-demo") + "/providers/Microsoft.Storage/storageAccounts/stdemo001"
	live, _ := e.live(sa, "2023-05-01")
	live["properties"].(map[string]any)["minimumTlsVersion"] = "TLS1_0"
	if err := e.srv.Seed(sa, "2023-05-01", live); err != nil {
		t.Fatal(err)
	}

	out, errOut, code := e.run("diff", "-f", e.dir, "--refresh-only", "-o", "json")
	if code != 1 {
		t.Fatalf("diff --refresh-only -o json: exit %d, want 1\n%s", code, errOut)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, out)
	}
	if doc["refreshOnly"] != true {
		t.Errorf("refreshOnly = %v, want true", doc["refreshOnly"])
	}
	if !strings.Contains(errOut, "refresh only: nothing will be written") {
		t.Errorf("the refresh header is not on stderr:\n%s", errOut)
	}

	out, _, _ = e.run("diff", "-f", e.dir, "-o", "json")
	doc = nil
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if _, ok := doc["refreshOnly"]; ok {
		t.Errorf("a plan of writes carries refreshOnly: %v", doc["refreshOnly"])
	}
}
