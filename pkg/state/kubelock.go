package state

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// The run lock of the Kubernetes backend is a coordination.k8s.io/v1 Lease
// named azstate-SET-lock, read and written as a leader election record
// through client-go's resourcelock.LeaseLock. The holder renews it every
// LeaseDuration/3; a waiter takes it over once it is expired, judged two
// ways so neither clock skew nor a long-dead holder stalls it:
//   - the waiter saw the same record for a whole lease duration on its own
//     clock (skew-proof, like client-go's leader election), or
//   - renewTime is older than the duration plus leaseSkew on the waiter's
//     clock (a holder that died long before the waiter started).
// Every change goes through resourceVersion, so two waiters cannot both win.
// client-go's LeaderElector itself is not used: it gives up a lease it
// cannot renew only through callbacks and never waits with a deadline,
// while a run needs a timeout naming the holder and writes that stop once
// the lock is lost.

// leaseSkew tolerates clocks that disagree by this much.
const leaseSkew = 5 * time.Second

func (s *kubeStore) leaseSeconds() int32 {
	sec := int32((s.opts.LeaseDuration + time.Second - 1) / time.Second)
	return max(sec, 1)
}

// leaseLock is a handle on the set's Lease; one per operation, since a
// LeaseLock remembers the Lease it last read.
func (s *kubeStore) leaseLock() *resourcelock.LeaseLock {
	return &resourcelock.LeaseLock{
		LeaseMeta: metav1.ObjectMeta{Name: s.leaseName(), Namespace: s.ns},
		Client:    s.cs.CoordinationV1(),
		Labels:    s.objectMeta("").Labels,
	}
}

func recordInfo(r *resourcelock.LeaderElectionRecord) *LockInfo {
	if r == nil || r.HolderIdentity == "" {
		return nil
	}
	return &LockInfo{Holder: r.HolderIdentity, Since: r.AcquireTime.Time, Renewed: r.RenewTime.Time,
		Duration: time.Duration(r.LeaseDurationSeconds) * time.Second}
}

func (s *kubeStore) Lock(ctx context.Context, holder string, timeout time.Duration) (func() error, error) {
	if holder == "" {
		holder = s.opts.Holder
	}
	if timeout <= 0 {
		timeout = s.opts.LockTimeout
	}
	if s.opts.ReadOnly {
		return nil, ErrReadOnly
	}
	s.mu.Lock()
	if s.identity != "" {
		s.mu.Unlock()
		return nil, errors.New("state: Lock called twice in one run (bug: unlock first)")
	}
	// The random suffix keeps two runs that present the same holder name
	// (same user, host and pid in two containers) apart.
	identity := fmt.Sprintf("%s [%s]", holder, randomHex(4))
	s.identity = identity
	s.mu.Unlock()

	if err := s.acquire(ctx, identity, timeout); err != nil {
		s.mu.Lock()
		s.identity = ""
		s.mu.Unlock()
		return nil, err
	}
	s.lost.Store(false)
	stop, done := make(chan struct{}), make(chan struct{})
	s.mu.Lock()
	s.stop, s.renewed = stop, done
	s.mu.Unlock()
	go s.renew(identity, stop, done)
	if err := s.startRun(ctx); err != nil {
		return nil, errors.Join(err, s.release(context.Background(), false))
	}

	var once sync.Once
	var uerr error
	return func() error {
		once.Do(func() { uerr = s.release(context.Background(), false) })
		return uerr
	}, nil
}

// awaitLease reads the Lease until it is free or expired, then calls take
// (rec nil: there is no Lease) until take reports done; it gives up after
// timeout with a LockedError naming the holder.
func (s *kubeStore) awaitLease(ctx context.Context, timeout time.Duration,
	take func(ll *resourcelock.LeaseLock, rec *resourcelock.LeaderElectionRecord, now time.Time) (done bool, err error)) error {
	start := time.Now()
	var seen []byte
	var seenAt time.Time
	for {
		now := time.Now()
		ll := s.leaseLock()
		rec, raw, err := ll.Get(ctx)
		if apierrors.IsNotFound(err) {
			rec, err = nil, nil
		}
		if err != nil {
			return s.explain(err, "get", "leases")
		}
		cur := recordInfo(rec)
		if cur != nil && !bytes.Equal(raw, seen) {
			seen, seenAt = raw, now
		}
		if cur == nil || s.expired(cur, seenAt, now) {
			if done, err := take(ll, rec, now); done || err != nil {
				return err
			}
			continue // someone else moved first: look again
		}
		if now.Sub(start) >= timeout {
			return &LockedError{Ref: s.String(), Holder: cur, Waited: now.Sub(start)}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the state lock held by %s: %w", cur, ctx.Err())
		case <-time.After(min(s.opts.LockPoll, timeout-now.Sub(start))):
		}
	}
}

