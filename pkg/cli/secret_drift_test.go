package cli_test

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// A secret Azure shows in clear (a tag) that someone changes outside the
// tool is drift: the plan names the path, hides both values, and apply
// sets it back.
func TestSecretChangedOutsideIsDrift(t *testing.T) {
	e := newEnv(t, nil)
	const secret = "Zq7SECRETzq7-VALUE"
	t.Setenv("OWNER_SECRET", secret)
	dir := manifestDir(t, filepath.Join(t.TempDir(), "sec"), "rg.yaml", `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: rg-sec}
spec:
  type: Microsoft.Resources/resourceGroups@2021-04-01
  body:
    location: westeurope
    tags: {owner: {valueFrom: {env: OWNER_SECRET}}, team: net}
`)
	e.mustRun(0, "apply", "-f", dir, "--yes")
	e.mustRun(0, "diff", "-f", dir)
	if r, err := httpWrite(http.MethodPatch, e.srv.URL()+rg("rg-sec")+"?api-version=2021-04-01", `{"tags":{"owner":"hijacked-by-hand","team":"net"}}`); err != nil || r.code >= 300 {
		t.Fatalf("PATCH: %v %d %s", err, r.code, r.body)
	}
	for _, format := range []string{"text", "json"} {
		out, errOut, code := e.run("diff", "-f", dir, "-o", format)
		if code != 1 || !strings.Contains(out, "tags.owner") {
			t.Fatalf("diff -o %s after the secret tag changed outside: exit %d, want 1 naming tags.owner:\n%s\n%s", format, code, out, errOut)
		}
		if strings.Contains(out+errOut, secret) || strings.Contains(out+errOut, "hijacked-by-hand") {
			t.Fatalf("diff -o %s shows a value at a secret path:\n%s\n%s", format, out, errOut)
		}
	}
	e.mustRun(0, "apply", "-f", dir, "--yes")
	live, _ := e.live(rg("rg-sec"), "2021-04-01")
	if got := dig(live, "tags", "owner"); got != secret {
		t.Fatalf("apply did not set the secret tag back (%v)", got != nil)
	}
	e.mustRun(0, "diff", "-f", dir)
}
