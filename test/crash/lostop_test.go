package crash

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

// TestLostOperationsAreNotForgotten: the endpoint forgets the long-running
// operations in flight (as when ARM's front end restarts), so their polls
// answer 404. A write ARM accepted must not be forgotten for that: after
// the run every resource in Azure is in state (or journalled), the next
// apply converges without --adopt, and nothing is created twice (issue 34).
func TestLostOperationsAreNotForgotten(t *testing.T) {
	o := harness.FastOptions()
	o.LRODuration = 3 * time.Second // every operation is in flight when the endpoint restarts
	a := harness.StartARM(t, o)
	tmp := t.TempDir()
	dir, stateFile := filepath.Join(tmp, "infra"), filepath.Join(tmp, "state.json")
	d := harness.DAG{Prefix: "l", Groups: 2, Subnets: 2, Identities: 2}
	d.Write(t, dir)
	fast := func(ao *arm.Options) {
		ao.Timeout, ao.PollInterval, ao.MaxPollInterval = 20*time.Second, 50*time.Millisecond, 200*time.Millisecond
	}

	ctx := context.Background()
	done := make(chan error, 1)
	go func() {
		_, err := harness.ApplyWithClient(ctx, t, a.URL, stateFile, dir, fast)
		done <- err
	}()
	// Wait until writes that start long-running operations were accepted.
	deadline := time.Now().Add(20 * time.Second)
	for {
		n := 0
		for id := range a.WritesTo() {
			if strings.Contains(id, "/virtualnetworks/") || strings.Contains(id, "/networksecuritygroups/") {
				n++
			}
		}
		if n >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no long-running write was accepted in time")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// ARM's front end forgets the operations in flight: their polls answer
	// 404 OperationNotFound while the writes still finish on schedule.
	a.Server().ForgetOperations()
	first := <-done
	t.Logf("first apply: %v", first)

	// Whatever ARM holds is in state or in the journal: nothing forgotten.
	ids, intents := harness.StateRecords(t, stateFile, state.DefaultOptions())
	for id := range a.LiveIDs() {
		if !ids[id] && !intents[id] && strings.Contains(id, "/resourcegroups/rg-l-") {
			t.Errorf("%s exists in Azure but is neither recorded nor journalled", id)
		}
	}
	// The next apply, without --adopt, converges.
	if out, err := harness.ApplyWithClient(ctx, t, a.URL, stateFile, dir, fast); err != nil {
		t.Fatalf("second apply: %v\n%s", err, out)
	}
	for id, n := range a.Creates() {
		if n > 1 {
			t.Errorf("%s was created %d times", id, n)
		}
	}
	ids, intents = harness.StateRecords(t, stateFile, state.DefaultOptions())
	for _, want := range d.IDs() {
		if !ids[strings.ToLower(want)] {
			t.Errorf("%s is not recorded after the second apply", want)
		}
	}
	if len(intents) > 0 {
		t.Errorf("intents left after the second apply: %v", intents)
	}
}
