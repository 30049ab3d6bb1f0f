package reconcile

// The workers: one batch at a time off the queue, under the state lock,
// planned again with fresh reads, written on the write budget, recorded.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// work takes one resource off the queue; false once the queue shut down.
func (c *Controller) work(ctx context.Context) bool {
	key, shutdown := c.queue.Get()
	if shutdown {
		return false
	}
	defer c.queue.Done(key)
	if ctx.Err() != nil {
		return true
	}
	retry, err := c.reconcile(ctx, key)
	switch {
	case err != nil && !c.writable():
		// The fence refused the write: the next leader handles it.
		c.queue.AddRateLimited(key)
	case err != nil && ctx.Err() == nil:
		c.mu.Lock()
		if st := c.res[key]; st != nil {
			st.state, st.message = StateError, oneLine(err)
		}
		c.mu.Unlock()
		c.logf("write failed: %s: %s (retrying with backoff)", key, oneLine(err))
		c.event(EventWriteFailed, c.idOf(key), oneLine(err), true)
		c.Metrics.writes.WithLabelValues("failed").Inc()
		c.queue.AddRateLimited(key)
	case retry:
		c.queue.AddRateLimited(key)
	default:
		c.queue.Forget(key)
	}
	c.writeStatus()
	return true
}

// reconcile plans one resource (with the resources declared inside it: a
// batch) again with fresh reads under the state lock and writes what the
// policies allow. It returns retry when the batch must wait (the state
// lock is held by another run, or a resource of the batch may not be
// written now).
func (c *Controller) reconcile(ctx context.Context, key string) (retry bool, err error) {
	c.mu.Lock()
	set := c.set
	c.mu.Unlock()
	res := declared(set, key)
	if res == nil {
		return false, nil // no longer declared
	}
	sub := subset(set, res)
	for _, r := range sub.Resources {
		defer c.tracker.Begin(armid.Key(r.ID))()
	}
	bl, err := c.lockBatch(ctx)
	if err != nil {
		var le *state.LockedError
		if errors.As(err, &le) {
			// A CLI apply holds the lock: try again later, not an error.
			c.logf("state lock held by %s: %s waits", lockHolder(le), res.ID)
			return true, nil
		}
		return false, err
	}
	defer bl.done()
	// The locks are let go while a write waits for Azure (lrowait.go).
	eng, release := c.engine(waitingClient{c.WriteARM, bl}, true, sub)
	defer release()
	eng.Store = bl.store()
	repaired, err := eng.Repair(ctx)
	if err != nil {
		return false, fmt.Errorf("settling the journal of an interrupted run: %w", err)
	}
	for _, a := range repaired {
		c.takeRecords(ctx, set, []string{a.Intent.ID})
	}
	prep, err := eng.Plan(ctx, sub)
	if err != nil {
		return false, err
	}
	writes, wait, stop := c.admit(prep.Plan, sub, set, key, c.batchHeads(ctx, sub))
	if stop || len(writes) == 0 {
		return wait, nil
	}
	if err := eng.Check(prep); err != nil {
		return false, err
	}
	if !c.takeWriteTokens(ctx, len(writes)) {
		return false, nil
	}
	result, err := eng.Execute(ctx, prep)
	if err != nil && result == nil {
		return false, err
	}
	return false, c.recordWrites(ctx, set, key, writes, result, err)
}

// declared is the resource of set with key, nil when there is none.
func declared(set *manifest.Set, key string) *manifest.Resource {
	if set == nil {
		return nil
	}
	for _, r := range set.Resources {
		if armid.Key(r.ID) == key {
			return r
		}
	}
	return nil
}

// write is one resource a batch writes, with the drift it undoes.
type write struct {
	pr    plan.Resource
	drift []plan.Change
}

// admit checks the policies again on the batch's fresh plan and returns
// the writes it allows. Execute writes every change of the plan, so a
// resource of the batch that may not be written holds the others back:
// stop is set then, and wait when the batch should be tried again.
func (c *Controller) admit(p *plan.Plan, sub, set *manifest.Set, key string, heads map[string]batchHead) (writes []write, wait, stop bool) {
	byKey := make(map[string]*manifest.Resource, len(sub.Resources))
	for _, r := range sub.Resources {
		byKey[armid.Key(r.ID)] = r
	}
	now := c.now()
	var waits []string
	for _, pr := range p.Resources {
		k := armid.Key(pr.ID)
		r := byKey[k]
		if r == nil {
			continue
		}
		policy := c.PolicyFor(r)
		if pr.Action == plan.ActionNoOp && len(pr.Changes) == 0 {
			c.inSync(k, pr.ID, policy, now)
			continue
		}
		c.mu.Lock()
		st := c.state(k, pr.ID)
		if c.inflight[k] > 0 {
			// Another batch's write of it still waits for Azure.
			c.mu.Unlock()
			if k == key {
				return nil, true, true
			}
			waits = append(waits, pr.ID)
			continue
		}
		if h, ok := heads[k]; ok && st.foreignApply(r, pr, h.head, h.has) {
			c.reportForeign(st, pr.ID, policy, pr, h.head, now)
			c.mu.Unlock()
			if k == key {
				return nil, false, true
			}
			waits = append(waits, pr.ID)
			continue
		}
		if blocked, msg := c.blocked(pr, policy, st, set, now); blocked != "" {
			st.state, st.changes, st.lastObserved = blocked, pr.Changes, now
			if msg != "" {
				st.message = msg
			}
			c.mu.Unlock()
			if k == key {
				return nil, false, true
			}
			waits = append(waits, pr.ID)
			continue
		}
		st.state, st.changes = StateCorrecting, pr.Changes
		c.mu.Unlock()
		writes = append(writes, write{pr, driftOf(pr.Changes)})
	}
	if len(waits) > 0 {
		c.mu.Lock()
		c.state(key, byKey[key].ID).message = "waits: " + strings.Join(waits, ", ") + " (declared inside it) may not be written now"
		c.mu.Unlock()
		return nil, true, true
	}
	return writes, false, false
}

