package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/reconcile"
)

// TestLoopNeverUndoesAnotherRunsApply: someone applies other manifests to
// the set the loop watches (another checkout, an older branch). Their
// record is newer than anything the loop saw, and the watched manifests did
// not change: that is not a manifest change for the loop to apply. Before,
// the loop read D != L as its own change and wrote its manifests back, in
// silence, even under detect.
func TestLoopNeverUndoesAnotherRunsApply(t *testing.T) {
	for _, policy := range []string{"detect", "correct"} {
		t.Run(policy, func(t *testing.T) {
			e := newLoopEnv(t)
			e.cli(0, "apply", "-f", e.dir, "--yes")
			_, log := e.loop(t.Context(), "--drift-policy", policy)
			e.waitFor("in sync after apply", 10*time.Second, log, allInSync(4))

			other := filepath.Join(t.TempDir(), "other-checkout")
			if err := os.MkdirAll(other, 0o755); err != nil {
				t.Fatal(err)
			}
			theirs := strings.Replace(loopManifests, "owner: platform", "owner: apps", 1)
			if err := os.WriteFile(filepath.Join(other, "infra.yaml"), []byte(theirs), 0o644); err != nil {
				t.Fatal(err)
			}
			e.cli(0, "apply", "-f", other, "--yes", "--lock-timeout", "10s")
			st := e.waitFor("the other run's apply is reported", 10*time.Second, log, func(st *reconcile.Status) bool {
				r := resource(st, identityID("id-a"))
				return r != nil && r.State == reconcile.StateDrifted && strings.Contains(r.Message, "another run")
			})
			if r := resource(st, identityID("id-a")); len(r.Changes) == 0 || r.Changes[0].Path != "tags.owner" {
				t.Fatalf("the report does not show the path: %+v", r.Changes)
			}
			mark := time.Now()
			e.waitFor("later sweeps", 10*time.Second, log, sweptAfter(mark))
			mark = time.Now()
			e.waitFor("later sweeps", 10*time.Second, log, sweptAfter(mark))
			if w := e.writes("loop"); w != 0 {
				t.Fatalf("the loop wrote %d times over another run's apply", w)
			}
			if got := tagOf(e.get(identityID("id-a")), "owner"); got != "apps" {
				t.Fatalf("owner = %q: the other run's apply was undone", got)
			}
			if !strings.Contains(log.String(), "another run") {
				t.Fatalf("the log does not say so:\n%s", log.String())
			}

			// A change of the watched manifests is the loop's to apply.
			e.write("infra.yaml", strings.Replace(loopManifests, "owner: platform", "owner: ops", 1))
			e.waitFor("the watched change is applied", 10*time.Second, log, func(st *reconcile.Status) bool {
				return allInSync(4)(st) && tagOf(e.get(identityID("id-a")), "owner") == "ops"
			})
		})
	}
}
