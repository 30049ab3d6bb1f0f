package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An output file (--out, --status-file, --plan-file) may not name the
// state, a file beside it that shares its name, a manifest, or another
// output: exit 2 before anything is read or written.
func TestOutputPathsRefused(t *testing.T) {
	e := newEnv(t, nil)
	stateDir := filepath.Dir(e.state)
	if err := os.MkdirAll(stateDir, 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(e.dir, "storage.yaml")
	before, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	watch := func(flags ...string) []string {
		return append([]string{"apply", "-f", e.dir, "--watch", "--yes"}, flags...)
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"diff --out the state", []string{"diff", "-f", e.dir, "--out", e.state}, "state"},
		{"diff --out its journal", []string{"diff", "-f", e.dir, "--out", e.state + ".journal"}, "state"},
		{"diff --out its lock, spelt another way", []string{"diff", "-f", e.dir, "--out", filepath.Join(stateDir, "..", "state", "state.json.lock")}, "state"},
		{"diff --out a manifest", []string{"diff", "-f", e.dir, "--out", manifest}, "manifest"},
		{"--status-file a temp file of the state", watch("--status-file", e.state+".tmp-1-ab"), "state"},
		{"--plan-file a manifest", watch("--plan-file", manifest), "manifest"},
		{"controller --status-file the state", []string{"controller", "-f", e.dir, "--status-file", e.state}, "state"},
		{"controller --plan-file a manifest", []string{"controller", "-f", e.dir, "--plan-file", manifest}, "manifest"},
		{"--status-file and --plan-file the same", nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.want == "" {
				// Two spellings of one file outside everything else.
				dir := t.TempDir()
				c.args = watch("--status-file", filepath.Join(dir, "s.json"), "--plan-file", filepath.Join(dir, ".", "s.json"))
				c.want = "same file"
			}
			out, errOut, code := e.run(c.args...)
			if code != 2 {
				t.Fatalf("exit %d, want 2\n%s%s", code, out, errOut)
			}
			if !strings.Contains(errOut, c.want) {
				t.Errorf("the message does not say %q:\n%s", c.want, errOut)
			}
			var n int64
			for _, v := range e.srv.Stats().Requests {
				n += v
			}
			if n != 0 {
				t.Errorf("%d requests reached ARM", n)
			}
			if _, err := os.Stat(e.state); err == nil {
				t.Errorf("state was written")
			}
			if after, _ := os.ReadFile(manifest); string(after) != string(before) {
				t.Errorf("the manifest was overwritten")
			}
		})
	}
	// An output elsewhere is fine.
	e.mustRun(1, "diff", "-f", e.dir, "--out", filepath.Join(t.TempDir(), "plan.json"))
}
