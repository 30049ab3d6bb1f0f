package apply

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// Management locks (Microsoft.Authorization/locks, CanNotDelete or
// ReadOnly) make ARM refuse a delete of their scope, of anything under
// it, and of a parent that would take the scope along (409 ScopeLocked).
// A plan that deletes or replaces a locked resource deletes the managed
// locks it also deletes first, and refuses up front when any other lock
// holds (Check), instead of failing halfway through an apply.

// lockType and lockAPIVersion are how locks are listed: one list per
// subscription holds every lock in it (ARM REST "Management Locks - List
// At Subscription Level", 2020-05-01).
const (
	lockType       = "Microsoft.Authorization/locks"
	lockAPIVersion = "2020-05-01"
)

// heldLock is a lock that would refuse one of the plan's destroys.
type heldLock struct {
	id, level string
	// on is the destroy it refuses.
	on *item
	// managed: a manifest or this set's state knows the lock.
	managed bool
}

// planLocks finds the locks that hold the plan's deletes and replaces:
// a lock the plan deletes too is deleted first (its scope's item waits
// for it); any other is kept in p for Check to refuse. A subscription
// whose locks cannot be listed is warned about: its deletes are tried
// and ARM answers for the locks.
func (e *Engine) planLocks(ctx context.Context, items []*item, managed map[string]bool, run *Prepared) error {
	destroyed, subs := lockTargets(items)
	if len(destroyed) == 0 {
		return nil
	}
	locks, err := e.listLocks(ctx, destroyed[0], subs)
	if err != nil {
		return err
	}
	byKey := make(map[string]*item, len(items))
	for _, it := range items {
		byKey[it.key] = it
	}
	for _, l := range locks {
		holdLock(l, destroyed, byKey, managed, run)
	}
	wordLockOrder(items)
	return nil
}

// lockTargets are the deletes and replaces a lock can refuse (lock
// operations are exempt from locks), and their subscriptions.
func lockTargets(items []*item) ([]*item, map[string]bool) {
	var destroyed []*item
	subs := map[string]bool{}
	for _, it := range items {
		if strings.EqualFold(it.typ, lockType) {
			continue
		}
		if a := it.planned.Action; (a == plan.ActionDelete && it.carrier == nil) || a == plan.ActionReplace {
			destroyed = append(destroyed, it)
			if s := armid.SubscriptionOf(it.id); s != "" {
				subs[s] = true
			}
		}
	}
	return destroyed, subs
}

// listLocks lists the management locks of every subscription in subs.
func (e *Engine) listLocks(ctx context.Context, first *item, subs map[string]bool) ([]map[string]any, error) {
	lister, _, err := e.destroyTools()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", first.display(), err)
	}
	var locks []map[string]any
	for _, s := range sortedKeys(subs) {
		got, err := lister.List(ctx, "/subscriptions/"+s+"/providers/"+lockType, lockAPIVersion)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrMethodNotAllowed) {
				e.warnf("could not list the management locks of subscription %s (%s): a lock there makes ARM refuse the delete only when it is sent", s, oneLine(err.Error()))
			}
			continue
		}
		locks = append(locks, got...)
	}
	return locks, nil
}

// holdLock applies one lock to what the plan destroys: a lock the plan
// deletes too goes first; any other is kept for Check to refuse.
func holdLock(l map[string]any, destroyed []*item, byKey map[string]*item, managed map[string]bool, run *Prepared) {
	id, _ := l["id"].(string)
	level, _ := asMapAny(l["properties"])["level"].(string)
	if lv := strings.ToLower(level); lv != "cannotdelete" && lv != "readonly" {
		return
	}
	p, ok := armid.ParsePath(id)
	if !ok || p.Kind != armid.PathResource {
		return
	}
	own := byKey[armid.Key(id)]
	for _, it := range destroyed {
		if it == own || !lockHolds(p.Scope, it.id) {
			continue
		}
		if own != nil && own.planned.Action == plan.ActionDelete {
			it.afterLocks = append(it.afterLocks, own)
			it.planned.DependsOn = appendUnique(it.planned.DependsOn, own.id)
			continue
		}
		run.locks = append(run.locks, heldLock{id: id, level: level, on: it, managed: managed[armid.Key(id)]})
	}
}

// wordLockOrder says in the reasons which deletes wait for their locks'.
func wordLockOrder(items []*item) {
	first := map[*item]bool{} // locks already worded "deleted first"
	for _, it := range items {
		if len(it.afterLocks) == 0 {
			continue
		}
		for _, l := range it.afterLocks {
			if !first[l] {
				first[l] = true
				l.planned.Reason += "; deleted first: ARM refuses to delete what it locks"
			}
		}
		it.planned.Reason += "; after its lock(s) " + lockNames(it.afterLocks)
	}
}

// lockHolds reports whether a lock at scope refuses deleting id: the
// scope is id, above it, or below it (deleted with it).
func lockHolds(scope, id string) bool {
	return armid.Equal(scope, id) || armid.Contains(scope, id) || armid.Contains(id, scope)
}

func lockNames(ls []*item) string {
	names := make([]string, len(ls))
	for i, l := range ls {
		names[i] = l.name
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// lockRefusals are Check's lines for the locks that would refuse a
// destroy: each names the lock and how to lift it.
func (p *Prepared) lockRefusals() []string {
	var out []string
	for _, l := range p.locks {
		how := "remove it with `az lock delete --ids " + l.id + "`, or `kubectl azure import " + l.id + "` to manage it and delete it with the rest"
		if l.managed {
			how = "it is managed: delete it in the same run (name it, or include its manifest)"
		}
		out = append(out, l.on.display()+" is locked by "+l.id+" ("+l.level+"): "+how)
	}
	return out
}

func asMapAny(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return list
		}
	}
	return append(list, s)
}
