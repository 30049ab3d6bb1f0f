package cli_test

import (
	"os"
	"strings"
	"testing"
)

// --state kubernetes:ns/set (no //) and other URL-like values of an unknown
// scheme are bad input: exit 2, nothing written to Azure or to disk, and the
// message says how to write a Kubernetes state (issue 45).
func TestStateRefLooksLikeURL(t *testing.T) {
	e := newEnv(t, nil)
	t.Chdir(t.TempDir())
	for ref, want := range map[string]string{
		"kubernetes:infra/prod": "kubernetes://infra/prod",
		"s3://bucket/state":     `unknown scheme "s3"`,
	} {
		_, errOut, code := e.run("apply", "-f", e.dir, "--yes", "--state", ref)
		if code != 2 || !strings.Contains(errOut, want) {
			t.Errorf("apply --state %s: exit %d, want 2 and %q in\n%s", ref, code, want, errOut)
		}
	}
	if n := e.writes(); n != 0 {
		t.Errorf("%d writes sent to Azure", n)
	}
	if ents, _ := os.ReadDir("."); len(ents) != 0 {
		t.Errorf("files created: %v", ents)
	}
}
