package manifest

import (
	"fmt"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// RoleAssignment returns what a reviewer must check about a role
// assignment (Microsoft.Authorization/roleAssignments): the role
// definition ID, the principal ID and the scope, as the manifest resolved
// them. A value known only after apply is given as its expression
// (${ref:id-app.properties.principalId}), so a plan can name it even when
// the assignment's own name is known after apply. ok is false for any
// other type.
func (r *Resource) RoleAssignment() (role, principal, scope string, ok bool) {
	if !strings.EqualFold(r.Type, "Microsoft.Authorization/roleAssignments") {
		return "", "", "", false
	}
	value := func(field string) string {
		path := "properties." + field
		if d := r.Deferred[path]; d != nil {
			return d.Expr
		}
		props, _ := r.Body["properties"].(map[string]any)
		if v, present := props[field]; present && v != nil {
			return fmt.Sprint(v)
		}
		return ""
	}
	// The assignment is an extension resource: its scope is what it
	// extends. The loader only builds IDs that parse.
	scope = r.ID
	if id, err := armid.Parse(r.ID); err == nil {
		scope = id.Scope
	}
	if scope == "" {
		scope = "/" // the tenant root
	}
	return value("roleDefinitionId"), value("principalId"), scope, true
}
