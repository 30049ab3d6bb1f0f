package apply

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// preventDestroy reads the prevent-destroy annotation.
func preventDestroy(r *manifest.Resource) bool {
	return strings.EqualFold(strings.TrimSpace(annotation(r, AnnotationPreventDestroy)), "true")
}

// ignoreChanges splits the ignore-changes annotation into paths.
func ignoreChanges(r *manifest.Resource) []string {
	var out []string
	for _, p := range strings.Split(annotation(r, AnnotationIgnoreChanges), ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// planCascades lists, for every delete or replace, what ARM deletes with
// the resource: the contents of its resource group that lie inside it. Each
// is marked managed when a manifest or this set's state knows it. One
// listing per resource group.
func (e *Engine) planCascades(ctx context.Context, items []*item, managed map[string]bool) error {
	lists := map[string][]map[string]any{}
	for _, it := range items {
		a := it.planned.Action
		if a != plan.ActionDelete && a != plan.ActionReplace {
			continue
		}
		id, err := armid.Parse(it.id)
		if err != nil || id.Subscription == "" || id.ResourceGroup == "" {
			continue
		}
		rg := armid.Key("/subscriptions/" + id.Subscription + "/resourceGroups/" + id.ResourceGroup)
		contents, ok := lists[rg]
		if !ok {
			contents, err = e.ARM.ListResourceGroup(ctx, id.Subscription, id.ResourceGroup)
			if err != nil && !arm.IsNotFound(err) {
				return fmt.Errorf("listing what deleting %s would also delete: %w", it.display(), err)
			}
			lists[rg] = contents
		}
		it.planned.Cascade = cascadeOf(it.id, contents, managed)
	}
	return nil
}

// cascadeOf picks the listed resources inside parent, sorted by ID.
func cascadeOf(parent string, contents []map[string]any, managed map[string]bool) []plan.CascadeItem {
	var out []plan.CascadeItem
	for _, c := range contents {
		cid, _ := c["id"].(string)
		if cid == "" || !armid.Contains(parent, cid) {
			continue
		}
		typ, _ := c["type"].(string)
		out = append(out, plan.CascadeItem{ID: cid, Type: typ, Managed: managed[armid.Key(cid)]})
	}
	sort.Slice(out, func(i, j int) bool { return armid.Key(out[i].ID) < armid.Key(out[j].ID) })
	return out
}

// dropCascaded forgets the state records of resources ARM deleted with
// it, once the delete is confirmed. Resources handled by their own item in
// this run keep their records until that item decides.
func (e *Engine) dropCascaded(ctx context.Context, p *Prepared, it *item) error {
	own := map[string]bool{}
	for _, x := range p.items {
		own[armid.Key(x.id)] = true
	}
	for _, c := range it.planned.Cascade {
		k := armid.Key(c.ID)
		if own[k] || p.records[k] == nil {
			continue
		}
		if err := e.Store.Delete(ctx, c.ID); err != nil {
			return fmt.Errorf("forgetting %s, deleted by ARM with %s: %w", armid.Printable(c.ID), it.display(), err)
		}
	}
	return nil
}

// serialisedParent returns the key of the parent under which ARM accepts
// one write at a time, "" when writes need not wait. The network provider
// answers 409 AnotherOperationInProgress to a second concurrent write under
// one virtual network, security group, route table, ...
func serialisedParent(id string) string {
	x, err := armid.Parse(id)
	if err != nil || !x.IsChild() || !strings.EqualFold(x.Provider, "Microsoft.Network") {
		return ""
	}
	return armid.ParentKey(id)
}

// parentLock waits until no other write under the same serialised parent is
// in flight; unlock must be called when the write (and its LRO) is done.
func (e *Engine) parentLock(ctx context.Context, id string) (unlock func(), err error) {
	k := serialisedParent(id)
	if k == "" {
		return func() {}, nil
	}
	v, _ := e.parents.LoadOrStore(k, make(chan struct{}, 1))
	ch := v.(chan struct{})
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
