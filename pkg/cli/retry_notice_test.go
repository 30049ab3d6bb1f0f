package cli_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
)

// An endpoint that resets connections now and then is retried, and each
// retry says so (method, path without its query, reason, attempt, wait)
// instead of a silence that looks like a hang: in the progress view of a
// text apply, on stderr when stdout is one JSON document.
func TestRetriesAreTold(t *testing.T) {
	line := regexp.MustCompile(`retrying (GET|PUT|PATCH|DELETE|POST)( poll)? /subscriptions/\S+: connection reset \(attempt \d+, next in `)
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			e := newEnv(t, func(o *emulator.Options) {
				o.Seed = 7
				if err := emulator.ApplyFlag(o, "faults", "reset=0.2"); err != nil {
					t.Fatal(err)
				}
			})
			out, errOut, code := e.run("apply", "-f", e.dir, "--yes", "-o", format)
			if code != 0 {
				t.Fatalf("apply exited %d:\n%s\n%s", code, out, errOut)
			}
			told := out
			if format == "json" {
				var doc map[string]any
				if err := json.Unmarshal([]byte(out), &doc); err != nil {
					t.Fatalf("stdout is not one JSON document: %v\n%s", err, out)
				}
				told = errOut
			}
			if !line.MatchString(told) {
				t.Fatalf("no retry line (stats %v):\nstdout:\n%s\nstderr:\n%s", e.srv.Stats(), out, errOut)
			}
			if strings.Contains(out+errOut, "api-version=") {
				t.Fatalf("a retry line carries a query:\nstdout:\n%s\nstderr:\n%s", out, errOut)
			}
		})
	}
}
