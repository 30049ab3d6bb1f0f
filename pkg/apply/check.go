package apply

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// Check refuses a plan that needs a permission the options do not grant.
// It runs before any write, so a refused plan writes nothing. Every refusal
// is reported at once, each with the flag (or edit) that lifts it.
func (e *Engine) Check(p *Prepared) error {
	var adopt, replace, unmanaged, protected, cascade, required []string
	prunes := 0
	for _, it := range p.items {
		a := it.planned.Action
		switch a {
		case plan.ActionAdopt:
			if !e.Options.Adopt {
				adopt = append(adopt, it.display())
			}
		case plan.ActionReplace:
			if !e.Options.AllowReplace {
				replace = append(replace, it.display())
			}
		case plan.ActionDelete:
			if it.record == nil && !e.Options.AllowDeleteUnmanaged {
				unmanaged = append(unmanaged, it.display())
			}
			if it.res == nil {
				prunes++
			}
		}
		if a == plan.ActionCreate || a == plan.ActionReplace {
			required = append(required, missingOnCreate(it)...)
		}
		if a != plan.ActionDelete && a != plan.ActionReplace {
			continue
		}
		if it.protected {
			protected = append(protected, it.display())
		}
		if !e.Options.AllowCascade {
			for _, c := range it.planned.Cascade {
				if !c.Managed {
					cascade = append(cascade, it.display()+" would also delete "+c.ID)
				}
			}
		}
	}
	var msgs []string
	add := func(list []string, format string) {
		if len(list) > 0 {
			msgs = append(msgs, fmt.Sprintf(format, len(list))+"\n  "+strings.Join(list, "\n  "))
		}
	}
	add(protected, "%d resource(s) are annotated azure.kubectl.io/prevent-destroy but the plan deletes or replaces them; nothing was written. Remove the annotation first if destroying them is intended, or revert the change that forces it:")
	add(required, "%d required propert(y/ies) missing from resources this plan creates; nothing was written. ARM would refuse the create: add them to the manifests:")
	add(adopt, "%d resource(s) exist in Azure but are not in state; nothing was written. Review the plan, then rerun with --adopt to take them over, or run `kubectl azure import` first:")
	add(replace, "%d resource(s) need replacing because a create-only property changed; nothing was written. Rerun with --allow-replace to delete and recreate them (their data is lost), or revert the change:")
	add(unmanaged, "%d resource(s) to delete were not applied by kubectl-azure (not in state); nothing was written. Rerun with --allow-delete-unmanaged if deleting them is intended:")
	add(cascade, "%d resource(s) no manifest or state manages would be deleted by ARM together with their parent; nothing was written. Review them, then rerun with --allow-cascade, or move them out first:")
	if e.Options.Prune && !e.Options.Interactive && !e.Options.AllowPruneAll && prunes > 0 && prunes >= p.setSize {
		msgs = append(msgs, fmt.Sprintf("--prune would delete all %d resource(s) of set %q; nothing was written. Check that -f/-k name the right manifests, then rerun with --allow-prune-all if emptying the set is intended", prunes, e.set()))
	}
	if len(msgs) > 0 {
		return errors.New(strings.Join(msgs, "\n"))
	}
	return nil
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
