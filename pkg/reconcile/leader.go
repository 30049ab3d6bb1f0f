package reconcile

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// Election configures leader election on a Lease.
type Election struct {
	Client    kubernetes.Interface
	Namespace string
	Name      string
	// Identity names this replica in the Lease (unique per process).
	Identity string
	// LeaseDuration, RenewDeadline and RetryPeriod as in client-go: a
	// leader that cannot renew within RenewDeadline stops; another
	// replica takes over once LeaseDuration passed without renewal.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// ReleaseOnCancel gives the Lease up when ctx ends (a clean stop), so
	// the next replica need not wait for it to expire.
	ReleaseOnCancel bool
	// WriteMargin is the time a write needs to leave the process: no write
	// starts with less than this left before the renew deadline (default
	// a quarter of RenewDeadline, at most a second).
	WriteMargin time.Duration
}

// Election defaults. A deposed leader stops writing at its renew
// deadline, before another replica may take over at the lease's expiry.
// A killed leader is replaced within LeaseDuration plus up to two jittered
// retry periods (client-go waits RetryPeriod to 2.2×RetryPeriod between
// looks at the Lease, and times the expiry from the look that saw the
// last renewal): 10 s + 2 × 3.3 s ≈ 17 s at worst, inside the 20 s a
// failover may take. client-go's usual 15 s/10 s/2 s reach 24 s.
const (
	DefaultLeaseDuration = 10 * time.Second
	DefaultRenewDeadline = 7 * time.Second
	DefaultRetryPeriod   = 1500 * time.Millisecond
)

// RunElected runs c only while this replica holds the Lease, campaigning
// again after losing it, until ctx ends. Losing the Lease cancels the
// loop's context: no write starts after the renew deadline, and the next
// leader settles any journaled write by reading before it writes.
func (c *Controller) RunElected(ctx context.Context, e Election) error {
	if e.LeaseDuration <= 0 {
		e.LeaseDuration = DefaultLeaseDuration
	}
	if e.RenewDeadline <= 0 {
		e.RenewDeadline = DefaultRenewDeadline
	}
	if e.RetryPeriod <= 0 {
		e.RetryPeriod = DefaultRetryPeriod
	}
	if e.WriteMargin <= 0 {
		e.WriteMargin = min(time.Second, e.RenewDeadline/4)
	}
	fence := NewFence(e.RenewDeadline, e.WriteMargin)
	lock := fence.Lock(&resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Name: e.Name, Namespace: e.Namespace},
		Client:     e.Client.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: e.Identity},
	})
	c.mu.Lock()
	c.fence = fence
	c.mu.Unlock()
	c.SetLeader(false)
	for ctx.Err() == nil {
		done := make(chan struct{})
		var started atomic.Bool
		le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
			Lock: lock, ReleaseOnCancel: e.ReleaseOnCancel, Name: e.Name,
			LeaseDuration: e.LeaseDuration, RenewDeadline: e.RenewDeadline, RetryPeriod: e.RetryPeriod,
			Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: func(lctx context.Context) {
					defer close(done)
					started.Store(true)
					c.lead(lctx, fence, e)
				},
				OnStoppedLeading: func() { c.SetLeader(false) },
				OnNewLeader: func(who string) {
					if who != e.Identity {
						c.logf("standing by: %s leads", who)
					}
				},
			},
		})
		if err != nil {
			return fmt.Errorf("leader election: %w", err)
		}
		le.Run(ctx)
		if started.Load() {
			// Run returns when the Lease is lost; wait for the loop to
			// stop before campaigning again, so two loops never overlap.
			select {
			case <-done:
			case <-time.After(e.RenewDeadline):
			}
		}
		t := time.NewTimer(e.RetryPeriod)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
	return nil
}

// lead runs the loop for one term of leadership. The loop's context ends
// at the renew deadline (the fence), which client-go's leading context
// passes by up to a retry period; if the elector renews after all, the
// loop starts again.
func (c *Controller) lead(lctx context.Context, fence *Fence, e Election) {
	for {
		c.SetLeader(true)
		c.logf("leading (Lease %s/%s as %s)", e.Namespace, e.Name, e.Identity)
		ctx, stop := fence.Term(lctx)
		err := c.Run(ctx)
		stop()
		if err != nil {
			c.logf("error: %v", err)
		}
		if lctx.Err() != nil {
			return
		}
		c.SetLeader(false)
		c.logf("the Lease was not renewed before its renew deadline: stopped writing")
		if !fence.WaitHeld(lctx) {
			return
		}
	}
}

// Leader reports whether this replica leads (true without election).
func (c *Controller) Leader() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.leader == nil || *c.leader
}
