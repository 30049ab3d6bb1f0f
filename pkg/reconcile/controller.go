package reconcile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/client-go/util/workqueue"

	"github.com/kubectl-azure/kubectl-azure/pkg/apply"
	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// Controller is the loop. Fill the exported fields, then Run.
type Controller struct {
	Options   Options
	Reflector *Reflector
	Store     state.Store
	// ObserveARM reads for the observer (its transport is a Budget);
	// WriteARM serves the workers. Two clients, so a long write never
	// waits behind the observer's read budget.
	ObserveARM apply.ARM
	WriteARM   apply.ARM
	Schemas    apply.SchemaSource
	Plugins    func(typ string) diff.Plugin
	// Engine are the apply options every plan uses (set, subscription,
	// concurrency). Prune, Adopt, AllowReplace and Delete are forced off:
	// the loop never deletes, adopts or replaces.
	Engine apply.Options
	// PlanSource is how the manifests are loaded again by `apply PLAN`
	// (Options.PlanFile).
	PlanSource apply.Source
	Metrics    *Metrics
	// Log receives one line per event worth a person's attention.
	Log io.Writer
	// Events, when set, also receives those events (Kubernetes Events on
	// the state objects in a cluster). It is called on a goroutine of its
	// own: a slow API server never holds the loop up.
	Events func(e Event)
	// Now is the clock (tests inject one).
	Now func() time.Time

	metricsOnce sync.Once
	tracker     *Tracker
	queue       workqueue.TypedRateLimitingInterface[string]
	writeLim    *rate.Limiter
	// lockMu keeps this process's workers from queueing on the state lock
	// against each other; other processes (a CLI apply) still take turns
	// with them through the store's lock.
	lockMu sync.Mutex
	logMu  sync.Mutex
	warned map[string]bool

	mu       sync.Mutex
	res      map[string]*resState
	set      *manifest.Set
	swept    int
	sweepErr error
	loadedAt time.Time
	leader   *bool
	// fence, under leader election, gates every write on the Lease.
	fence    *Fence
	statusMu sync.Mutex
}

// resState is what the loop knows of one resource between sweeps.
type resState struct {
	id           string
	state        string
	lastObserved time.Time
	changes      []plan.Change
	message      string
	policy       string
	// corrections are recent writes that undid drift, oldest first.
	corrections []correction
	contested   int // times contested so far
	until       time.Time
	total       int // corrections ever
	// stuckOn is the set an unconvergeable verdict was reached with: the
	// record now holds Azure's value, so later sweeps look in sync, and
	// the verdict stands until the manifests change.
	stuckOn *manifest.Set
}

type correction struct {
	at    time.Time
	paths []string
}

func (c *Controller) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// Event is one thing that happened to a resource.
type Event struct {
	Reason  string // EventDriftDetected, ...
	ID      string
	Message string
	Warning bool
}

// Reasons of Events.
const (
	EventDriftDetected  = "DriftDetected"
	EventDriftCorrected = "DriftCorrected"
	EventDriftContested = "DriftContested"
	EventUnconvergeable = "Unconvergeable"
	EventWriteFailed    = "WriteFailed"
)

func (c *Controller) event(reason, id, msg string, warning bool) {
	if c.Events != nil {
		go c.Events(Event{Reason: reason, ID: id, Message: msg, Warning: warning})
	}
}

func (c *Controller) logf(format string, args ...any) {
	if c.Log == nil {
		return
	}
	c.logMu.Lock()
	defer c.logMu.Unlock()
	fmt.Fprintf(c.Log, c.now().UTC().Format(time.RFC3339)+" "+format+"\n", args...)
}

// warnWriter passes each distinct warning line once: every sweep plans
// again, and a warning repeated every few seconds hides the new ones.
type warnWriter struct{ c *Controller }

func (w warnWriter) Write(p []byte) (int, error) {
	w.c.logMu.Lock()
	defer w.c.logMu.Unlock()
	line := strings.TrimSpace(string(p))
	if w.c.warned == nil {
		w.c.warned = map[string]bool{}
	}
	if !w.c.warned[line] && w.c.Log != nil {
		w.c.warned[line] = true
		fmt.Fprintln(w.c.Log, line)
	}
	return len(p), nil
}

