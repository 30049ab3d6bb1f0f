package cli_test

import (
	"strings"
	"testing"
)

// TestSecretRegistryIsPerRun: two commands run in one process do not share
// the values they scrub. The first run resolves a secret from the
// environment; a later run that holds the same text as a plain tag (not a
// secret there) prints it, while the first run's own output never shows
// it. With one process-wide registry the later run printed (sensitive) for
// a value it never treated as secret.
func TestSecretRegistryIsPerRun(t *testing.T) {
	e := newEnv(t, nil)
	const value = "Run-One-Only-S3cret-8a2c"
	t.Setenv("SECRETS_RUN_ONE", value)
	e.edit("storage.yaml", "    tags: {app: demo, env: dev}\n", "    tags: {app: demo, env: dev, token: {valueFrom: {env: SECRETS_RUN_ONE}}}\n")
	out, errOut, code := e.run("diff", "-f", e.dir, "-o", "json")
	if code != 1 {
		t.Fatalf("diff: exit %d\n%s\n%s", code, out, errOut)
	}
	noLeak(t, value, map[string]string{"first run": out + errOut})

	// Another run: the secret is gone from the manifests, and the resource
	// group carries the same text as a plain tag.
	e.edit("storage.yaml", "    tags: {app: demo, env: dev, token: {valueFrom: {env: SECRETS_RUN_ONE}}}\n", "    tags: {app: demo, env: dev}\n")
	e.edit("resource-group.yaml", `tags: {app: demo, env: dev, costCenter: "4711"}`, `tags: {app: demo, env: dev, costCenter: "4711", note: "`+value+`"}`)
	e.mustRun(0, "apply", "-f", e.dir, "--yes")
	got := e.mustRun(0, "get", "resourceGroups/rg-demo", "-o", "json")
	if !strings.Contains(got, `"note": "`+value+`"`) {
		t.Errorf("a later run scrubbed a plain value because an earlier run had registered it:\n%s", got)
	}
}
