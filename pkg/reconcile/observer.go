package reconcile

// The observer: sweeps of the whole set, a part at a time, on the read
// budget, and the one-resource plans that confirm drift.

import (
	"context"
	"slices"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// Sweep observes every resource of set once, a part at a time: each part
// is judged as soon as it is read, so a drift waits for its own part's
// reads, not for the whole set's.
func (c *Controller) Sweep(ctx context.Context, set *manifest.Set) error {
	start := c.now()
	c.setReadShare()
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
	c.setReadShare()
	c.Metrics.managed.Set(float64(len(set.Resources)))
	c.Metrics.sweepDone(start)
	if swept != nil {
		c.savePlan(swept)
	}
	c.writeStatus()
	return ctx.Err()
}

// setReadShare gives the observer's budget its share for what comes next:
// the initial one until a sweep of the whole set has completed in this
// term (init resets the count, so a restarted loop or a new leader reads
// its first sweep at the initial share again), then the steady one.
func (c *Controller) setReadShare() {
	if c.budget == nil {
		return
	}
	c.mu.Lock()
	first := c.swept == 0
	c.mu.Unlock()
	share := c.Options.ReadBudget
	if first {
		share = c.Options.initialShare()
	}
	c.budget.SetFraction(share)
}

// sweepPart plans one part and judges the resources it owns, adding their
// keys to seen and those it will write to pending; it returns the part's
// plan of them.
func (c *Controller) sweepPart(ctx context.Context, part sweepSet, seen, pending map[string]bool) (*plan.Plan, error) {
	mark := c.tracker.Mark()
	at := c.now()
	// After the mark: a write the serials miss makes the part's judgement
	// of that resource stale, and it is discarded.
	c.readHeads(ctx)
	eng, release := c.engine(c.ObserveARM, c.Engine.CollectionReads, part.Set)
	defer release()
	prep, err := eng.Plan(ctx, part.Set)
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
// Smaller parts judge sooner after their reads, but every plan reads the
// whole state's record list once: with parts of 500 a 10,000-resource
// steady state took 0.12 cores, over ten times the single plan's.
const sweepPartSize = 1000

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
		// The existing resources the set only reads go into every part:
		// its resources may take values from them, and each one is one
		// GET a part.
		part := &manifest.Set{Subscription: set.Subscription, Resources: rs, Existing: set.Existing, Secrets: set.Secrets}
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

// container is the key of the resource group an ID lies in, else of the
// ID itself.
func container(id string) string {
	x, err := armid.Parse(id)
	if err != nil || x.ResourceGroup == "" {
		return armid.Key(id)
	}
	return armid.Key("/subscriptions/" + x.Subscription + "/resourceGroups/" + x.ResourceGroup)
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

// subset is res with what a plan of it alone needs from the set: the
// resources declared inside it (so its children declared on their own
// are not mistaken for items added outside) and, when its body reads
// values Azure generates, its dependencies.
func subset(set *manifest.Set, res *manifest.Resource) *manifest.Set {
	key := armid.Key(res.ID)
	out := &manifest.Set{Subscription: set.Subscription, Resources: []*manifest.Resource{res}, Secrets: set.Secrets}
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
	sub := subset(set, res)
	eng, release := c.engine(c.ObserveARM, false, sub)
	defer release()
	prep, err := eng.Plan(confirming(ctx), sub)
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
