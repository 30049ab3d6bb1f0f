package apply

import (
	"context"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// preventDestroy reads the prevent-destroy annotation.
func preventDestroy(r *manifest.Resource) bool {
	return strings.EqualFold(strings.TrimSpace(annotation(r, AnnotationPreventDestroy)), "true")
}

// protectedKeys collects the keys of every resource protected by
// prevent-destroy that the plan knows of: annotated in a manifest, or
// recorded so in state under any set or subscription. Protection recorded
// in state outlives the manifest: a dropped document, a rename or a move
// to another group leaves the record protected until a manifest without
// the annotation is applied for it.
func protectedKeys(items []*item, records []*state.Record) map[string]bool {
	out := map[string]bool{}
	for _, it := range items {
		if it.protected {
			out[it.key] = true
		}
	}
	for _, r := range records {
		if r.PreventDestroy {
			out[armid.Key(r.ID)] = true
		}
	}
	return out
}

// protectionChange reports whether applying the item changes the
// prevent-destroy flag its state record carries: the record is written
// even when Azure needs no write.
func (it *item) protectionChange() bool {
	return it.res != nil && it.record != nil && !it.nameDeferred && it.record.PreventDestroy != it.annotated
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

// StateOnly lists the resources whose state record this apply changes
// without any write to Azure — prevent-destroy added or removed in the
// manifest, a stale record of a resource already absent, a baseline set
// back outside — one line each. A plan without changes must still be executed
// when it is not empty, or the protection is never recorded (or lifted).
func (p *Prepared) StateOnly() []string {
	var out []string
	if p.refreshOnly {
		// A refresh records only the drift it accepts.
		return nil
	}
	for _, it := range p.items {
		switch {
		case it.forget && it.stays != "":
			out = append(out, it.display()+": "+it.stays+"; its record in state will be removed")
			continue
		case it.forget:
			out = append(out, it.display()+": already absent from Azure; its record in state will be removed")
			continue
		case it.rebase:
			out = append(out, it.display()+": set back outside to the manifest's value; its baseline will be recorded again")
			continue
		}
		if it.planned.Action != plan.ActionNoOp || !it.protectionChange() || it.otherSet != "" {
			continue
		}
		verb := "recorded in state"
		if !it.annotated {
			verb = "lifted in state"
		}
		out = append(out, it.display()+": prevent-destroy will be "+verb)
	}
	return out
}
