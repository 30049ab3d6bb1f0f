package reconcile

// The policies: what an observation means for a resource (in sync,
// drifted, contested, unconvergeable) and whether a batch may write it.

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// driftOf returns the changes made in Azure outside this tool.
func driftOf(cs []plan.Change) []plan.Change {
	var out []plan.Change
	for _, ch := range cs {
		if ch.IsDrift() {
			out = append(out, ch)
		}
	}
	return out
}

func pathsOf(cs []plan.Change) []string {
	out := make([]string, 0, len(cs))
	for _, ch := range cs {
		out = append(out, ch.Path)
	}
	sort.Strings(out)
	return out
}

// PolicyFor is the resource's annotation, else the set's policy.
func (c *Controller) PolicyFor(r *manifest.Resource) string {
	if r != nil {
		if p := strings.TrimSpace(r.Annotations[AnnotationDriftPolicy]); ValidatePolicy(p) == nil {
			return p
		}
	}
	return c.Options.DriftPolicy
}

func (c *Controller) state(key, id string) *resState {
	st := c.res[key]
	if st == nil {
		st = &resState{id: id, state: StateInSync}
		c.res[key] = st
	}
	return st
}

// judge decides what one observation means. pr comes from a list or GET
// of the whole set; drift in it is confirmed by one GET first.
func (c *Controller) judge(ctx context.Context, set *manifest.Set, res *manifest.Resource, pr plan.Resource, mark Mark, at time.Time, pending map[string]bool) {
	key := armid.Key(pr.ID)
	policy := c.PolicyFor(res)
	set1 := func(state, msg string, changes []plan.Change) {
		c.mu.Lock()
		st := c.state(key, pr.ID)
		st.state, st.message, st.changes, st.policy, st.lastObserved = state, msg, changes, policy, at
		c.mu.Unlock()
	}
	if msg := oneShotOnly(pr.Action); msg != "" {
		set1(StateError, msg, pr.Changes)
		return
	}
	if c.foreignInSweep(key, res, pr, policy, at) {
		return
	}
	if pr.Action == plan.ActionNoOp && len(pr.Changes) == 0 {
		c.inSync(key, pr.ID, policy, at)
		return
	}
	drift := driftOf(pr.Changes)
	if len(drift) == 0 {
		for _, d := range res.DependsOn {
			if dk := armid.Key(d); dk != key && pending[dk] {
				set1(StateCorrecting, "waits for "+d, pr.Changes)
				return
			}
		}
		set1(StateCorrecting, "applying the manifest's changes", pr.Changes)
		c.queue.Add(key)
		return
	}
	// A list item can be older than a GET (ARM's list caches); confirm.
	confirmed, err := c.confirm(ctx, set, res)
	if c.tracker.Stale(mark, key) {
		c.Metrics.discarded.Inc()
		return
	}
	if err != nil {
		set1(StateError, "confirming drift: "+oneLine(err), drift)
		return
	}
	if confirmed == nil || len(confirmed.Changes) == 0 {
		c.inSync(key, pr.ID, policy, at)
		return
	}
	swept := map[string]bool{}
	for _, p := range pathsOf(drift) {
		swept[p] = true
	}
	drift = nil
	for _, ch := range driftOf(confirmed.Changes) {
		if swept[ch.Path] {
			drift = append(drift, ch)
		}
	}
	if len(drift) == 0 {
		set1(StateCorrecting, "applying the manifest's changes", confirmed.Changes)
		c.queue.Add(key)
		return
	}
	c.drifted(key, pr.ID, policy, drift, confirmed.Changes, at)
}

// oneShotOnly says which command to run for an action only a one-shot
// command takes ("" for the others).
func oneShotOnly(a plan.Action) string {
	switch a {
	case plan.ActionAdopt:
		return "exists in Azure but not in state: adopt it once with `kubectl azure apply -f DIR --adopt` (the loop never adopts)"
	case plan.ActionReplace:
		return "a create-only property changed: replace it with `kubectl azure apply --allow-replace` (the loop never deletes or replaces)"
	}
	return ""
}