// engine builds a fresh engine: an Engine keeps per-plan state.
func (c *Controller) engine(a apply.ARM, collectionReads bool) *apply.Engine {
	o := c.Engine
	o.Prune, o.Adopt, o.AllowReplace, o.Delete, o.AllowPruneAll, o.Interactive = false, false, false, false, false, false
	o.AllowCascade, o.AllowDeleteUnmanaged = false, false
	o.CollectionReads = collectionReads
	o.Holder = c.Options.Holder
	c.mu.Lock()
	if c.fence != nil {
		a = c.fence.ARM(a)
	}
	c.mu.Unlock()
	return &apply.Engine{ARM: a, Store: c.Store, Schemas: c.Schemas, Plugins: c.Plugins, Options: o, Warn: warnWriter{c}}
}

// SetLeader records leadership for the status file and metrics.
func (c *Controller) SetLeader(on bool) {
	c.mu.Lock()
	c.leader = &on
	c.mu.Unlock()
	c.metrics().SetLeader(on)
}

// Ready is nil once a good manifest set loaded and a sweep completed.
func (c *Controller) Ready() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.leader != nil && !*c.leader {
		return nil // a standby is ready to take over
	}
	if c.set == nil {
		return errors.New("no valid manifest set loaded yet")
	}
	if c.swept == 0 {
		return errors.New("first observation sweep not complete")
	}
	return nil
}

// metrics returns the metrics, creating them on first use.
func (c *Controller) metrics() *Metrics {
	c.metricsOnce.Do(func() {
		if c.Metrics == nil {
			c.Metrics = NewMetrics()
		}
	})
	return c.Metrics
}

// init resets what one run (one term of leadership) knows.
func (c *Controller) init() {
	c.metrics()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tracker = NewTracker()
	c.res = map[string]*resState{}
	c.set, c.swept, c.sweepErr = nil, 0, nil
	c.writeLim = rate.NewLimiter(rate.Limit(c.Options.WriteBudget), max(1, c.Options.WriteBurst))
	base, maxDelay := c.Options.RetryBase, c.Options.RetryMax
	if base <= 0 {
		base = time.Second
	}
	if maxDelay < base {
		maxDelay = base
	}
	c.queue = workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](base, maxDelay),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "kubectl-azure"})
}

// Run reconciles until ctx ends, then returns nil: stopping is not an
// error. Writes in flight finish (or are journaled for the next run to
// settle by reading) before it returns.
func (c *Controller) Run(ctx context.Context) error {
	if err := c.Options.Validate(); err != nil {
		return err
	}
	c.init()
	c.repair(ctx)
	var wg sync.WaitGroup
	srcCtx, stopSrc := context.WithCancel(ctx)
	defer stopSrc()
	wg.Add(1)
	go func() {
		defer wg.Done()
		c.Reflector.Run(srcCtx, c.Options.SourceInterval, func(err error) {
			c.logf("manifests refused, still observing the last good set: %s", oneLine(err))
			c.writeStatus()
		})
	}()
	for range c.Options.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c.work(ctx) {
			}
		}()
	}
	defer func() {
		c.queue.ShutDown()
		stopSrc()
		wg.Wait()
		c.writeStatus()
	}()

	var last time.Time
	for {
		set, loadedAt, _ := c.Reflector.Current()
		if set != nil {
			c.mu.Lock()
			c.set, c.loadedAt = set, loadedAt
			c.mu.Unlock()
			last = c.now()
			if err := c.Sweep(ctx, set); err != nil && ctx.Err() == nil {
				c.logf("observation failed (the next sweep retries): %s", oneLine(err))
			}
			if c.Options.Once && c.settle(ctx) {
				return nil
			}
		}
		wait := c.Options.MinSweepInterval - c.now().Sub(last)
		if set == nil {
			wait = c.Options.SourceInterval
		}
		if wait < 10*time.Millisecond {
			wait = 10 * time.Millisecond
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-c.Reflector.Changed():
			t.Stop()
		case <-t.C:
		}
	}
}

// repair settles the journal of an interrupted run (a leader killed
// mid-write, a crash) by reading, before this term's first sweep: the
// intent would otherwise stay open until the next write of any resource.
// A lock held elsewhere (a CLI apply) leaves it to the workers, which
// repair at every batch.
func (c *Controller) repair(ctx context.Context) {
	unlock, err := c.Store.Lock(ctx, c.Options.Holder, min(c.Options.LockTimeout, 5*time.Second))
	if err != nil {
		if ctx.Err() == nil {
			c.logf("the journal is settled with the first write (state lock: %s)", oneLine(err))
		}
		return
	}
	defer func() { _ = unlock() }()
	if _, err := c.engine(c.WriteARM, false).Repair(ctx); err != nil && ctx.Err() == nil {
		c.logf("settling the journal of an interrupted run (the first write retries): %s", oneLine(err))
	}
}

