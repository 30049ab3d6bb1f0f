package reconcile

import (
	"context"
	"errors"
	"sync"
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
	clk := newFakeClock(time.Unix(1000, 0))
	f := NewFence(10*time.Second, time.Second)
	f.clock = clk
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
		clk.set(time.Unix(1000, 0).Add(tc.after))
		if got := f.Allow() == nil; got != tc.ok {
			t.Errorf("%s after the renewal (deadline 10s, margin 1s): allowed %v, want %v", tc.after, got, tc.ok)
		}
	}
	inner.failing = true
	clk.set(time.Unix(1005, 0))
	if err := lock.Update(context.Background(), resourcelock.LeaderElectionRecord{HolderIdentity: "me"}); err == nil {
		t.Fatal("want the failing update")
	}
	clk.set(time.Unix(1009, 500))
	if f.Held() {
		t.Fatal("a failed renewal extended the Lease")
	}
}

// TestFenceTermEndsAtTheRenewDeadlineUnlessRenewed runs on a fake clock:
// on the real one, a loaded machine delayed the 80 ms renewals past the
// 150 ms deadline about one run in twenty.
func TestFenceTermEndsAtTheRenewDeadlineUnlessRenewed(t *testing.T) {
	clk := newFakeClock(time.Unix(1000, 0))
	f := NewFence(150*time.Millisecond, 10*time.Millisecond)
	f.clock = clk
	f.Renewed(clk.Now())
	ctx, stop := f.Term(context.Background())
	defer stop()
	// Renewals keep it alive past several deadlines.
	for range 4 {
		clk.advance(80 * time.Millisecond)
		f.Renewed(clk.Now())
	}
	if ctx.Err() != nil {
		t.Fatal("the term ended although the Lease was renewed in time")
	}
	clk.advance(149 * time.Millisecond)
	if ctx.Err() != nil {
		t.Fatal("the term ended 149ms after the last renewal, before the 150ms renew deadline")
	}
	clk.advance(time.Millisecond)
	if ctx.Err() == nil {
		t.Fatal("the term did not end at the renew deadline")
	}
	if f.Held() {
		t.Fatal("the fence still allows writes after the deadline")
	}
	wctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got := make(chan bool, 1)
	go func() { got <- f.WaitHeld(wctx) }()
	f.Renewed(clk.Now())
	if !<-got {
		t.Fatal("WaitHeld did not see the renewal")
	}
}

// TestFenceTermRenewalRacingTheTimer: a renewal that lands after the
// timer was due but before it ran keeps the term (the timer re-arms).
func TestFenceTermRenewalRacingTheTimer(t *testing.T) {
	clk := newFakeClock(time.Unix(1000, 0))
	f := NewFence(100*time.Millisecond, 10*time.Millisecond)
	f.clock = clk
	f.Renewed(clk.Now())
	ctx, stop := f.Term(context.Background())
	defer stop()
	clk.set(clk.Now().Add(100 * time.Millisecond)) // due, not yet run
	f.mu.Lock()
	f.renewed = clk.Now() // a renewal the timer has not heard of
	f.mu.Unlock()
	clk.advance(0)
	if ctx.Err() != nil {
		t.Fatal("a renewal racing the timer ended the term")
	}
	clk.advance(100 * time.Millisecond)
	if ctx.Err() == nil {
		t.Fatal("the re-armed timer did not end the term at the new deadline")
	}
}

// fakeClock is a clock tests move by hand; its timers run when advance
// passes their time, on the caller's goroutine.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	c     *fakeClock
	at    time.Time
	armed bool
	f     func()
}

func newFakeClock(t time.Time) *fakeClock { return &fakeClock{now: t} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) fenceTimer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.now.Add(d), armed: true, f: f}
	c.timers = append(c.timers, t)
	return t
}

// advance moves the clock by d and runs every timer due by then, in
// order, until none is (a timer may re-arm itself).
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
	for {
		c.mu.Lock()
		var due *fakeTimer
		for _, t := range c.timers {
			if t.armed && !t.at.After(c.now) && (due == nil || t.at.Before(due.at)) {
				due = t
			}
		}
		if due != nil {
			due.armed = false
		}
		c.mu.Unlock()
		if due == nil {
			return
		}
		due.f()
	}
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.armed
	t.armed = false
	return was
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.armed
	t.at, t.armed = t.c.now.Add(d), true
	return was
}
