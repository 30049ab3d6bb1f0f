package apply

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// Check refuses a plan that needs a permission the options do not grant.
// It runs before any write, so a refused plan writes nothing. Every refusal
// is reported at once, each with the flag (or edit) that lifts it.
func (e *Engine) Check(p *Prepared) error {
	r := &refusals{e: e, p: p}
	for _, it := range p.items {
		r.consent(it)
		r.destroy(it)
	}
	if msgs := r.messages(); len(msgs) > 0 {
		return errors.New(strings.Join(msgs, "\n"))
	}
	return nil
}

// refusals collects, per kind of refusal, the resources that meet it.
type refusals struct {
	e *Engine
	p *Prepared

	adopt, replace, reserved, unmanaged, protected, cascade, required, takeover, declaredGone []string
	prunes                                                                                    int
}

// consent notes what the item needs a permission for: taking it over from
// another set or from Azure, replacing it, deleting what was never applied.
func (r *refusals) consent(it *item) {
	o, a := r.e.Options, it.planned.Action
	if it.otherSet != "" && writes(it) {
		switch {
		case a == plan.ActionDelete && !o.AllowDeleteUnmanaged:
			r.unmanaged = append(r.unmanaged, it.display()+" (recorded under set "+it.otherSet+")")
		case a != plan.ActionDelete && !o.Adopt:
			r.takeover = append(r.takeover, it.display()+" (recorded under set "+it.otherSet+")")
		}
	}
	switch a {
	case plan.ActionAdopt:
		if !o.Adopt {
			r.adopt = append(r.adopt, it.display())
		}
	case plan.ActionReplace:
		// Naming the resource with --replace is the consent. No consent
		// helps a type Azure keeps after its delete: the create of the
		// same name would fail, leaving nothing.
		if sd, ok := softDeleted[strings.ToLower(it.typ)]; ok {
			r.reserved = append(r.reserved, it.display()+" (a deleted one is kept "+sd.kept+")")
		} else if !o.AllowReplace && !r.e.replaceRequested(it) {
			r.replace = append(r.replace, it.display())
		}
	case plan.ActionDelete:
		if it.record == nil && !o.AllowDeleteUnmanaged {
			r.unmanaged = append(r.unmanaged, it.display())
		}
		if it.res == nil {
			r.prunes++
		}
	}
	if a == plan.ActionCreate || a == plan.ActionReplace {
		r.required = append(r.required, missingOnCreate(it)...)
	}
}

// destroy notes what deleting or replacing the item would destroy against
// protection, the manifests or the cascade consent.
func (r *refusals) destroy(it *item) {
	a := it.planned.Action
	if a != plan.ActionDelete && a != plan.ActionReplace {
		return
	}
	if it.protected {
		d := it.display()
		if !it.annotated {
			d += " (protected in state by an earlier apply: apply its manifest without the annotation, with no delete or replace, to lift it)"
		}
		r.protected = append(r.protected, d)
	}
	for _, c := range it.planned.Cascade {
		k := armid.Key(c.ID)
		if a == plan.ActionDelete && !r.e.Options.deletes() && r.p.keeps(k) {
			// The manifests still declare it: deleting its parent (a
			// pruned group) would delete it without a word. A delete run
			// keeps nothing the manifests declare.
			r.declaredGone = append(r.declaredGone, it.display()+" would also delete "+c.ID)
		}
		if r.p.protectedKeys[k] {
			r.protected = append(r.protected, it.display()+" would also delete "+c.ID+", which is protected")
		}
		if !c.Managed && !c.CreatedByAzure && !r.e.Options.AllowCascade {
			r.cascade = append(r.cascade, it.display()+" would also delete "+c.ID)
		}
	}
}