// takeWriteTokens waits for n tokens of the write budget; false when ctx
// ended first.
func (c *Controller) takeWriteTokens(ctx context.Context, n int) bool {
	if err := c.writeLim.WaitN(ctx, n); err == nil {
		return true
	} else if ctx.Err() != nil {
		return false
	}
	// A batch larger than the burst goes out one token at a time.
	for range n {
		if err := c.writeLim.Wait(ctx); err != nil {
			return false
		}
	}
	return true
}

// recordWrites takes the outcome of a batch's execute: metrics and state
// per resource, retries for the resources inside it that failed; the
// error is the batch's own resource's (execErr when nothing says more).
func (c *Controller) recordWrites(ctx context.Context, set *manifest.Set, key string, writes []write, result *plan.Result, execErr error) error {
	failed := map[string]string{}
	if result != nil {
		for _, rr := range result.Results {
			if rr.Status != plan.StatusDone {
				failed[armid.Key(rr.ID)] = rr.Error
			}
		}
	}
	done := c.now()
	var mainErr error
	for _, w := range writes {
		k := armid.Key(w.pr.ID)
		msg, bad := failed[k]
		if !bad {
			c.Metrics.writes.WithLabelValues("done").Inc()
			c.written(ctx, set, w.pr, w.drift, done)
			continue
		}
		c.Metrics.writes.WithLabelValues("failed").Inc()
		c.takeRecords(ctx, set, []string{w.pr.ID})
		if msg == "" {
			msg = "not written"
		}
		if k == key {
			mainErr = errors.New(msg)
			continue
		}
		c.mu.Lock()
		st := c.state(k, w.pr.ID)
		st.state, st.message = StateError, msg
		c.mu.Unlock()
		c.queue.AddRateLimited(k)
	}
	if mainErr == nil && execErr != nil && len(failed) == 0 {
		mainErr = execErr
	}
	return mainErr
}

// written records a successful write of pr: metrics, the correction (for
// contested drift) and whether Azure kept the drifted value.
func (c *Controller) written(ctx context.Context, set *manifest.Set, pr plan.Resource, drift []plan.Change, done time.Time) {
	for _, ch := range pr.Changes {
		if ch.IsDrift() {
			c.Metrics.driftFixed.WithLabelValues(string(plan.CauseDrift), kindOf(ch)).Inc()
			continue
		}
		cause := ch.Cause
		if cause == "" {
			cause = plan.CauseUser
		}
		c.Metrics.applied.WithLabelValues(string(cause)).Inc()
	}
	kept := c.readBack(ctx, &pr, drift)
	key := armid.Key(pr.ID)
	head, has, herr := c.recordHeadOf(ctx, pr.ID)
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.state(key, pr.ID)
	st.lastObserved = done
	if res := declared(set, key); res != nil && herr == nil {
		st.tookRecord(res, head, has)
	}
	if len(drift) > 0 {
		st.corrections = append(st.corrections, correction{at: done, paths: pathsOf(drift)})
		st.total++
		for len(st.corrections) > 0 && done.Sub(st.corrections[0].at) > c.Options.ContestWindow {
			st.corrections = st.corrections[1:]
		}
		c.logf("corrected: %s: %s", pr.ID, strings.Join(pathsOf(drift), ", "))
		c.event(EventDriftCorrected, pr.ID, "wrote the manifest's values back: "+strings.Join(pathsOf(drift), ", "), false)
	}
	if len(kept) > 0 {
		st.state, st.changes, st.stuckOn = StateUnconvergeable, kept, set
		st.stuckManifest = ""
		if res := declared(set, key); res != nil {
			st.stuckManifest = manifestDigest(res, set.Secrets)
		}
		st.message = "written, but Azure still holds the drifted value at " + strings.Join(pathsOf(kept), ", ") + ": not corrected again until the manifests change (the service may refuse or override that value)"
		c.logf("unconvergeable: %s: %s", pr.ID, st.message)
		c.event(EventUnconvergeable, pr.ID, st.message, true)
		return
	}
	st.state, st.changes, st.message = StateInSync, nil, ""
}

// readBack returns the drifted changes whose path still held, right after
// the write, exactly the value the drift left: the engine reads the
// resource again as soon as the write completes and records what it read
// as the baseline, so the baseline is the narrowest look at whether Azure
// took the value (a later GET could see another writer instead).
func (c *Controller) readBack(ctx context.Context, pr *plan.Resource, drift []plan.Change) []plan.Change {
	if len(drift) == 0 {
		return nil
	}
	rec, err := c.Store.Get(ctx, pr.ID)
	if err != nil || rec == nil || rec.Baseline == nil {
		return nil
	}
	var kept []plan.Change
	for _, ch := range drift {
		if ch.Sensitive || ch.Before == nil || sameJSON(ch.Before, ch.After) {
			continue
		}
		v, ok := bodypath.Get(rec.Baseline, ch.Path)
		if ok && sameJSON(v, ch.Before) {
			kept = append(kept, ch)
		}
	}
	return kept
}

func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

// writable is false while leader election's fence refuses writes.
func (c *Controller) writable() bool {
	c.mu.Lock()
	f := c.fence
	c.mu.Unlock()
	return f == nil || f.Held()
}

func lockHolder(le *state.LockedError) string {
	if le.Holder != nil && le.Holder.Holder != "" {
		return le.Holder.Holder
	}
	return "another run"
}
