package reconcile

import (
	"context"
	"errors"
	"testing"
	"time"

	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// fakeLock is a lock whose writes fail while failing is set.
type fakeLock struct {
	resourcelock.Interface
	failing bool
}

func (l *fakeLock) Identity() string { return "me" }
func (l *fakeLock) Update(context.Context, resourcelock.LeaderElectionRecord) error {
	if l.failing {
		return errors.New("cut off")
	}
	return nil
}

func TestFenceAllowsWritesOnlyWithTimeLeftBeforeTheRenewDeadline(t *testing.T) {
	now := time.Unix(1000, 0)
	f := NewFence(10*time.Second, time.Second)
	f.now = func() time.Time { return now }
	inner := &fakeLock{}
	lock := f.Lock(inner)
	if f.Allow() == nil {
		t.Fatal("a write was allowed before the Lease was ever renewed")
	}
	if err := lock.Update(context.Background(), resourcelock.LeaderElectionRecord{HolderIdentity: "someone-else"}); err != nil {
		t.Fatal(err)
	}
	if f.Held() {
		t.Fatal("a record naming another holder counted as our renewal")
	}
	if err := lock.Update(context.Background(), resourcelock.LeaderElectionRecord{HolderIdentity: "me"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		after time.Duration
		ok    bool
	}{{0, true}, {8 * time.Second, true}, {9 * time.Second, false}, {10 * time.Second, false}, {time.Minute, false}} {
		now = time.Unix(1000, 0).Add(tc.after)
		if got := f.Allow() == nil; got != tc.ok {
			t.Errorf("%s after the renewal (deadline 10s, margin 1s): allowed %v, want %v", tc.after, got, tc.ok)
		}
	}
	inner.failing = true
	now = time.Unix(1005, 0)
	if err := lock.Update(context.Background(), resourcelock.LeaderElectionRecord{HolderIdentity: "me"}); err == nil {
		t.Fatal("want the failing update")
	}
	now = time.Unix(1009, 500)
	if f.Held() {
		t.Fatal("a failed renewal extended the Lease")
	}
}

func TestFenceTermEndsAtTheRenewDeadlineUnlessRenewed(t *testing.T) {
	f := NewFence(150*time.Millisecond, 10*time.Millisecond)
	f.Renewed(time.Now())
	ctx, stop := f.Term(context.Background())
	defer stop()
	// Renewals keep it alive past several deadlines.
	for range 4 {
		time.Sleep(80 * time.Millisecond)
		f.Renewed(time.Now())
	}
	if ctx.Err() != nil {
		t.Fatal("the term ended although the Lease was renewed in time")
	}
	renewed := time.Now()
	<-ctx.Done()
	if waited := time.Since(renewed); waited < 140*time.Millisecond || waited > 400*time.Millisecond {
		t.Fatalf("the term ended %s after the last renewal, want about the 150ms renew deadline", waited)
	}
	wctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	go func() { time.Sleep(50 * time.Millisecond); f.Renewed(time.Now()) }()
	if !f.WaitHeld(wctx) {
		t.Fatal("WaitHeld did not see the renewal")
	}
}