// messages words every refusal found, most serious first.
func (r *refusals) messages() []string {
	e, p := r.e, r.p
	var msgs []string
	add := func(list []string, format string) {
		if len(list) > 0 {
			msgs = append(msgs, fmt.Sprintf(format, len(list))+"\n  "+strings.Join(list, "\n  "))
		}
	}
	add(r.protected, "%d resource(s) are protected by azure.kubectl.io/prevent-destroy but the plan deletes or replaces them, directly or with their parent; nothing was written. If destroying them is intended, remove the annotation and apply that first; otherwise revert the change that forces it:")
	add(r.declaredGone, "%d resource(s) the manifests still declare would be deleted by ARM together with a parent this plan deletes; nothing was written. Declare the parent again, or remove them from the manifests too:")
	add(r.required, "%d required propert(y/ies) missing from resources this plan creates; nothing was written. ARM would refuse the create: add them to the manifests:")
	add(r.takeover, "%d resource(s) are recorded in state under another set; nothing was written. Writing them would move them to set "+fmt.Sprintf("%q", e.set())+" (and the other set's manifests would lose them); rerun with --adopt if this set should take them over, or remove them from these manifests:")
	add(r.adopt, "%d resource(s) exist in Azure but are not in state; nothing was written. Review the plan, then rerun with --adopt to take them over, or run `kubectl azure import` first:")
	add(r.replace, "%d resource(s) need replacing because a create-only property changed; nothing was written. Rerun with --allow-replace to delete and recreate them (their data is lost), or revert the change:")
	add(r.reserved, "%d resource(s) would be replaced, but Azure keeps a deleted one soft-deleted with its name reserved, so the create after the delete would fail and leave neither; nothing was written. Give the new one another name (declare it beside the old one, move what uses it, then remove the old one), or delete it with `kubectl azure delete`, purge it in Azure, and apply again:")
	add(r.unmanaged, "%d resource(s) to delete were not applied by kubectl-azure (not in state); nothing was written. Rerun with --allow-delete-unmanaged if deleting them is intended:")
	add(r.cascade, "%d resource(s) no manifest or state manages would be deleted by ARM together with their parent; nothing was written. Review them, then rerun with --allow-cascade, or move them out first:")
	add(p.lockRefusals(), "%d management lock(s) would make ARM refuse what this plan deletes or replaces (409 ScopeLocked); nothing was written:")
	add(e.undeletableReplaces(p), "%d resource(s) would be replaced, but ARM cannot delete them, so the create after the delete could not happen; nothing was written. Revert the change that forces the replace, or delete the parent that holds them:")
	if e.Options.prunes() && !e.Options.Interactive && !e.Options.AllowPruneAll && r.prunes > 0 && r.prunes >= p.setSize {
		msgs = append(msgs, fmt.Sprintf("--prune would delete all %d resource(s) of set %q; nothing was written. Check that -f/-k name the right manifests, then rerun with --allow-prune-all if emptying the set is intended", r.prunes, e.set()))
	}
	return msgs
}

// missingOnCreate lists the properties the resource's exact api-version
// requires on create that its body lacks. Only the exact version's schema
// is trusted (validation on a fallback version never errs), and only
// creates are judged: an update keeps what the resource already has.
func missingOnCreate(it *item) []string {
	if it.res == nil || it.schema == nil {
		return nil
	}
	var out []string
	for _, is := range it.schema.ValidateWith(it.res.Body, schema.ValidateOptions{Name: it.name, Create: true}) {
		if is.Severity == schema.Error && is.Kind == schema.KindRequired {
			out = append(out, it.display()+": "+is.Message)
		}
	}
	return out
}

// keeps reports whether the plan declares the resource and does not delete
// it: it is meant to exist after the apply.
func (p *Prepared) keeps(key string) bool {
	p.keptOnce.Do(func() {
		p.kept = map[string]bool{}
		for _, it := range p.items {
			if it.res != nil && it.planned.Action != plan.ActionDelete {
				p.kept[it.key] = true
			}
		}
	})
	return p.kept[key]
}
