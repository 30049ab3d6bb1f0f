package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A value read from a secret and then removed from the manifest stays
// secret: the plan that removes it, the apply and every state file (the
// backup too) never hold it in clear, though Azure returns it. Before,
// the removal printed live's value and the record's baseline stored it.
func TestSecretRemovedFromTheManifestStaysSecret(t *testing.T) {
	e := newEnv(t, nil)
	dir := t.TempDir()
	const secret = "Sup3r-Secret-Tag-789"
	t.Setenv("TAG_TOKEN", secret)
	write := func(body string) {
		manifestDir(t, dir, "rg.yaml", `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: rg-secret-tag}
spec:
  type: Microsoft.Resources/resourceGroups@2021-04-01
  body:
    location: westeurope
`+body)
	}
	write("    tags: {owner: platform, token: {valueFrom: {env: TAG_TOKEN}}}\n")
	e.mustRun(1, "diff", "-f", dir)
	e.mustRun(0, "apply", "-f", dir, "--yes")
	write("    properties: {}\n")
	for _, args := range [][]string{{"diff", "-f", dir}, {"diff", "-f", dir, "-o", "json"}, {"apply", "-f", dir, "--yes"}, {"diff", "-f", dir}} {
		out, errOut, _ := e.run(args...)
		if strings.Contains(out+errOut, secret) {
			t.Fatalf("%v printed the removed secret:\n%s\n%s", args, out, errOut)
		}
	}
	files, _ := filepath.Glob(e.state + "*")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), secret) {
			t.Errorf("%s holds the secret in clear", filepath.Base(f))
		}
	}
}
