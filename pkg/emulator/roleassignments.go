package emulator

import (
	"net/http"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// roleDefinitionGUID extracts the GUID of a role definition ID at any scope:
// /providers/…/roleDefinitions/G, /subscriptions/S/providers/…, or
// /subscriptions/S/resourceGroups/R/providers/… (what a template's
// resourceId() yields). ok is false for anything else.
func roleDefinitionGUID(id string) (string, bool) {
	const marker = "/providers/microsoft.authorization/roledefinitions/"
	i := strings.LastIndex(strings.ToLower(id), marker)
	if i < 0 {
		return "", false
	}
	g := id[i+len(marker):]
	return strings.ToLower(g), guidRE.MatchString(g)
}

// checkRoleAssignment applies ARM's role-assignment rules to a PUT and
// normalises the role definition ID to the subscription scope ARM answers
// with. Sources: Microsoft Learn "Troubleshoot Azure RBAC"
// (RoleAssignmentExists "The role assignment already exists.",
// RoleDefinitionDoesNotExist, RoleAssignmentUpdateNotPermitted "Tenant ID,
// application ID, principal ID, and scope are not allowed to be
// updated."); a role definition ID scoped to a resource group is accepted
// and answered subscription-scoped (role definitions live at the
// subscription or tenant). Caller holds s.mu.
func (s *Server) checkRoleAssignment(p armid.Path, body map[string]any, prev *resource) *armError {
	if !strings.EqualFold(p.Type(), "Microsoft.Authorization/roleAssignments") {
		return nil
	}
	if prev == nil {
		if err := validateName(p.Type(), p.Name()); err != nil {
			return err
		}
	}
	props := asMap(body["properties"])
	if props == nil {
		return nil
	}
	rd, _ := props["roleDefinitionId"].(string)
	principal, _ := props["principalId"].(string)
	if rd != "" {
		g, ok := roleDefinitionGUID(rd)
		if !ok {
			return newError(http.StatusBadRequest, "InvalidRoleDefinitionId",
				"The role definition ID '%s' is not valid. Use /subscriptions/{id}/providers/Microsoft.Authorization/roleDefinitions/{guid}.", rd)
		}
		if _, builtin := armid.BuiltinRole(g); !builtin && !s.customRoleExists(g) {
			return newError(http.StatusBadRequest, "RoleDefinitionDoesNotExist",
				"The specified role definition with ID '%s' does not exist.", g)
		}
		norm := "/providers/Microsoft.Authorization/roleDefinitions/" + g
		if p.Subscription != "" {
			norm = "/subscriptions/" + p.Subscription + norm
		}
		props["roleDefinitionId"] = norm
		rd = norm
	}
	if prev != nil {
		old := asMap(prev.Body["properties"])
		if op, _ := old["principalId"].(string); op != "" && principal != "" && !strings.EqualFold(op, principal) {
			return newError(http.StatusBadRequest, "RoleAssignmentUpdateNotPermitted",
				"Tenant ID, application ID, principal ID, and scope are not allowed to be updated.")
		}
		// Only the description and the condition of an assignment change in
		// place; another role is another assignment.
		ord, _ := old["roleDefinitionId"].(string)
		og, _ := roleDefinitionGUID(ord)
		if g, _ := roleDefinitionGUID(rd); og != "" && g != "" && og != g {
			return newError(http.StatusBadRequest, "RoleAssignmentUpdateNotPermitted",
				"The role definition of an existing role assignment cannot be changed; create another assignment instead.")
		}
		return nil
	}
	for _, r := range s.store.res {
		if !strings.EqualFold(r.Type, "Microsoft.Authorization/roleAssignments") || armid.Equal(r.ID, p.Raw) {
			continue
		}
		rp, ok := armid.ParsePath(r.ID)
		if !ok || !armid.Equal(rp.Scope, p.Scope) {
			continue
		}
		o := asMap(r.Body["properties"])
		ord, _ := o["roleDefinitionId"].(string)
		og, _ := roleDefinitionGUID(ord)
		g, _ := roleDefinitionGUID(rd)
		if op, _ := o["principalId"].(string); strings.EqualFold(op, principal) && og == g && g != "" {
			return newError(http.StatusConflict, "RoleAssignmentExists",
				"The role assignment already exists. The ID of the existing role assignment is %s.", rp.Name())
		}
	}
	return nil
}

// customRoleExists reports whether a role definition with this GUID was
// written or seeded. Caller holds s.mu.
func (s *Server) customRoleExists(g string) bool {
	for _, r := range s.store.res {
		if strings.EqualFold(r.Type, "Microsoft.Authorization/roleDefinitions") && strings.HasSuffix(armid.Key(r.ID), "/"+g) {
			return true
		}
	}
	return false
}

// noDelete lists types whose spec has no DELETE operation: ARM answers 405
// and the resource goes only with its parent. Source: the ARM Swagger
// (azure-rest-api-specs) paths of these types define GET and PUT (or
// PATCH) only.
