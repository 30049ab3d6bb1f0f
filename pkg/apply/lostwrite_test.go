package apply

import (
	"context"
	"errors"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
)

// TestLostDeletePollKeepsTheRecord: a DELETE whose operation poll answers
// 404 (the endpoint lost it) while the resource still exists is not taken
// as done: the record stays, so nothing is forgotten that still exists.
// One whose resource really is gone is forgotten.
func TestLostDeletePollKeepsTheRecord(t *testing.T) {
	for _, gone := range []bool{false, true} {
		a := newFakeARM()
		a.seed(rg1, body())
		a.seed(idA, body())
		a.fail["DELETE "+armid.Key(idA)] = notFound("DELETE", idA)
		st := newMemStore(recordOf(rg1, body(), DefaultSet), recordOf(idA, body(), DefaultSet))
		o := DefaultOptions()
		o.Mode = plan.ModeDelete
		e := newEngine(&vanishing{fakeARM: a, id: idA, vanish: gone}, st, o)
		p := mustPlan(t, e, res(idA, body()))
		_, err := e.Execute(context.Background(), p)
		if gone {
			if err != nil || st.has(idA) {
				t.Errorf("resource gone: err %v, still recorded %v", err, st.has(idA))
			}
			continue
		}
		if err == nil || !st.has(idA) {
			t.Errorf("resource still exists: err %v, recorded %v; the record must stay", err, st.has(idA))
		}
	}
}

// vanishing removes id when its DELETE is sent, when vanish is set, and
// answers the DELETE with whatever the fake fails it with.
type vanishing struct {
	*fakeARM
	id     string
	vanish bool
}

func (v *vanishing) Delete(ctx context.Context, id, ver string, o *arm.RequestOptions) (*arm.Response, error) {
	if v.vanish && armid.Equal(id, v.id) {
		v.mu.Lock()
		delete(v.res, armid.Key(id))
		v.mu.Unlock()
	}
	return v.fakeARM.Delete(ctx, id, ver, o)
}

// slowPuts holds every PUT for a while and stops the run (first Ctrl-C)
// once `after` PUTs are in flight.
type slowPuts struct {
	*fakeARM
	after int
	stop  context.CancelFunc

	n atomic.Int32
}

func (s *slowPuts) Put(ctx context.Context, id, v string, b map[string]any, o *arm.RequestOptions) (*arm.Response, error) {
	if int(s.n.Add(1)) == s.after {
		s.stop()
	}
	select {
	case <-time.After(100 * time.Millisecond): // a long-running operation
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.fakeARM.Put(ctx, id, v, b, o)
}

// TestFirstInterruptLetsWritesInFlightFinish: after the first Ctrl-C the
// writes already sent finish and are recorded, nothing new starts, and the
// error says the run was interrupted; a second Ctrl-C abandons what is in
// flight to the journal (issue 33 item 1).
func TestFirstInterruptLetsWritesInFlightFinish(t *testing.T) {
	stop, stopNow := context.WithCancel(context.Background())
	defer stopNow()
	a := &slowPuts{fakeARM: newFakeARM(), after: 2, stop: stopNow} // A and B in flight
	a.seed(rg1, body())
	st := newMemStore(recordOf(rg1, body(), DefaultSet))
	e := newEngine(a, st, DefaultOptions())
	child := idA + "/federatedIdentityCredentials/f"
	p, err := e.Plan(context.Background(), &manifest.Set{Resources: []*manifest.Resource{
		res(rg1, body()), res(idA, body(), rg1), res(idB, body(), rg1), res(child, body(), idA)}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.ExecuteUntil(context.Background(), stop, p)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the interruption", err)
	}
	if !st.has(idA) || !st.has(idB) {
		t.Fatalf("writes in flight at the interrupt were not recorded: A %v B %v", st.has(idA), st.has(idB))
	}
	if len(st.intents) != 0 {
		t.Errorf("intents left: %v", st.intents)
	}
	if st.has(child) || len(a.Calls("PUT "+child)) > 0 {
		t.Error("a write started after the interrupt")
	}
	if r.Summary.Done != 2 || r.Summary.Skipped != 1 {
		t.Errorf("summary %+v, want 2 done and 1 skipped", r.Summary)
	}

	// A second interrupt (ctx) while a write is in flight: it is abandoned,
	// still journaled.
	ctx, abort := context.WithCancel(context.Background())
	stop2, stopNow2 := context.WithCancel(context.Background())
	a2 := &slowPuts{fakeARM: newFakeARM(), after: 1, stop: func() { stopNow2(); abort() }}
	a2.seed(rg1, body())
	st2 := newMemStore(recordOf(rg1, body(), DefaultSet))
	e2 := newEngine(a2, st2, DefaultOptions())
	p2, err := e2.Plan(context.Background(), &manifest.Set{Resources: []*manifest.Resource{res(rg1, body()), res(idA, body(), rg1)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e2.ExecuteUntil(ctx, stop2, p2); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if st2.has(idA) || len(st2.intents) != 1 {
		t.Errorf("an abandoned write must stay journaled, not recorded: recorded %v intents %v", st2.has(idA), st2.intents)
	}
}
