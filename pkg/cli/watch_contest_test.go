package cli

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/reconcile"
)

// TestLoopContestSurvivesARestart: a path found contested stays contested
// across a restart of the loop (a crash loop, a rolling update): the count
// and the back-off are kept with the set in the status file. Before, a new
// process counted from zero and corrected the path again.
func TestLoopContestSurvivesARestart(t *testing.T) {
	e := newLoopEnv(t)
	e.cli(0, "apply", "-f", e.dir, "--yes")
	ctx := t.Context()
	stop, log := e.loop(ctx, "--drift-policy", "correct")
	e.waitFor("in sync after apply", 10*time.Second, log, allInSync(4))

	fight, stopFight := context.WithCancel(ctx)
	defer stopFight()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for fight.Err() == nil {
			_ = e.putTag(identityID("id-c"), "env", "staging")
			time.Sleep(30 * time.Millisecond)
		}
	}()
	contested := func(st *reconcile.Status) bool {
		r := resource(st, identityID("id-c"))
		return r != nil && r.State == reconcile.StateContested
	}
	e.waitFor("the path is reported contested", 20*time.Second, log, contested)
	if code := stop(); code != 0 {
		t.Fatalf("stopping exited %d", code)
	}
	before := e.writes("loop")

	_, log = e.loop(ctx, "--drift-policy", "correct")
	mark := time.Now()
	e.waitFor("sweeps of the restarted loop", 10*time.Second, log, sweptAfter(mark))
	mark = time.Now()
	st := e.waitFor("more sweeps", 10*time.Second, log, sweptAfter(mark))
	if !contested(st) {
		t.Fatalf("after a restart the path is %+v, want still contested", resource(st, identityID("id-c")))
	}
	if w := e.writes("loop"); w != before {
		t.Fatalf("the restarted loop corrected the contested path again: %d more write(s)\n%s", w-before, log.String())
	}
	stopFight()
	wg.Wait()
}
