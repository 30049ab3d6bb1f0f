package apply

import (
	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// reviewOf is what a reviewer must check about a declared resource beyond
// its changes: for a role assignment its role, principal and scope, as the
// manifest gives them (an expression when known only after apply, so a
// ${guid:...} name does not hide them).
func reviewOf(r *manifest.Resource) []plan.ReviewItem {
	if r == nil {
		return nil
	}
	role, principal, scope, ok := r.RoleAssignment()
	if !ok {
		return nil
	}
	return plan.RoleAssignmentReview(armid.Printable(role), principal, armid.Printable(scope))
}

// deferredNameChanges is the change list of a create whose name is known
// only after apply: the whole-resource placeholder first, then every owned
// property the diff found (values known after apply marked so), so a
// reviewer sees what will be written although the ID is not known yet.
func deferredNameChanges(placeholder plan.Change, changes []plan.Change) []plan.Change {
	out := make([]plan.Change, 0, len(changes)+1)
	out = append(out, placeholder)
	for _, c := range changes {
		if c.Path == "" {
			continue
		}
		c.Kind, c.Before = plan.KindAdd, nil
		out = append(out, c)
	}
	return out
}
