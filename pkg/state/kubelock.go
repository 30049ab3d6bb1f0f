package state

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The run lock of the Kubernetes backend is a coordination.k8s.io/v1 Lease
// named azstate-SET-lock. The holder renews it every LeaseDuration/3; a
// waiter takes it over once it is expired, judged two ways so neither clock
// skew nor a long-dead holder stalls it:
//   - the waiter saw the same resourceVersion for a whole lease duration on
//     its own clock (skew-proof, like client-go's leader election), or
//   - renewTime is older than the duration plus leaseSkew on the waiter's
//     clock (a holder that died long before the waiter started).
// Every change goes through resourceVersion, so two waiters cannot both win.

// leaseSkew tolerates clocks that disagree by this much.
const leaseSkew = 5 * time.Second

func (s *kubeStore) leaseSeconds() int32 {
	sec := int32((s.opts.LeaseDuration + time.Second - 1) / time.Second)
	return max(sec, 1)
}

func leaseInfo(l *coordinationv1.Lease) *LockInfo {
	if l == nil || l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == "" {
		return nil
	}
	li := &LockInfo{Holder: *l.Spec.HolderIdentity}
	if l.Spec.AcquireTime != nil {
		li.Since = l.Spec.AcquireTime.Time
	}
	if l.Spec.RenewTime != nil {
		li.Renewed = l.Spec.RenewTime.Time
	}
	if l.Spec.LeaseDurationSeconds != nil {
		li.Duration = time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second
	}
	return li
}

