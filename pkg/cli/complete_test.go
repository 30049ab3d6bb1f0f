package cli_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Completion goes past subcommands: recorded names for the commands that
// take TYPE/NAME, types and versions for explain, -o values, and the
// kubectl_complete-azure helper (issue 33 item 8).
func TestCompletion(t *testing.T) {
	e := newEnv(t, nil)
	e.mustRun(0, "apply", "-f", e.dir, "--yes")
	complete := func(args ...string) []string {
		out := e.mustRun(0, append([]string{"__complete"}, args...)...)
		var got []string
		for _, l := range strings.Split(out, "\n") {
			if l != "" && !strings.HasPrefix(l, ":") {
				got = append(got, strings.SplitN(l, "\t", 2)[0])
			}
		}
		return got
	}
	has := func(what string, got []string, want string) {
		t.Helper()
		for _, g := range got {
			if g == want {
				return
			}
		}
		t.Errorf("%s: %q not offered in %q", what, want, got)
	}
	for _, args := range [][]string{{"state", "show", ""}, {"state", "rm", "Microsoft.Sto"}, {"delete", "Microsoft.Storage/"}, {"get", ""}, {"apply", "--replace", "Microsoft.Sto"}} {
		has(strings.Join(args, " "), complete(args...), "Microsoft.Storage/storageAccounts/stdemo001")
	}
	if got := complete("state", "show", "Microsoft.Network/"); len(got) == 0 || strings.Contains(strings.Join(got, " "), "Microsoft.Storage") {
		t.Errorf("state show Microsoft.Network/: %q", got)
	}
	has("explain provider", complete("explain", "Microsoft.Stor"), "Microsoft.Storage/")
	has("explain type", complete("explain", "Microsoft.Storage/storageAcc"), "Microsoft.Storage/storageAccounts")
	has("explain version", complete("explain", "Microsoft.Storage/storageAccounts@2023"), "Microsoft.Storage/storageAccounts@2023-05-01")
	got := complete("diff", "-o", "")
	for _, o := range []string{"text", "json", "yaml", "markdown", "name"} {
		has("diff -o", got, o)
	}
	has("get -o", complete("get", "-o", ""), "jsonpath=")
	has("state list -o", complete("state", "list", "-o", ""), "wide")
	has("--auth", complete("diff", "--auth", ""), "client-secret")

	script := e.mustRun(0, "completion", "kubectl")
	if !strings.HasPrefix(script, "#!/usr/bin/env sh\n") || !strings.Contains(script, `exec kubectl-azure __complete "$@"`) {
		t.Errorf("completion kubectl:\n%s", script)
	}
	if _, _, code := e.run("completion", "tcsh"); code != 2 {
		t.Errorf("completion tcsh: exit %d, want 2", code)
	}
}

// Completion never writes: it opens the state read-only, so a Tab in a
// directory without state creates no state directory, and one with state
// leaves every file as it was (issue 45 item 17).
func TestCompletionNeverWrites(t *testing.T) {
	e := newEnv(t, nil)
	e.mustRun(0, "apply", "-f", e.dir, "--yes")
	snapshot := func(dir string) map[string]string {
		out := map[string]string{}
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil {
				fi, _ := d.Info()
				out[p] = fmt.Sprint(fi.Size(), fi.ModTime().UnixNano(), fi.Mode())
			}
			return nil
		})
		return out
	}
	stateDir := filepath.Dir(e.state)
	before := snapshot(stateDir)
	out := e.mustRun(0, "__complete", "state", "show", "")
	if !strings.Contains(out, "Microsoft.Storage/storageAccounts/stdemo001") {
		t.Errorf("completion offered no recorded names:\n%s", out)
	}
	e.mustRun(0, "__complete", "delete", "Microsoft.")
	if after := snapshot(stateDir); !reflect.DeepEqual(before, after) {
		t.Errorf("completion changed the state directory:\nbefore %v\nafter  %v", before, after)
	}

	missing := filepath.Join(t.TempDir(), "no-state-here", "state.json")
	e.mustRun(0, "--state", missing, "__complete", "get", "")
	e.mustRun(0, "--state", missing, "__complete", "state", "rm", "")
	if _, err := os.Stat(filepath.Dir(missing)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("completion created %s (%v)", filepath.Dir(missing), err)
	}
}
