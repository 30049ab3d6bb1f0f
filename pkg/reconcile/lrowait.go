package reconcile

// A batch does not hold the state lock, nor this process's other writers,
// while it waits for Azure. The engine journals a write's intent before it
// sends it and records the outcome after the long-running operation ends;
// in between it only waits, so the lock is released for the wait and taken
// again for the next state operation. Another batch of this loop never
// settles an intent whose write is still in flight here (the store hides
// it from their repair); another run that takes the lock in the meantime
// settles it by reading, as after a crash, and the batch then records
// what Azure holds when the wait ends.

import (
	"context"
	"sync"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/apply"
	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// batchLock is a batch's hold on the state lock and on c.lockMu: held
// while any state operation of the batch runs, let go while its only
// activity is writes waiting for Azure.
type batchLock struct {
	c       *Controller
	timeout time.Duration

	mu       sync.Mutex
	unlock   func() error // nil while not held
	users    int          // state operations running
	inflight int          // writes being sent or waited for
}

// lockBatch takes c.lockMu and the state lock for a batch.
func (c *Controller) lockBatch(ctx context.Context) (*batchLock, error) {
	b := &batchLock{c: c, timeout: c.Options.LockTimeout}
	if err := b.take(ctx); err != nil {
		return nil, err
	}
	return b, nil
}

// take acquires both locks; call with b.mu held or before b is shared.
func (b *batchLock) take(ctx context.Context) error {
	b.c.lockMu.Lock()
	unlock, err := b.c.Store.Lock(ctx, b.c.Options.Holder, b.timeout)
	if err != nil {
		b.c.lockMu.Unlock()
		return err
	}
	b.unlock = unlock
	return nil
}

// let releases both locks; call with b.mu held.
func (b *batchLock) let() {
	if b.unlock == nil {
		return
	}
	_ = b.unlock()
	b.unlock = nil
	b.c.lockMu.Unlock()
}

// done ends the batch's hold.
func (b *batchLock) done() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.let()
}

// use runs a state operation with the lock held, taking it again if a
// wait let it go.
func (b *batchLock) use(ctx context.Context, f func() error) error {
	b.mu.Lock()
	if b.unlock == nil {
		if err := b.take(ctx); err != nil {
			b.mu.Unlock()
			return err
		}
	}
	b.users++
	b.mu.Unlock()
	err := f()
	b.mu.Lock()
	b.users--
	if b.users == 0 && b.inflight > 0 {
		b.let()
	}
	b.mu.Unlock()
	return err
}

// wait runs a write that follows its operation to the end: the locks are
// let go for it unless a state operation of the batch is running (that
// one lets them go when it ends).
func (b *batchLock) wait(id string, f func()) {
	b.c.mu.Lock()
	if b.c.inflight == nil {
		b.c.inflight = map[string]int{}
	}
	b.c.inflight[armid.Key(id)]++
	b.c.mu.Unlock()
	b.mu.Lock()
	b.inflight++
	if b.users == 0 {
		b.let()
	}
	b.mu.Unlock()
	f()
	b.mu.Lock()
	b.inflight--
	b.mu.Unlock()
	b.c.mu.Lock()
	if b.c.inflight[armid.Key(id)]--; b.c.inflight[armid.Key(id)] <= 0 {
		delete(b.c.inflight, armid.Key(id))
	}
	b.c.mu.Unlock()
}

// inFlight reports whether a write of id is being waited for here.
func (c *Controller) inFlight(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.inflight[armid.Key(id)] > 0
}

// waitingClient lets the batch's locks go while a write waits for Azure.
type waitingClient struct {
	apply.Client
	b *batchLock
}

// List forwards the capability delete, replace and prune require.
func (w waitingClient) List(ctx context.Context, collectionID, apiVersion string) ([]map[string]any, error) {
	return apply.ListThrough(ctx, w.Client, collectionID, apiVersion)
}

func (w waitingClient) Put(ctx context.Context, id, apiVersion string, body map[string]any, o apply.WriteOptions) (resp *apply.Response, err error) {
	w.b.wait(id, func() { resp, err = w.Client.Put(ctx, id, apiVersion, body, o) })
	return resp, err
}

func (w waitingClient) Patch(ctx context.Context, id, apiVersion string, body map[string]any, o apply.WriteOptions) (resp *apply.Response, err error) {
	w.b.wait(id, func() { resp, err = w.Client.Patch(ctx, id, apiVersion, body, o) })
	return resp, err
}

func (w waitingClient) Delete(ctx context.Context, id, apiVersion string) (resp *apply.Response, err error) {
	w.b.wait(id, func() { resp, err = w.Client.Delete(ctx, id, apiVersion) })
	return resp, err
}

// lockedStore runs every state operation of a batch under its lock, and
// hides from its repair the intents of writes this loop still waits for.
type lockedStore struct {
	state.Store
	b *batchLock
}

func (s lockedStore) Get(ctx context.Context, id string) (r *state.Record, err error) {
	err = s.b.use(ctx, func() error { r, err = s.Store.Get(ctx, id); return err })
	return r, err
}

func (s lockedStore) Put(ctx context.Context, r *state.Record) error {
	return s.b.use(ctx, func() error { return s.Store.Put(ctx, r) })
}

func (s lockedStore) Delete(ctx context.Context, id string) error {
	return s.b.use(ctx, func() error { return s.Store.Delete(ctx, id) })
}

func (s lockedStore) List(ctx context.Context) (rs []*state.Record, err error) {
	err = s.b.use(ctx, func() error { rs, err = s.Store.List(ctx); return err })
	return rs, err
}

func (s lockedStore) BeginIntent(ctx context.Context, in state.Intent) error {
	return s.b.use(ctx, func() error { return s.Store.BeginIntent(ctx, in) })
}

func (s lockedStore) CommitIntent(ctx context.Context, id string) error {
	return s.b.use(ctx, func() error { return s.Store.CommitIntent(ctx, id) })
}

func (s lockedStore) Intents(ctx context.Context) ([]state.Intent, error) {
	var all []state.Intent
	err := s.b.use(ctx, func() error {
		var err error
		all, err = s.Store.Intents(ctx)
		return err
	})
	out := all[:0:0]
	for _, in := range all {
		if !s.b.c.inFlight(in.ID) {
			out = append(out, in)
		}
	}
	return out, err
}

func (s lockedStore) SecretKey(ctx context.Context) (k []byte, err error) {
	err = s.b.use(ctx, func() error { k, err = s.Store.SecretKey(ctx); return err })
	return k, err
}

// lockedLoader is lockedStore over a store that lists records without
// their bodies; the bodies are loaded under the lock too.
type lockedLoader struct {
	lockedStore
	bl state.BodyLoader
}

func (s lockedLoader) ListHeads(ctx context.Context) (rs []*state.Record, load state.LoadBodies, err error) {
	err = s.b.use(ctx, func() error { rs, load, err = s.bl.ListHeads(ctx); return err })
	if err != nil || load == nil {
		return rs, load, err
	}
	inner := load
	return rs, func(ctx context.Context, recs []*state.Record) error {
		return s.b.use(ctx, func() error { return inner(ctx, recs) })
	}, nil
}

// store is the batch's view of the state store.
func (b *batchLock) store() state.Store {
	ls := lockedStore{Store: b.c.Store, b: b}
	if bl, ok := b.c.Store.(state.BodyLoader); ok {
		return lockedLoader{ls, bl}
	}
	return ls
}
