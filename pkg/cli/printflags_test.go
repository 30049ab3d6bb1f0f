package cli_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestOutputFlagPerCommand: -o is global (it may come before the command's
// name) and every command checks it against its own formats before doing
// anything, naming them when the value is not one.
func TestOutputFlagPerCommand(t *testing.T) {
	e := newEnv(t, nil)
	out, errOut, code := e.run("-o", "json", "diff", "-f", e.dir)
	var doc map[string]any
	if code != 1 || json.Unmarshal([]byte(out), &doc) != nil || doc["resources"] == nil {
		t.Fatalf("-o json before diff: exit %d, want 1 and a JSON plan\n%s\n%s", code, out, errOut)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"version", "-o", "json"}, `unknown output format "json" for kubectl azure version: use -o text`},
		{[]string{"explain", "-o", "yaml"}, `for kubectl azure explain: use -o text|json`},
		{[]string{"state", "list", "-o", "markdown"}, `for kubectl azure state list: use -o text|wide|name|json|yaml`},
		{[]string{"state", "rm", "x", "-o", "json"}, `for kubectl azure state rm: use -o text`},
		{[]string{"import", "x", "-o", "json"}, `for kubectl azure import: use -o text|yaml`},
		{[]string{"status", "--status-file", "x", "-o", "yaml"}, `for kubectl azure status: use -o text|json`},
		{[]string{"get", "-f", e.dir, "-o", "jsonpath={.id"}, `-o jsonpath: `},
	} {
		_, errOut, code := e.run(tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, want 2 and %q\n%s", tc.args, code, tc.want, errOut)
		}
	}
	if e.writes() != 0 {
		t.Errorf("bad -o sent %d writes", e.writes())
	}
}