// settle waits until the queue is empty and no worker holds a resource.
func (c *Controller) settle(ctx context.Context) bool {
	for ctx.Err() == nil {
		if c.queue.Len() == 0 && c.idle() {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

func (c *Controller) idle() bool {
	c.tracker.mu.Lock()
	defer c.tracker.mu.Unlock()
	return len(c.tracker.busy) == 0
}

// Sweep observes every resource of set once, a part at a time: each part
// is judged as soon as it is read, so a drift waits for its own part's
// reads, not for the whole set's.
func (c *Controller) Sweep(ctx context.Context, set *manifest.Set) error {
	start := c.now()
	var swept *plan.Plan
	seen := map[string]bool{}
	// Resources this sweep will write: a resource that depends on one of
	// them waits for the next sweep (its dependency's batch may create it
	// first), instead of failing against a parent that does not exist yet.
	pending := map[string]bool{}
	for _, part := range sweepParts(set, sweepPartSize) {
		p, err := c.sweepPart(ctx, part, seen, pending)
		c.mu.Lock()
		c.sweepErr = err
		c.mu.Unlock()
		if err != nil {
			c.writeStatus()
			return err
		}
		swept = mergePlans(swept, p)
	}
	c.mu.Lock()
	for k := range c.res {
		if !seen[k] {
			// No longer declared: no longer managed. Nothing is deleted.
			delete(c.res, k)
		}
	}
	c.swept++
	c.mu.Unlock()
	c.Metrics.managed.Set(float64(len(set.Resources)))
	c.Metrics.sweepDone(start)
	if swept != nil {
		c.savePlan(swept)
	}
	c.writeStatus()
	return ctx.Err()
}

// sweepPart plans one part and judges the resources it owns, adding their
// keys to seen and those it will write to pending; it returns the part's
// plan of them.
func (c *Controller) sweepPart(ctx context.Context, part sweepSet, seen, pending map[string]bool) (*plan.Plan, error) {
	mark := c.tracker.Mark()
	at := c.now()
	prep, err := c.engine(c.ObserveARM, c.Engine.CollectionReads).Plan(ctx, part.Set)
	if err != nil {
		return nil, err
	}
	byKey := make(map[string]*manifest.Resource, part.own)
	for _, r := range part.Resources[:part.own] {
		byKey[armid.Key(r.ID)] = r
	}
	for _, pr := range prep.Plan.Resources {
		if pr.Action != plan.ActionNoOp {
			pending[armid.Key(pr.ID)] = true
		}
	}
	own := prep.Plan.Resources[:0:0]
	for _, pr := range prep.Plan.Resources {
		key := armid.Key(pr.ID)
		res := byKey[key]
		if res == nil {
			continue
		}
		own = append(own, pr)
		seen[key] = true
		if c.tracker.Stale(mark, key) {
			c.Metrics.discarded.Inc()
			continue
		}
		c.judge(ctx, part.Set, res, pr, mark, at, pending)
	}
	prep.Plan.Resources = own
	return prep.Plan, ctx.Err()
}

// sweepPartSize is about how many resources one plan of a sweep covers.
// Parts never split a resource group, so no list page is read twice.
const sweepPartSize = 500

// sweepSet is one part of a sweep: its first own resources are the ones it
// judges; the rest are dependencies its plan needs to resolve values.
type sweepSet struct {
	*manifest.Set
	own int
}

// sweepParts cuts set into parts of about size resources. The resource
// groups (and other top-level resources) come first, in one part, so
// their list is read once per sweep; then what lies inside them, a whole
// resource group to a part, so no list page is read twice. A set that
// small stays whole.
func sweepParts(set *manifest.Set, size int) []sweepSet {
	if len(set.Resources) <= size {
		return []sweepSet{{Set: set, own: len(set.Resources)}}
	}
	var tops []*manifest.Resource
	var order []string
	groups := map[string][]*manifest.Resource{}
	for _, r := range set.Resources {
		g := container(r.ID)
		if g == armid.Key(r.ID) {
			tops = append(tops, r)
			continue
		}
		if groups[g] == nil {
			order = append(order, g)
		}
		groups[g] = append(groups[g], r)
	}
	var out []sweepSet
	add := func(rs []*manifest.Resource) {
		if len(rs) == 0 {
			return
		}
		part := &manifest.Set{Subscription: set.Subscription, Resources: rs}
		part.Resources = append(part.Resources[:len(rs):len(rs)], deferredDeps(set, rs, rs)...)
		out = append(out, sweepSet{Set: part, own: len(rs)})
	}
	add(tops)
	var cur []*manifest.Resource
	for _, g := range order {
		if len(cur) > 0 && len(cur)+len(groups[g]) > size {
			add(cur)
			cur = nil
		}
		cur = append(cur, groups[g]...)
	}
	add(cur)
	return out
}

// container is the resource group an ID lies in, else the ID itself.
func container(id string) string {
	k := armid.Key(id)
	seg := strings.SplitN(k, "/", 6) // "", subscriptions, SUB, resourcegroups, RG, ...
	if len(seg) >= 5 && seg[1] == "subscriptions" && seg[3] == "resourcegroups" {
		return strings.Join(seg[:5], "/")
	}
	return k
}

// deferredDeps are the resources not in have that the values of of read:
// the dependencies, transitively, of those whose bodies read values Azure
// generates.
func deferredDeps(set *manifest.Set, have, of []*manifest.Resource) []*manifest.Resource {
	in := make(map[string]bool, len(have))
	for _, r := range have {
		in[armid.Key(r.ID)] = true
	}
	var out []*manifest.Resource
	var add func(ids []string)
	add = func(ids []string) {
		for _, id := range ids {
			k := armid.Key(id)
			if in[k] {
				continue
			}
			in[k] = true
			if d := set.ByID(id); d != nil {
				out = append(out, d)
				add(d.DependsOn)
			}
		}
	}
	for _, r := range of {
		if len(r.Deferred) > 0 || r.NameDeferred != nil {
			add(r.DependsOn)
		}
	}
	return out
}

// mergePlans appends the resources, subscriptions and warnings of next to
// into (nil: next) and summarises again.
func mergePlans(into, next *plan.Plan) *plan.Plan {
	if into == nil {
		return next
	}
	into.Resources = append(into.Resources, next.Resources...)
	for _, s := range next.Subscriptions {
		if !slices.Contains(into.Subscriptions, s) {
			into.Subscriptions = append(into.Subscriptions, s)
		}
	}
	for _, w := range next.Warnings {
		if !slices.Contains(into.Warnings, w) {
			into.Warnings = append(into.Warnings, w)
		}
	}
	into.Summarize()
	return into
}

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
	switch pr.Action {
	case plan.ActionAdopt:
		set1(StateError, "exists in Azure but not in state: adopt it once with `kubectl azure apply -f DIR --adopt` (the loop never adopts)", pr.Changes)
		return
	case plan.ActionReplace:
		set1(StateError, "a create-only property changed: replace it with `kubectl azure apply --allow-replace` (the loop never deletes or replaces)", pr.Changes)
		return
	case plan.ActionNoOp:
		if len(pr.Changes) == 0 {
			c.inSync(key, pr.ID, policy, at)
			return
		}
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

func (c *Controller) inSync(key, id, policy string, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.state(key, id)
	st.policy, st.lastObserved = policy, at
	if st.state == StateUnconvergeable && st.stuckOn == c.set {
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
		// only repeat that. A manifest change or a restart tries again.
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

func overlaps(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y || strings.HasPrefix(y, x+".") || strings.HasPrefix(x, y+".") || strings.HasPrefix(y, x+"[") || strings.HasPrefix(x, y+"[") {
				return true
			}
		}
	}
	return false
}

func kindOf(ch plan.Change) string {
	if ch.Kind == "" {
		return "change"
	}
	return string(ch.Kind)
}

// subset is res with what a plan of it alone needs from the set: the
// resources declared inside it (so its children declared on their own
// are not mistaken for items added outside) and, when its body reads
// values Azure generates, its dependencies.
func subset(set *manifest.Set, res *manifest.Resource) *manifest.Set {
	key := armid.Key(res.ID)
	out := &manifest.Set{Subscription: set.Subscription, Resources: []*manifest.Resource{res}}
	for _, r := range set.Resources {
		if strings.HasPrefix(armid.Key(r.ID), key+"/") {
			out.Resources = append(out.Resources, r)
		}
	}
	out.Resources = append(out.Resources, deferredDeps(set, out.Resources, out.Resources[:1])...)
	return out
}

// confirm reads res with a GET (and what its plan needs) and returns its
// planned resource.
func (c *Controller) confirm(ctx context.Context, set *manifest.Set, res *manifest.Resource) (*plan.Resource, error) {
	prep, err := c.engine(c.ObserveARM, false).Plan(ctx, subset(set, res))
	if err != nil {
		return nil, err
	}
	return find(prep.Plan, res.ID), nil
}

func find(p *plan.Plan, id string) *plan.Resource {
	for i := range p.Resources {
		if armid.Key(p.Resources[i].ID) == armid.Key(id) {
			return &p.Resources[i]
		}
	}
	return nil
}

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
	if set == nil {
		return false, nil
	}
	var res *manifest.Resource
	for _, r := range set.Resources {
		if armid.Key(r.ID) == key {
			res = r
			break
		}
	}
	if res == nil {
		return false, nil // no longer declared
	}
	sub := subset(set, res)
	byKey := make(map[string]*manifest.Resource, len(sub.Resources))
	for _, r := range sub.Resources {
		k := armid.Key(r.ID)
		byKey[k] = r
		defer c.tracker.Begin(k)()
	}

	c.lockMu.Lock()
	defer c.lockMu.Unlock()
	unlock, err := c.Store.Lock(ctx, c.Options.Holder, c.Options.LockTimeout)
	if err != nil {
		var le *state.LockedError
		if errors.As(err, &le) {
			// A CLI apply holds the lock: try again later, not an error.
			c.logf("state lock held by %s: %s waits", lockHolder(le), res.ID)
			return true, nil
		}
		return false, err
	}
	defer func() { _ = unlock() }()
	eng := c.engine(c.WriteARM, true)
	if _, err := eng.Repair(ctx); err != nil {
		return false, fmt.Errorf("settling the journal of an interrupted run: %w", err)
	}
	prep, err := eng.Plan(ctx, sub)
	if err != nil {
		return false, err
	}
	now := c.now()
	type write struct {
		res   *manifest.Resource
		pr    plan.Resource
		drift []plan.Change
	}
	var writes []write
	var waits []string
	for _, pr := range prep.Plan.Resources {
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
		drift := driftOf(pr.Changes)
		c.mu.Lock()
		st := c.state(k, pr.ID)
		blocked, msg := "", ""
		switch {
		case pr.Action == plan.ActionAdopt:
			blocked, msg = StateError, "exists in Azure but not in state: adopt it once with `kubectl azure apply -f DIR --adopt` (the loop never adopts)"
		case pr.Action == plan.ActionReplace:
			blocked, msg = StateError, "a create-only property changed: replace it with `kubectl azure apply --allow-replace` (the loop never deletes or replaces)"
		case pr.Action != plan.ActionCreate && pr.Action != plan.ActionUpdate:
			blocked, msg = StateError, "planned "+string(pr.Action)+": the loop only creates and updates"
		case len(drift) > 0 && policy == PolicyDetect:
			blocked, msg = StateDrifted, "changed in Azure outside this tool; policy detect: not corrected"
		case len(drift) > 0 && now.Before(st.until):
			blocked = StateContested
		case len(drift) > 0 && st.state == StateUnconvergeable && st.stuckOn == set:
			blocked = StateUnconvergeable
		}
		if blocked != "" {
			st.state, st.changes, st.lastObserved = blocked, pr.Changes, now
			if msg != "" {
				st.message = msg
			}
			c.mu.Unlock()
			if k == key {
				return false, nil
			}
			waits = append(waits, pr.ID)
			continue
		}
		st.state, st.changes = StateCorrecting, pr.Changes
		c.mu.Unlock()
		writes = append(writes, write{r, pr, drift})
	}
	if len(waits) > 0 {
		// Execute writes every change of the plan: a resource of the
		// batch that may not be written holds the others back.
		c.mu.Lock()
		st := c.state(key, res.ID)
		st.message = "waits: " + strings.Join(waits, ", ") + " (declared inside it) may not be written now"
		c.mu.Unlock()
		return true, nil
	}
	if len(writes) == 0 {
		return false, nil
	}
	if err := eng.Check(prep); err != nil {
		return false, err
	}
	if err := c.writeLim.WaitN(ctx, len(writes)); err != nil {
		if ctx.Err() != nil {
			return false, nil
		}
		// A batch larger than the burst goes out one token at a time.
		for range writes {
			if err := c.writeLim.Wait(ctx); err != nil {
				return false, nil
			}
		}
	}
	result, err := eng.Execute(ctx, prep)
	failed := map[string]string{}
	if result != nil {
		for _, rr := range result.Results {
			if rr.Status != plan.StatusDone {
				failed[armid.Key(rr.ID)] = rr.Error
			}
		}
	}
	if err != nil && result == nil {
		return false, err
	}
	done := c.now()
	var mainErr error
	for _, w := range writes {
		k := armid.Key(w.pr.ID)
		if msg, bad := failed[k]; bad {
			c.Metrics.writes.WithLabelValues("failed").Inc()
			if msg == "" {
				msg = "not written"
			}
			if k == key {
				mainErr = errors.New(msg)
			} else {
				c.mu.Lock()
				st := c.state(k, w.pr.ID)
				st.state, st.message = StateError, msg
				c.mu.Unlock()
				c.queue.AddRateLimited(k)
			}
			continue
		}
		c.Metrics.writes.WithLabelValues("done").Inc()
		c.written(ctx, set, w.pr, w.drift, done)
	}
	if mainErr == nil && err != nil && len(failed) == 0 {
		mainErr = err
	}
	return false, mainErr
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
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.state(key, pr.ID)
	st.lastObserved = done
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

// idOf returns the ARM ID of a queue key as the manifests spell it.
func (c *Controller) idOf(key string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st := c.res[key]; st != nil {
		return st.id
	}
	return key
}

func lockHolder(le *state.LockedError) string {
	if le.Holder != nil && le.Holder.Holder != "" {
		return le.Holder.Holder
	}
	return "another run"
}

func oneLine(err error) string {
	return strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", "; ")
}

// Snapshot returns the status document as of now.
func (c *Controller) Snapshot() *Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := &Status{ObservedAt: c.now().UTC(), Policy: c.Options.DriftPolicy, Set: c.Engine.Set}
	if c.leader != nil {
		l := *c.leader
		st.Leader = &l
	}
	_, loadedAt, srcErr := c.Reflector.Current()
	st.Source.LoadedAt = loadedAt.UTC()
	if c.set != nil {
		st.Source.Resources = len(c.set.Resources)
	}
	if srcErr != nil {
		st.Source.Error = oneLine(srcErr)
		st.Source.Problems = Problems(srcErr)
	}
	if c.sweepErr != nil && st.Source.Error == "" {
		st.Source.Error = "observation failed: " + oneLine(c.sweepErr)
	}
	counts := map[string]int{}
	for _, r := range c.res {
		rs := ResourceStatus{ID: r.id, State: r.state, LastObserved: r.lastObserved.UTC(), Changes: r.changes,
			Policy: r.policy, Message: r.message, Corrections: r.total}
		if r.state == StateContested && !r.until.IsZero() {
			u := r.until.UTC()
			rs.Until = &u
		}
		counts[r.state]++
		st.Resources = append(st.Resources, rs)
	}
	m := c.metrics()
	for _, s := range []string{StateInSync, StateDrifted, StateCorrecting, StateContested, StateUnconvergeable, StateError} {
		m.states.WithLabelValues(s).Set(float64(counts[s]))
	}
	if srcErr != nil {
		m.sourceValid.Set(0)
	} else {
		m.sourceValid.Set(1)
	}
	return st
}

// savePlan keeps Options.PlanFile: the sweep's plan while anything
// drifted, no file otherwise.
func (c *Controller) savePlan(p *plan.Plan) {
	if c.Options.PlanFile == "" {
		return
	}
	c.mu.Lock()
	drifted := false
	for _, st := range c.res {
		if st.state == StateDrifted {
			drifted = true
		}
	}
	c.mu.Unlock()
	if !drifted {
		if err := os.Remove(c.Options.PlanFile); err != nil && !errors.Is(err, os.ErrNotExist) {
			c.logf("removing the plan file %s: %v", c.Options.PlanFile, err)
		}
		return
	}
	c.annotatePlan(p)
	if err := WritePlan(c.Options.PlanFile, p, c.PlanSource); err != nil {
		c.logf("writing the plan file %s: %v", c.Options.PlanFile, err)
	}
}

func (c *Controller) annotatePlan(p *plan.Plan) {
	if p.Set == "" {
		p.Set = c.Engine.Set
	}
	if p.State == "" {
		p.State = c.PlanSource.State
	}
}

func (c *Controller) writeStatus() {
	st := c.Snapshot()
	if c.Options.StatusFile == "" {
		return
	}
	c.statusMu.Lock()
	defer c.statusMu.Unlock()
	if err := WriteStatus(c.Options.StatusFile, st); err != nil {
		c.logf("writing the status file %s: %v", c.Options.StatusFile, err)
	}
}