func (s *kubeStore) Lock(ctx context.Context, holder string, timeout time.Duration) (func() error, error) {
	if holder == "" {
		holder = s.opts.Holder
	}
	if timeout <= 0 {
		timeout = s.opts.LockTimeout
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

	var once sync.Once
	var uerr error
	return func() error {
		once.Do(func() { uerr = s.release(context.Background(), false) })
		return uerr
	}, nil
}

func (s *kubeStore) acquire(ctx context.Context, identity string, timeout time.Duration) error {
	leases := s.cs.CoordinationV1().Leases(s.ns)
	start := time.Now()
	deadline := start.Add(timeout)
	var seenRV string
	var seenAt time.Time
	for {
		now := time.Now()
		l, err := leases.Get(ctx, s.leaseName(), metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			_, err = leases.Create(ctx, s.newLease(identity, now), metav1.CreateOptions{})
			if err == nil {
				return nil
			}
			if !apierrors.IsAlreadyExists(err) {
				return s.explain(err, "create", "leases")
			}
			continue // another run created it first: look again
		case err != nil:
			return s.explain(err, "get", "leases")
		}
		cur := leaseInfo(l)
		if cur != nil && l.ResourceVersion != seenRV {
			seenRV, seenAt = l.ResourceVersion, now
		}
		if cur == nil || s.expired(cur, seenAt, now) {
			taken := l.DeepCopy()
			s.fillLease(taken, identity, now)
			if taken.Spec.LeaseTransitions == nil {
				taken.Spec.LeaseTransitions = new(int32)
			}
			*taken.Spec.LeaseTransitions++
			_, err = leases.Update(ctx, taken, metav1.UpdateOptions{})
			if err == nil {
				return nil
			}
			if !apierrors.IsConflict(err) {
				return s.explain(err, "update", "leases")
			}
			s.conflicts.Add(1)
			continue // someone else moved first: look again
		}
		if !now.Before(deadline) {
			return &LockedError{Ref: s.String(), Holder: cur, Waited: time.Since(start)}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the state lock held by %s: %w", cur, ctx.Err())
		case <-time.After(min(s.opts.LockPoll, time.Until(deadline))):
		}
	}
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

func (s *kubeStore) newLease(identity string, now time.Time) *coordinationv1.Lease {
	l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{
		Name: s.leaseName(), Namespace: s.ns,
		Labels: map[string]string{LabelSet: s.set, LabelManagedBy: managedByValue},
	}}
	s.fillLease(l, identity, now)
	return l
}

func (s *kubeStore) fillLease(l *coordinationv1.Lease, identity string, now time.Time) {
	sec := s.leaseSeconds()
	t := metav1.NewMicroTime(now)
	l.Spec.HolderIdentity = &identity
	l.Spec.LeaseDurationSeconds = &sec
	l.Spec.AcquireTime = &t
	l.Spec.RenewTime = &t
}

// renew keeps the Lease fresh until stop closes. If the Lease is found in
// someone else's hands, or cannot be renewed for a whole duration (a
// waiter may have taken it over by then), the lock counts as lost and every
// later write fails with ErrLockLost.
func (s *kubeStore) renew(identity string, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	leases := s.cs.CoordinationV1().Leases(s.ns)
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
		err := s.renewOnce(ctx, leases.Get, leases.Update, identity)
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

func (s *kubeStore) renewOnce(ctx context.Context,
	get func(context.Context, string, metav1.GetOptions) (*coordinationv1.Lease, error),
	update func(context.Context, *coordinationv1.Lease, metav1.UpdateOptions) (*coordinationv1.Lease, error),
	identity string) error {
	for range 3 {
		l, err := get(ctx, s.leaseName(), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return ErrLockLost
		}
		if err != nil {
			return err
		}
		if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity != identity {
			return ErrLockLost
		}
		t := metav1.NewMicroTime(time.Now())
		l.Spec.RenewTime = &t
		if _, err = update(ctx, l, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
			return err
		}
		s.conflicts.Add(1)
	}
	return fmt.Errorf("lease kept changing")
}

// release stops renewing and, if we still hold the Lease (or force), clears
// its holder so the next run need not wait for expiry.
func (s *kubeStore) release(ctx context.Context, force bool) error {
	s.mu.Lock()
	identity, stop, done := s.identity, s.stop, s.renewed
	s.identity, s.stop, s.renewed = "", nil, nil
	s.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
	if identity == "" && !force {
		return nil
	}
	_, err := s.clearLease(ctx, identity, force)
	return err
}

// clearLease empties the holder of the Lease if it is identity (any holder
// with force) and returns who held it.
func (s *kubeStore) clearLease(ctx context.Context, identity string, force bool) (*LockInfo, error) {
	leases := s.cs.CoordinationV1().Leases(s.ns)
	for range 10 {
		l, err := leases.Get(ctx, s.leaseName(), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, s.explain(err, "get", "leases")
		}
		cur := leaseInfo(l)
		if cur == nil || (!force && cur.Holder != identity) {
			if !force && cur != nil {
				return cur, fmt.Errorf("state lock was taken over by %s while this run held it; rerun to reconcile", cur)
			}
			return cur, nil
		}
		l.Spec.HolderIdentity = nil
		one := int32(1)
		l.Spec.LeaseDurationSeconds = &one
		_, err = leases.Update(ctx, l, metav1.UpdateOptions{})
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
	l, err := s.cs.CoordinationV1().Leases(s.ns).Get(ctx, s.leaseName(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, s.explain(err, "get", "leases")
	}
	return leaseInfo(l), nil
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
	leases := s.cs.CoordinationV1().Leases(s.ns)
	start := time.Now()
	var seenRV string
	var seenAt time.Time
	for {
		now := time.Now()
		l, err := leases.Get(ctx, s.leaseName(), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return s.explain(err, "get", "leases")
		}
		cur := leaseInfo(l)
		if cur != nil && l.ResourceVersion != seenRV {
			seenRV, seenAt = l.ResourceVersion, now
		}
		if cur == nil || s.expired(cur, seenAt, now) {
			return nil
		}
		if now.Sub(start) >= s.opts.LockTimeout {
			return &LockedError{Ref: s.String(), Holder: cur, Waited: now.Sub(start)}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(s.opts.LockPoll):
		}
	}
}
