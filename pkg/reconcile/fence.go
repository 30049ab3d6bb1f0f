package reconcile

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"k8s.io/client-go/tools/leaderelection/resourcelock"

	"github.com/kubectl-azure/kubectl-azure/pkg/apply"
)

// ErrNotLeading refuses a write that could reach ARM after this replica's
// renew deadline: another replica may lead by then.
var ErrNotLeading = errors.New("not writing: this replica's Lease is not renewed with enough time left to send the write (another replica may be taking over)")

// Fence guards writes with the Lease. client-go's elector only gives up
// leadership one retry period after the renew deadline passed, and it
// cancels the leading context only then; a write started in that gap would
// race the next leader. The fence learns every successful renewal from the
// lock itself and
//   - cancels the loop's context the moment the renew deadline passes
//     without a renewal (a write in flight stops; its intent stays in the
//     journal for the next leader to settle by reading), and
//   - refuses to start a write unless the Lease was renewed recently enough
//     that the write is sent (Margin) before the deadline.
type Fence struct {
	// RenewDeadline is the election's: the fence's deadline is the start
	// of the last successful renewal plus this.
	RenewDeadline time.Duration
	// Margin is the time a write needs to leave this process.
	Margin time.Duration
	clock  fenceClock

	mu      sync.Mutex
	renewed time.Time     // start of the last successful renewal; zero before the first
	timer   fenceTimer    // ends the current term at the deadline
	held    chan struct{} // closed at each renewal, for waiters
}

// NewFence returns a fence for an election with renewDeadline.
func NewFence(renewDeadline, margin time.Duration) *Fence {
	return &Fence{RenewDeadline: renewDeadline, Margin: margin, clock: realClock{}, held: make(chan struct{})}
}

// fenceClock is the fence's time: the real one, or a fake in tests, so a
// deadline is judged on the clock the test moves, not on how busy the
// machine is.
type fenceClock interface {
	Now() time.Time
	AfterFunc(d time.Duration, f func()) fenceTimer
}

// fenceTimer is the part of *time.Timer the fence uses.
type fenceTimer interface {
	Stop() bool
	Reset(d time.Duration) bool
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }
func (realClock) AfterFunc(d time.Duration, f func()) fenceTimer {
	return time.AfterFunc(d, f)
}

func (f *Fence) now() time.Time { return f.clock.Now() }

// deadline is when the Lease stops being ours unless renewed; zero when it
// never was.
func (f *Fence) deadline() time.Time {
	if f.renewed.IsZero() {
		return time.Time{}
	}
	return f.renewed.Add(f.RenewDeadline)
}

// Renewed records a successful renewal (or acquisition) that started at t.
func (f *Fence) Renewed(t time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if t.Before(f.renewed) {
		return
	}
	f.renewed = t
	if f.timer != nil {
		f.timer.Reset(f.deadline().Sub(f.now()))
	}
	close(f.held)
	f.held = make(chan struct{})
}

// Allow is nil when a write may start now.
func (f *Fence) Allow() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if d := f.deadline(); d.IsZero() || !f.now().Add(f.Margin).Before(d) {
		return ErrNotLeading
	}
	return nil
}

// Held reports whether the Lease is renewed with at least Margin left.
func (f *Fence) Held() bool { return f.Allow() == nil }

// Term returns a context derived from parent (the elector's leading
// context) that also ends when the renew deadline passes without a
// renewal. stop releases it.
func (f *Fence) Term(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	f.mu.Lock()
	left := time.Duration(0)
	if d := f.deadline(); !d.IsZero() {
		left = d.Sub(f.now())
	}
	var t fenceTimer
	t = f.clock.AfterFunc(left, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		// A renewal may have raced the timer: only a passed deadline ends
		// the term.
		if d := f.deadline(); !f.now().Before(d) {
			cancel()
		} else if f.timer == t {
			t.Reset(d.Sub(f.now()))
		}
	})
	f.timer = t
	f.mu.Unlock()
	return ctx, func() {
		f.mu.Lock()
		t.Stop()
		if f.timer == t {
			f.timer = nil
		}
		f.mu.Unlock()
		cancel()
	}
}

// WaitHeld waits until the Lease is renewed with time to write, or ctx ends.
func (f *Fence) WaitHeld(ctx context.Context) bool {
	for {
		f.mu.Lock()
		ch := f.held
		f.mu.Unlock()
		if f.Held() {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-ch:
		}
	}
}

// Lock wraps the election's lock so every successful write of the lock
// record that names this replica counts as a renewal.
func (f *Fence) Lock(l resourcelock.Interface) resourcelock.Interface {
	return fencedLock{Interface: l, f: f}
}

type fencedLock struct {
	resourcelock.Interface
	f *Fence
}

func (l fencedLock) Create(ctx context.Context, r resourcelock.LeaderElectionRecord) error {
	start := l.f.now()
	err := l.Interface.Create(ctx, r)
	l.renewed(err, r, start)
	return err
}

func (l fencedLock) Update(ctx context.Context, r resourcelock.LeaderElectionRecord) error {
	start := l.f.now()
	err := l.Interface.Update(ctx, r)
	l.renewed(err, r, start)
	return err
}

// renewed counts from when the request started, not when it answered: the
// other replicas time the Lease from its renewTime, set before the request.
func (l fencedLock) renewed(err error, r resourcelock.LeaderElectionRecord, start time.Time) {
	if err == nil && r.HolderIdentity == l.Identity() {
		l.f.Renewed(start)
	}
}

// Client wraps a write client: every write asks the fence first.
func (f *Fence) Client(c apply.Client) apply.Client { return fencedClient{Client: c, f: f} }

type fencedClient struct {
	apply.Client
	f *Fence
}

// List forwards the capability delete, replace and prune require.
func (c fencedClient) List(ctx context.Context, collectionID, apiVersion string) ([]map[string]any, error) {
	return apply.ListThrough(ctx, c.Client, collectionID, apiVersion)
}

func (c fencedClient) gate(method, id string) error {
	if err := c.f.Allow(); err != nil {
		return fmt.Errorf("%s %s: %w", method, id, err)
	}
	return nil
}

func (c fencedClient) Put(ctx context.Context, id, apiVersion string, body map[string]any, o apply.WriteOptions) (*apply.Response, error) {
	if err := c.gate("PUT", id); err != nil {
		return nil, err
	}
	return c.Client.Put(ctx, id, apiVersion, body, o)
}

func (c fencedClient) Patch(ctx context.Context, id, apiVersion string, body map[string]any, o apply.WriteOptions) (*apply.Response, error) {
	if err := c.gate("PATCH", id); err != nil {
		return nil, err
	}
	return c.Client.Patch(ctx, id, apiVersion, body, o)
}

func (c fencedClient) Delete(ctx context.Context, id, apiVersion string) (*apply.Response, error) {
	if err := c.gate("DELETE", id); err != nil {
		return nil, err
	}
	return c.Client.Delete(ctx, id, apiVersion)
}

func (c fencedClient) Post(ctx context.Context, id, apiVersion string, body map[string]any) (*apply.Response, error) {
	if err := c.gate("POST", id); err != nil {
		return nil, err
	}
	return c.Client.Post(ctx, id, apiVersion, body)
}
