package emulator

import (
	"net/http"
	"sort"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// Built-in role definitions are readable at every scope, as ARM serves
// them: GET {scope}/providers/Microsoft.Authorization/roleDefinitions/{id}
// and the list at a scope (with $filter=roleName eq '…' or type eq
// 'BuiltInRole'), alongside the custom ones clients wrote. Source: ARM
// REST "Role Definitions - Get / List" (RoleDefinition: roleName, type
// BuiltInRole|CustomRole, assignableScopes "/", permissions); IDs and
// names from Microsoft Learn "Azure built-in roles". Caller holds s.mu.
func (s *Server) serveBuiltinRoles(r *http.Request, p armid.Path) (reply, bool) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return reply{}, false
	}
	if !strings.EqualFold(p.Provider, "Microsoft.Authorization") || len(p.Types) != 1 || !strings.EqualFold(p.Types[0], "roleDefinitions") {
		return reply{}, false
	}
	switch p.Kind {
	case armid.PathResource:
		g := strings.ToLower(p.Name())
		name, ok := armid.BuiltinRole(g)
		if !ok || s.store.get(p.Raw) != nil {
			return reply{}, false
		}
		return ok200(builtinRoleBody(p.Subscription, g, name)), true
	case armid.PathCollection:
		var items []any
		for _, g := range armid.BuiltinRoleIDs() {
			name, _ := armid.BuiltinRole(g)
			items = append(items, builtinRoleBody(p.Subscription, g, name))
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

// builtinPolicies are a few of Azure's built-in policy definitions, read at
// /providers/Microsoft.Authorization/policyDefinitions/{name} and listed
// there with policyType BuiltIn. Source: Microsoft Learn "Azure Policy
// built-in policy definitions" (names are the same GUIDs in every tenant).
var builtinPolicies = map[string]struct{ name, mode, category, effect string }{
	"e56962a6-4747-49cd-b67b-bf8b01975c4c": {"Allowed locations", "Indexed", "General", "deny"},
	"e765b5de-1225-4ba3-bd56-1ac6695af988": {"Allowed locations for resource groups", "All", "General", "deny"},
	"a08ec900-254a-4555-9bf5-e42af04b5c5c": {"Allowed resource types", "Indexed", "General", "deny"},
	"6c112d4e-5bc7-47ae-a041-ea2d9dccd749": {"Not allowed resource types", "All", "General", "Deny"},
	"871b6d14-10aa-478d-b590-94f262ecfa99": {"Require a tag on resources", "Indexed", "Tags", "deny"},
	"1e30110a-5ceb-460c-a204-c1c3969c6d62": {"Require a tag and its value on resources", "Indexed", "Tags", "deny"},
	"cd3aa116-8754-49c9-a813-ad46512ece54": {"Inherit a tag from the resource group", "Indexed", "Tags", "modify"},
}

// serveBuiltinPolicies answers GET of a built-in policy definition and the
// tenant-level list. Caller holds s.mu.
func (s *Server) serveBuiltinPolicies(r *http.Request, p armid.Path) (reply, bool) {
	if (r.Method != http.MethodGet && r.Method != http.MethodHead) || p.Subscription != "" || p.Scope != "" ||
		!strings.EqualFold(p.Provider, "Microsoft.Authorization") || len(p.Types) != 1 || !strings.EqualFold(p.Types[0], "policyDefinitions") {
		return reply{}, false
	}
	body := func(g string) map[string]any {
		d := builtinPolicies[g]
		return map[string]any{
			"id": "/providers/Microsoft.Authorization/policyDefinitions/" + g, "name": g, "type": "Microsoft.Authorization/policyDefinitions",
			"properties": map[string]any{
				"displayName": d.name, "policyType": "BuiltIn", "mode": d.mode,
				"metadata":   map[string]any{"category": d.category, "version": "1.0.0"},
				"parameters": map[string]any{},
				"policyRule": map[string]any{"if": map[string]any{"field": "type", "exists": "true"}, "then": map[string]any{"effect": d.effect}},
			},
		}
	}
	switch p.Kind {
	case armid.PathResource:
		g := strings.ToLower(p.Name())
		if _, ok := builtinPolicies[g]; !ok || s.store.get(p.Raw) != nil {
			return reply{}, false
		}
		return ok200(body(g)), true
	case armid.PathCollection:
		gs := make([]string, 0, len(builtinPolicies))
		for g := range builtinPolicies {
			gs = append(gs, g)
		}
		sort.Strings(gs)
		var items []any
		for _, g := range gs {
			items = append(items, body(g))
		}
		return s.page(r, items), true
	}
	return reply{}, false
}
