package emulator

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// The Microsoft.Resources/tags extension resource ({scope}/providers/
// Microsoft.Resources/tags/default) is the tag set of its scope: GET
// reads it, PUT replaces it, PATCH merges, replaces or deletes with
// {"operation": …}, DELETE removes every tag. Source: ARM REST reference
// "Tags - Get At Scope / Create Or Update At Scope / Update At Scope /
// Delete At Scope" (Microsoft.Resources 2021-04-01). Caller holds s.mu.
func (s *Server) serveTagsResource(r *http.Request, p armid.Path, body map[string]any) (reply, bool) {
	if p.Kind != armid.PathResource || !strings.EqualFold(p.Type(), "Microsoft.Resources/tags") || p.Scope == "" {
		return reply{}, false
	}
	scope := p.Scope
	sp, _ := armid.ParsePath(scope)
	var target *resource
	var tags map[string]any
	if sp.Kind == armid.PathSubscription {
		tags = s.subTags[strings.ToLower(sp.Subscription)]
	} else {
		target = s.store.get(scope)
		if target == nil {
			return reply{err: s.notFound(sp)}, true
		}
		tags, _ = target.Body["tags"].(map[string]any)
	}
	out := func(t map[string]any) reply {
		if t == nil {
			t = map[string]any{}
		}
		return ok200(map[string]any{"id": scope + "/providers/Microsoft.Resources/tags/default", "name": "default",
			"type": "Microsoft.Resources/tags", "properties": map[string]any{"tags": deepCopy(t)}})
	}
	if !strings.EqualFold(p.Name(), "default") {
		return reply{err: newError(http.StatusBadRequest, "InvalidResourceName", "The tags resource is named 'default', not '%s'.", p.Name())}, true
	}
	set := func(t map[string]any) *armError {
		if err := checkTags(map[string]any{"tags": t}); err != nil {
			return err
		}
		if r.Method != http.MethodGet {
			if err := s.checkLocks(scope, lockOpWrite); err != nil {
				return err
			}
		}
		if target == nil {
			s.subTags[strings.ToLower(sp.Subscription)] = t
			return nil
		}
		target.Body["tags"] = t
		target.Changed = s.now()
		return nil
	}
	switch r.Method {
	case http.MethodGet:
		return out(tags), true
	case http.MethodPut:
		t := asMap(asMap(body["properties"])["tags"])
		if t == nil {
			t = map[string]any{}
		}
		if err := set(deepCopy(t)); err != nil {
			return reply{err: err}, true
		}
		return out(t), true
	case http.MethodPatch:
		in := asMap(asMap(body["properties"])["tags"])
		next := map[string]any{}
		for k, v := range tags {
			next[k] = v
		}
		switch op, _ := body["operation"].(string); strings.ToLower(op) {
		case "merge":
			for k, v := range in {
				next[k] = deepCopy(v)
			}
		case "replace":
			next = deepCopy(in)
			if next == nil {
				next = map[string]any{}
			}
		case "delete":
			for k, v := range in {
				if cur, ok := next[k]; ok && (v == nil || v == "" || v == cur) {
					delete(next, k)
				}
			}
		default:
			return reply{err: newError(http.StatusBadRequest, "InvalidRequestContent",
				"The tags PATCH needs \"operation\": \"Merge\", \"Replace\" or \"Delete\" (got %q).", fmt.Sprint(body["operation"]))}, true
		}
		if err := set(next); err != nil {
			return reply{err: err}, true
		}
		return out(next), true
	case http.MethodDelete:
		if err := set(map[string]any{}); err != nil {
			return reply{err: err}, true
		}
		return reply{status: http.StatusOK}, true
	}
	return methodNotAllowed(r.Method), true
}
