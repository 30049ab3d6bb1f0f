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
