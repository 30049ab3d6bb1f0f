package emulator

import (
	"net/http"
	"sort"
	"strings"
)

// Built-in role definitions are readable at every scope, as ARM serves
// them: GET {scope}/providers/Microsoft.Authorization/roleDefinitions/{id}
// and the list at a scope (with $filter=roleName eq '…' or type eq
// 'BuiltInRole'), alongside the custom ones clients wrote. Source: ARM
// REST "Role Definitions - Get / List" (RoleDefinition: roleName, type
// BuiltInRole|CustomRole, assignableScopes "/", permissions); IDs and
// names from Microsoft Learn "Azure built-in roles". Caller holds s.mu.
func (s *Server) serveBuiltinRoles(r *http.Request, p armPath) (reply, bool) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return reply{}, false
	}
	if !strings.EqualFold(p.Namespace, "Microsoft.Authorization") || len(p.Types) != 1 || !strings.EqualFold(p.Types[0], "roleDefinitions") {
		return reply{}, false
	}
	switch p.Kind {
	case kindResource:
		g := strings.ToLower(p.Name())
		name, ok := builtinRoles[g]
		if !ok || s.store.get(p.Raw) != nil {
			return reply{}, false
		}
		return ok200(builtinRoleBody(p.Sub, g, name)), true
	case kindCollection:
		var items []any
		gs := make([]string, 0, len(builtinRoles))
		for g := range builtinRoles {
			gs = append(gs, g)
		}
		sort.Strings(gs)
		for _, g := range gs {
			items = append(items, builtinRoleBody(p.Sub, g, builtinRoles[g]))
		}
		for _, c := range s.store.children(p.ParentID(), p.Type()) {
			items = append(items, withEnvelope(c))
		}
		return s.page(r, items), true
	}
	return reply{}, false
}

func builtinRoleBody(sub, g, name string) map[string]any {
	id := "/providers/Microsoft.Authorization/roleDefinitions/" + g
	if sub != "" {
		id = "/subscriptions/" + sub + id
	}
	actions, notActions := []any{}, []any{}
	switch name {
	case "Owner":
		actions = []any{"*"}
	case "Contributor":
		actions = []any{"*"}
		notActions = []any{"Microsoft.Authorization/*/Delete", "Microsoft.Authorization/*/Write", "Microsoft.Authorization/elevateAccess/Action"}
	case "Reader":
		actions = []any{"*/read"}
	}
	return map[string]any{
		"id": id, "name": g, "type": "Microsoft.Authorization/roleDefinitions",
		"properties": map[string]any{
			"roleName": name, "type": "BuiltInRole", "description": name + " (built-in role)",
			"assignableScopes": []any{"/"},
			"permissions":      []any{map[string]any{"actions": actions, "notActions": notActions, "dataActions": []any{}, "notDataActions": []any{}}},
		},
	}
}