// blocked says why a batch may not write pr now (state and message;
// "" when it may). Drift waits for the policy, a contest's back-off and
// an unconvergeable verdict; a message "" keeps the resource's own.
func (c *Controller) blocked(pr plan.Resource, policy string, st *resState, set *manifest.Set, now time.Time) (state, msg string) {
	if pr.Action != plan.ActionCreate && pr.Action != plan.ActionUpdate {
		if msg := oneShotOnly(pr.Action); msg != "" {
			return StateError, msg
		}
		return StateError, "planned " + string(pr.Action) + ": the loop only creates and updates"
	}
	if len(driftOf(pr.Changes)) == 0 {
		return "", ""
	}
	switch {
	case policy == PolicyDetect:
		return StateDrifted, "changed in Azure outside this tool; policy detect: not corrected"
	case now.Before(st.until):
		return StateContested, ""
	case st.stuckUnder(set, armid.Key(pr.ID)):
		return StateUnconvergeable, ""
	}
	return "", ""
}

func (c *Controller) inSync(key, id, policy string, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.state(key, id)
	st.policy, st.lastObserved = policy, at
	if st.stuckUnder(c.set, key) {
		return
	}
	st.state, st.changes, st.message = StateInSync, nil, ""
}

// drifted handles confirmed drift according to the policy.
func (c *Controller) drifted(key, id, policy string, drift, all []plan.Change, at time.Time) {
	c.mu.Lock()
	st := c.state(key, id)
	paths := pathsOf(drift)
	known := (st.state == StateDrifted || st.state == StateContested || st.state == StateUnconvergeable) && reflect.DeepEqual(pathsOf(driftOf(st.changes)), paths)
	st.changes, st.policy, st.lastObserved = all, policy, at
	if !known {
		for _, ch := range drift {
			c.Metrics.driftDetected.WithLabelValues(string(plan.CauseDrift), kindOf(ch)).Inc()
		}
		c.logf("drift: %s: %s", id, strings.Join(paths, ", "))
		c.event(EventDriftDetected, id, "changed outside kubectl-azure: "+strings.Join(paths, ", ")+" (policy "+policy+")", true)
	}
	switch {
	case st.state == StateUnconvergeable && known:
		// Azure would not take the value last time: writing again would
		// only repeat that. A change of its manifest tries again; a
		// restart does not (unconvergeable.go).
	case at.Before(st.until):
		st.state = StateContested
	case policy == PolicyDetect:
		st.state = StateDrifted
		st.message = "changed in Azure outside this tool; policy detect: not corrected (run `kubectl azure apply`, or use --drift-policy correct)"
	default:
		n := 0
		for _, cr := range st.corrections {
			if at.Sub(cr.at) <= c.Options.ContestWindow && overlaps(cr.paths, paths) {
				n++
			}
		}
		if n >= c.Options.ContestLimit {
			st.contested++
			backoff := c.Options.ContestBackoff << min(st.contested-1, 5)
			st.until = at.Add(backoff)
			st.state = StateContested
			st.message = fmt.Sprintf("%s changed again after %d correction(s) within %s: another client or person is writing it; not correcting until %s (stop the other writer, or take the path into the manifest's ignore-changes)",
				strings.Join(paths, ", "), n, c.Options.ContestWindow, st.until.UTC().Format(time.RFC3339))
			c.logf("contested: %s: %s", id, st.message)
			c.event(EventDriftContested, id, st.message, true)
		} else {
			st.state = StateCorrecting
			st.message = "correcting drift"
			c.mu.Unlock()
			c.queue.Add(key)
			return
		}
	}
	c.mu.Unlock()
}

// overlaps reports whether a path of a lies on or under a path of b, or
// the other way round (a correction of tags covers tags.owner), compared
// segment by segment.
func overlaps(a, b []string) bool {
	pb := make([]bodypath.Path, len(b))
	for i, y := range b {
		pb[i] = parsed(y)
	}
	for _, x := range a {
		px := parsed(x)
		for _, py := range pb {
			if prefixOf(px, py) || prefixOf(py, px) {
				return true
			}
		}
	}
	return false
}

// parsed is the typed path of a plan path (a path that does not parse is
// one segment of its own text: equal only to itself).
func parsed(s string) bodypath.Path {
	p, err := bodypath.Parse(s)
	if err != nil {
		return bodypath.Path{bodypath.Field(s)}
	}
	return p
}

// prefixOf reports whether p is q or an ancestor of q.
func prefixOf(p, q bodypath.Path) bool {
	if len(p) > len(q) {
		return false
	}
	for i := range p {
		if !reflect.DeepEqual(p[i], q[i]) {
			return false
		}
	}
	return true
}

func kindOf(ch plan.Change) string {
	if ch.Kind == "" {
		return "change"
	}
	return string(ch.Kind)
}
