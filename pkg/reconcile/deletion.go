package reconcile

// Deliberate deletion: the loop itself never deletes a resource because
// its manifest went away (a dir:// file removed, a ConfigMap key dropped).
// Only a Resource object deleted with azure.kubectl.io/deletion-policy:
// delete is deleted in Azure, once, through the engine's delete plan with
// every rule one-shot `kubectl azure delete` has; the default, orphan,
// forgets the resource from state and writes nothing to Azure.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// Deletion policies of a Resource object (AnnotationDeletionPolicy).
const (
	// DeletionOrphan forgets the resource from state; Azure keeps it.
	DeletionOrphan = "orphan"
	// DeletionDelete deletes the resource in Azure, then forgets it.
	DeletionDelete = "delete"
)

// AnnotationDeletionPolicy says what deleting a Resource object does to
// its Azure resource. It is the object's, not the manifest's: the
// kubernetes:// source takes it out of the document it loads.
const AnnotationDeletionPolicy = manifest.AnnotationDeletionPolicy

// Finalizer keeps a Resource object until the controller has orphaned
// or deleted its resource.
const Finalizer = "azure.kubectl.io/deletion"

// ValidateDeletionPolicy accepts "" (the default, orphan), orphan and delete.
func ValidateDeletionPolicy(p string) error {
	switch p {
	case "", DeletionOrphan, DeletionDelete:
		return nil
	}
	return fmt.Errorf("must be %q or %q, got %q", DeletionOrphan, DeletionDelete, p)
}

// RefusedError is a deletion the engine's rules (prevent-destroy, a
// cascade, a lock, an unmanaged child) or the manifests refused; nothing
// was written. A person must act: it is not retried until something changes.
type RefusedError struct{ Reason string }

func (e *RefusedError) Error() string { return e.Reason }

// retire stops the loop observing and writing id: its object is being
// deleted, and a sweep must not create again what the deletion removes. A
// set that declares id anew (the object made again) lifts it (adopt).
func (c *Controller) retire(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.retired == nil {
		c.retired = map[string]bool{}
	}
	k := armid.Key(id)
	if c.retired[k] {
		return
	}
	c.retired[k] = true
	delete(c.res, k)
	if c.srcSet != nil {
		c.set = c.observed(c.srcSet)
	}
}

// unretire lifts the retirement of the resources set declares that
// before did not; call with c.mu held.
func (c *Controller) unretire(before, set *manifest.Set) {
	for _, r := range set.Resources {
		k := armid.Key(r.ID)
		if c.retired[k] && (before == nil || before.ByID(r.ID) == nil) {
			delete(c.retired, k)
		}
	}
}

// observed is set without the retired resources (set itself when it has
// none); call with c.mu held.
func (c *Controller) observed(set *manifest.Set) *manifest.Set {
	if len(c.retired) == 0 {
		return set
	}
	out := *set
	out.Resources = nil
	for _, r := range set.Resources {
		if !c.retired[armid.Key(r.ID)] {
			out.Resources = append(out.Resources, r)
		}
	}
	return &out
}

// running: a term has started (Run made its queue and budgets).
func (c *Controller) running() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writeLim != nil
}

// Forget orphans id: its state record goes, Azure is not written.
func (c *Controller) Forget(ctx context.Context, id string) error {
	c.retire(id)
	bl, err := c.lockBatch(ctx)
	if err != nil {
		return err
	}
	defer bl.done()
	return c.Store.Delete(ctx, id)
}

// Destroy deletes id in Azure through the engine's delete plan, as
// `kubectl azure delete TYPE/NAME --yes` would (the deletion policy is the
// consent): prevent-destroy, the cascade check, locks first, nothing
// unmanaged. A resource the state does not hold was never applied by this
// tool and is not deleted (deleted false, no error). protect is whether
// the object still asks prevent-destroy: when it no longer does, the
// protection an earlier apply recorded is lifted first, as applying the
// manifest without the annotation would. A refusal is a *RefusedError.
func (c *Controller) Destroy(ctx context.Context, id string, protect bool) (deleted bool, err error) {
	c.retire(id)
	bl, err := c.lockBatch(ctx)
	if err != nil {
		return false, err
	}
	defer bl.done()
	rec, err := c.Store.Get(ctx, id)
	if errors.Is(err, state.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if rec.PreventDestroy && !protect {
		rec.PreventDestroy, rec.Serial = false, 0
		if err := c.Store.Put(ctx, rec); err != nil {
			return false, err
		}
	}
	eng, release := c.engine(c.WriteARM, false, nil)
	defer release()
	eng.Options.Mode = plan.ModeDelete
	if _, err := eng.Repair(ctx); err != nil {
		return false, fmt.Errorf("settling the journal of an interrupted run: %w", err)
	}
	set := &manifest.Set{Subscription: armid.SubscriptionOf(rec.ID), Resources: []*manifest.Resource{recordResource(rec)}}
	prep, err := eng.Plan(ctx, set)
	if err != nil {
		return false, err
	}
	if msg := c.stillDeclared(prep.Plan); msg != "" {
		return false, &RefusedError{msg}
	}
	if err := eng.Check(prep); err != nil {
		return false, &RefusedError{err.Error()}
	}
	if !prep.Plan.HasChanges() {
		// Already gone from Azure: only the record is left.
		return false, c.Store.Delete(ctx, id)
	}
	if !c.takeWriteTokens(ctx, len(prep.Plan.Resources)) {
		return false, ctx.Err()
	}
	result, err := eng.Execute(ctx, prep)
	if err != nil {
		return false, err
	}
	for _, rr := range result.Results {
		if rr.Status != plan.StatusDone && rr.Status != "" {
			return false, fmt.Errorf("%s: %s", rr.ID, orText(rr.Error, string(rr.Status)))
		}
	}
	c.logf("deleted: %s (its object was deleted with %s: %s)", id, AnnotationDeletionPolicy, DeletionDelete)
	return true, nil
}

// recordResource is the resource a state record describes, as `delete
// TYPE/NAME` plans it: the manifest has gone with its object.
func recordResource(rec *state.Record) *manifest.Resource {
	name := rec.ID
	if id, err := armid.Parse(rec.ID); err == nil {
		name = id.Name()
	}
	return &manifest.Resource{Origin: manifest.FromState, Name: name, Type: rec.Type, APIVersion: rec.APIVersion, ID: rec.ID, Body: rec.LastApplied}
}

// stillDeclared refuses a deletion that would take with it a resource the
// manifests the loop observes still declare (a child of a deleted group):
// one-shot delete plans every manifest given, the loop only the one whose
// object went.
func (c *Controller) stillDeclared(p *plan.Plan) string {
	c.mu.Lock()
	set := c.set
	retired := c.retired
	c.mu.Unlock()
	if set == nil {
		return ""
	}
	var gone []string
	for _, pr := range p.Resources {
		if pr.Action != plan.ActionDelete {
			continue
		}
		for _, ch := range pr.Cascade {
			if set.ByID(ch.ID) != nil && !retired[armid.Key(ch.ID)] {
				gone = append(gone, ch.ID)
			}
		}
	}
	if len(gone) == 0 {
		return ""
	}
	return "deleting it would also delete " + strings.Join(gone, ", ") + ", which the manifests still declare; nothing was written. Delete their objects too, or remove the deletion policy " + DeletionDelete + " to orphan it"
}