func (s *kubeStore) acquire(ctx context.Context, identity string, timeout time.Duration) error {
	return s.awaitLease(ctx, timeout, func(ll *resourcelock.LeaseLock, rec *resourcelock.LeaderElectionRecord, now time.Time) (bool, error) {
		mine := resourcelock.LeaderElectionRecord{HolderIdentity: identity, LeaseDurationSeconds: int(s.leaseSeconds()),
			AcquireTime: metav1.NewTime(now), RenewTime: metav1.NewTime(now)}
		if rec == nil {
			err := ll.Create(ctx, mine)
			if apierrors.IsAlreadyExists(err) {
				return false, nil
			}
			if err != nil {
				return false, s.explain(err, "create", "leases")
			}
			return true, nil
		}
		mine.LeaderTransitions = rec.LeaderTransitions + 1
		err := ll.Update(ctx, mine)
		if apierrors.IsConflict(err) {
			s.conflicts.Add(1)
			return false, nil
		}
		if err != nil {
			return false, s.explain(err, "update", "leases")
		}
		return true, nil
	})
}

func (s *kubeStore) expired(cur *LockInfo, seenAt, now time.Time) bool {
	d := cur.Duration
	if d <= 0 {
		d = time.Duration(s.leaseSeconds()) * time.Second
	}
	if now.Sub(seenAt) > d {
		return true
	}
	return !cur.Renewed.IsZero() && now.Sub(cur.Renewed) > d+leaseSkew
}

// renew keeps the Lease fresh until stop closes. If the Lease is found in
// someone else's hands, or cannot be renewed for a whole duration (a
// waiter may have taken it over by then), the lock counts as lost and every
// later write fails with ErrLockLost.
func (s *kubeStore) renew(identity string, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	period := time.Duration(s.leaseSeconds()) * time.Second / 3
	lastOK := time.Now()
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), period)
		err := s.renewOnce(ctx, identity)
		cancel()
		switch {
		case err == nil:
			lastOK = time.Now()
		case errors.Is(err, ErrLockLost) || time.Since(lastOK) > time.Duration(s.leaseSeconds())*time.Second:
			s.lost.Store(true)
			return
		}
	}
}

func (s *kubeStore) renewOnce(ctx context.Context, identity string) error {
	for range 3 {
		ll := s.leaseLock()
		rec, _, err := ll.Get(ctx)
		if apierrors.IsNotFound(err) {
			return ErrLockLost
		}
		if err != nil {
			return err
		}
		if rec.HolderIdentity != identity {
			return ErrLockLost
		}
		rec.RenewTime = metav1.NewTime(time.Now())
		if err = ll.Update(ctx, *rec); !apierrors.IsConflict(err) {
			return err
		}
		s.conflicts.Add(1)
	}
	return fmt.Errorf("lease kept changing")
}

// release writes the journal's last changes, stops renewing and, if we
// still hold the Lease (or force), clears its holder so the next run need
// not wait for expiry.
func (s *kubeStore) release(ctx context.Context, force bool) error {
	ferr := s.finishRun(ctx)
	s.mu.Lock()
	identity, stop, done := s.identity, s.stop, s.renewed
	s.identity, s.stop, s.renewed = "", nil, nil
	s.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
	if identity == "" && !force {
		return ferr
	}
	_, err := s.clearLease(ctx, identity, force)
	return errors.Join(ferr, err)
}

// clearLease empties the holder of the Lease if it is identity (any holder
// with force) and returns who held it.
func (s *kubeStore) clearLease(ctx context.Context, identity string, force bool) (*LockInfo, error) {
	for range 10 {
		ll := s.leaseLock()
		rec, _, err := ll.Get(ctx)
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, s.explain(err, "get", "leases")
		}
		cur := recordInfo(rec)
		if cur == nil || (!force && cur.Holder != identity) {
			if !force && cur != nil {
				return cur, fmt.Errorf("state lock was taken over by %s while this run held it; rerun to reconcile", cur)
			}
			return cur, nil
		}
		rec.HolderIdentity, rec.LeaseDurationSeconds = "", 1
		err = ll.Update(ctx, *rec)
		if err == nil {
			return cur, nil
		}
		if !apierrors.IsConflict(err) {
			return nil, s.explain(err, "update", "leases")
		}
		s.conflicts.Add(1)
	}
	return nil, fmt.Errorf("kubernetes state %s: the Lease %s kept changing; retry", s, s.leaseName())
}

// LockHolder implements LockInspector.
func (s *kubeStore) LockHolder(ctx context.Context) (*LockInfo, error) {
	rec, _, err := s.leaseLock().Get(ctx)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, s.explain(err, "get", "leases")
	}
	return recordInfo(rec), nil
}

// ForceUnlock implements ForceUnlocker for `state unlock`.
func (s *kubeStore) ForceUnlock(ctx context.Context) (*LockInfo, error) {
	s.mu.Lock()
	mine := s.identity != ""
	s.mu.Unlock()
	if mine {
		return nil, errors.New("state: ForceUnlock while this run holds the lock (bug: call its unlock)")
	}
	return s.clearLease(ctx, "", true)
}

// waitUnlessHolder lets a write from a run that did not Lock (a one-off
// command) proceed only while no other run holds the Lease, waiting up to
// LockTimeout like the local backend does. Each write is atomic on its own
// either way; this keeps one-off writes out of the middle of an apply.
func (s *kubeStore) waitUnlessHolder(ctx context.Context) error {
	s.mu.Lock()
	mine := s.identity != ""
	s.mu.Unlock()
	if mine {
		return nil
	}
	return s.awaitLease(ctx, s.opts.LockTimeout, func(*resourcelock.LeaseLock, *resourcelock.LeaderElectionRecord, time.Time) (bool, error) {
		return true, nil
	})
}
