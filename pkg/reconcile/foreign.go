package reconcile

// Another run's apply: a state record of the set changed under the loop
// while the watched manifests of that resource did not. The plan then shows
// the watched manifests differing from the record (D != L), which is what a
// manifest change looks like; writing it would silently undo the other
// apply. The loop tells the two apart by the record's serial (the store
// bumps it on every write) against the one it last saw, taken again when
// its own manifests change or it writes.

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// recordHead is what the loop knows of a record: its serial and time.
type recordHead struct {
	serial  int64
	updated time.Time
}

// recordHeads reads the serial of every record, once per sweep part:
// only the serials when the store can (the file store then reuses its
// last reading while the file is unchanged), else without the bodies.
func (c *Controller) recordHeads(ctx context.Context) (map[string]recordHead, error) {
	if sl, ok := c.Store.(state.SerialLister); ok {
		serials, err := sl.ListSerials(ctx)
		if err != nil {
			return nil, err
		}
		out := make(map[string]recordHead, len(serials))
		for k, s := range serials {
			out[k] = recordHead{s.Serial, s.Updated}
		}
		return out, nil
	}
	var recs []*state.Record
	var err error
	if bl, ok := c.Store.(state.BodyLoader); ok {
		recs, _, err = bl.ListHeads(ctx)
	} else {
		recs, err = c.Store.List(ctx)
	}
	if err != nil {
		return nil, err
	}
	out := make(map[string]recordHead, len(recs))
	for _, r := range recs {
		out[armid.Key(r.ID)] = recordHead{r.Serial, r.Updated}
	}
	return out, nil
}

// readHeads refreshes the serials the judgement of a sweep part uses.
func (c *Controller) readHeads(ctx context.Context) {
	heads, err := c.recordHeads(ctx)
	if err != nil && ctx.Err() == nil {
		c.logf("reading the state records' serials (another run's apply is told apart again next sweep): %s", oneLine(err))
	}
	c.mu.Lock()
	c.heads = heads
	c.mu.Unlock()
}

// takeRecords notes the records the loop itself just changed (a write that
// failed but recorded what it created, a journal it settled): their new
// serials are no other run's.
func (c *Controller) takeRecords(ctx context.Context, set *manifest.Set, ids []string) {
	for _, id := range ids {
		res := declared(set, armid.Key(id))
		if res == nil {
			continue
		}
		head, has, err := c.recordHeadOf(ctx, id)
		if err != nil {
			continue
		}
		c.mu.Lock()
		c.state(armid.Key(id), res.ID).tookRecord(res, head, has)
		c.mu.Unlock()
	}
}

// recordHeadOf reads one record's head (a batch, under the state lock).
func (c *Controller) recordHeadOf(ctx context.Context, id string) (recordHead, bool, error) {
	r, err := c.Store.Get(ctx, id)
	if errors.Is(err, state.ErrNotFound) || (err == nil && r == nil) {
		return recordHead{}, false, nil
	}
	if err != nil {
		return recordHead{}, false, err
	}
	return recordHead{r.Serial, r.Updated}, true, nil
}

// manifestHash fingerprints what a resource's manifest asks for.
func manifestHash(r *manifest.Resource) string {
	data, _ := json.Marshal([]any{r.ID, r.Type, r.APIVersion, r.Body, r.Annotations})
	h := sha256.Sum256(data)
	return string(h[:])
}

// userChanges reports whether the plan writes something for a reason
// other than drift: a manifest change, as far as the plan can tell.
func userChanges(pr plan.Resource) bool {
	if pr.Action != plan.ActionUpdate {
		return false
	}
	for _, ch := range pr.Changes {
		if !ch.IsDrift() {
			return true
		}
	}
	return false
}

// foreignApply reports whether pr's changes come from another run's apply
// rather than from the watched manifests: the record changed since the loop
// last took its serial, and the manifest of res did not. It takes the
// serial when the loop knows none, when the manifest changed, and when
// nothing is planned (both agree again). Call with c.mu held.
func (st *resState) foreignApply(res *manifest.Resource, pr plan.Resource, head recordHead, has bool) bool {
	if st.manifestOf != res {
		if h := manifestHash(res); h != st.manifest {
			st.manifest, st.known = h, false
		}
		st.manifestOf = res
	}
	inSync := pr.Action == plan.ActionNoOp && len(pr.Changes) == 0
	if !has || !st.known || inSync {
		st.serial, st.known = head.serial, has
		return false
	}
	return head.serial != st.serial && userChanges(pr)
}

// tookRecord notes the record the loop itself just wrote for res.
func (st *resState) tookRecord(res *manifest.Resource, head recordHead, has bool) {
	st.manifestOf, st.manifest = res, manifestHash(res)
	st.serial, st.known = head.serial, has
}

// foreignMessage says what was found and what to do about it.
func foreignMessage(head recordHead) string {
	return fmt.Sprintf("applied by another run at %s with manifests that differ from the watched ones (the record changed under this loop; the watched manifests did not): not overwritten. Change the watched manifests (this loop then applies them), or apply them by hand",
		head.updated.UTC().Format(time.RFC3339))
}

// reportForeign marks a resource as changed by another run's apply, with
// one log line and event per new finding. Call with c.mu held.
func (c *Controller) reportForeign(st *resState, id, policy string, pr plan.Resource, head recordHead, at time.Time) {
	msg := foreignMessage(head)
	fresh := st.state != StateDrifted || st.message != msg
	st.state, st.message, st.changes, st.policy, st.lastObserved = StateDrifted, msg, pr.Changes, policy, at
	if fresh {
		c.logf("another run applied %s: %s", id, msg)
		c.event(EventDriftDetected, id, msg, true)
	}
}

// foreignInSweep applies foreignApply to a sweep's observation with the
// serials read at the sweep's start; true when it reported the resource.
func (c *Controller) foreignInSweep(key string, res *manifest.Resource, pr plan.Resource, policy string, at time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.heads == nil {
		return false
	}
	head, has := c.heads[key]
	st := c.state(key, pr.ID)
	if !st.foreignApply(res, pr, head, has) {
		return false
	}
	c.reportForeign(st, pr.ID, policy, pr, head, at)
	return true
}

// batchHeads reads the records of a batch's resources under the state
// lock, so an apply that landed after the sweep is seen; nil on error.
func (c *Controller) batchHeads(ctx context.Context, sub *manifest.Set) map[string]batchHead {
	out := make(map[string]batchHead, len(sub.Resources))
	for _, r := range sub.Resources {
		h, has, err := c.recordHeadOf(ctx, r.ID)
		if err != nil {
			return nil
		}
		out[armid.Key(r.ID)] = batchHead{h, has}
	}
	return out
}

type batchHead struct {
	head recordHead
	has  bool
}
