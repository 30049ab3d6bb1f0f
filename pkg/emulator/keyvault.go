package emulator

import (
	"net/http"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// PUT {vault}/accessPolicies/{add|replace|remove} is an operation on the
// vault's properties.accessPolicies, not a child resource: entries are
// matched by tenantId, objectId and applicationId; add unions the
// permissions of a matching entry (or appends it), replace sets them,
// remove takes the listed permissions away and drops an entry left with
// none. The answer echoes the request's policies under the operation's ID.
// Source: Key Vault management REST reference "Vaults - Update Access
// Policy" (operationKind add | replace | remove) and the spec's
// VaultAccessPolicyParameters. Caller holds s.mu.
func (s *Server) updateAccessPolicy(p armid.Path, apiVersion string, body map[string]any) (reply, bool) {
	if p.Kind != armid.PathResource || !strings.EqualFold(p.Type(), "Microsoft.KeyVault/vaults/accessPolicies") {
		return reply{}, false
	}
	op := strings.ToLower(p.Name())
	if op != "add" && op != "replace" && op != "remove" {
		return reply{err: newError(http.StatusBadRequest, "InvalidResourceName",
			"The access policy operation '%s' is invalid: use add, replace or remove.", p.Name())}, true
	}
	vault := s.store.get(p.ParentID())
	if vault == nil {
		pp, _ := armid.ParsePath(p.ParentID())
		return reply{err: s.notFound(pp)}, true
	}
	in, _ := asMap(body["properties"])["accessPolicies"].([]any)
	if in == nil {
		return reply{err: newError(http.StatusBadRequest, "InvalidRequestContent",
			"The request content was invalid: properties.accessPolicies (an array) is required.")}, true
	}
	props := asMap(vault.Body["properties"])
	if props == nil {
		props = map[string]any{}
		vault.Body["properties"] = props
	}
	cur, _ := props["accessPolicies"].([]any)
	cur = deepCopy(cur)
	key := func(e map[string]any) string {
		t, _ := e["tenantId"].(string)
		o, _ := e["objectId"].(string)
		a, _ := e["applicationId"].(string)
		return strings.ToLower(t + "|" + o + "|" + a)
	}
	for _, it := range in {
		e := asMap(it)
		if e == nil {
			continue
		}
		idx := -1
		for i, c := range cur {
			if key(asMap(c)) == key(e) {
				idx = i
				break
			}
		}
		switch op {
		case "add":
			if idx < 0 {
				cur = append(cur, deepCopy(e))
				continue
			}
			perms := asMap(asMap(cur[idx])["permissions"])
			if perms == nil {
				perms = map[string]any{}
				asMap(cur[idx])["permissions"] = perms
			}
			for kind, v := range asMap(e["permissions"]) {
				perms[kind] = unionFold(perms[kind], v)
			}
		case "replace":
			if idx < 0 {
				cur = append(cur, deepCopy(e))
			} else {
				cur[idx] = deepCopy(e)
			}
		case "remove":
			if idx < 0 {
				continue
			}
			perms := asMap(asMap(cur[idx])["permissions"])
			empty := true
			for kind, v := range perms {
				perms[kind] = minusFold(v, asMap(e["permissions"])[kind])
				if l, _ := perms[kind].([]any); len(l) > 0 {
					empty = false
				}
			}
			if empty {
				cur = append(cur[:idx], cur[idx+1:]...)
			}
		}
	}
	if cur == nil {
		cur = []any{}
	}
	props["accessPolicies"] = cur
	vault.Changed = s.now()
	if vault.Etag != "" {
		vault.Etag = `"` + newGUID() + `"`
		vault.Body["etag"] = vault.Etag
	}
	return ok200(map[string]any{
		"id": vault.ID + "/accessPolicies/" + op, "name": op, "type": "Microsoft.KeyVault/vaults/accessPolicies",
		"location": vault.Body["location"], "properties": map[string]any{"accessPolicies": deepCopy(in)},
	}), true
}

// unionFold adds the strings of b missing from a (case-insensitively).
func unionFold(a, b any) any {
	out, _ := deepCopy(a).([]any)
	bl, _ := b.([]any)
	for _, v := range bl {
		if !containsFold(out, v) {
			out = append(out, v)
		}
	}
	if out == nil {
		out = []any{}
	}
	return out
}

// minusFold removes b's strings from a (case-insensitively).
func minusFold(a, b any) any {
	al, _ := a.([]any)
	bl, _ := b.([]any)
	out := []any{}
	for _, v := range al {
		if !containsFold(bl, v) {
			out = append(out, v)
		}
	}
	return out
}

func containsFold(list []any, v any) bool {
	s, _ := v.(string)
	for _, x := range list {
		if xs, _ := x.(string); strings.EqualFold(xs, s) {
			return true
		}
	}
	return false
}
