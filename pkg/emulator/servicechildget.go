package emulator

import (
	"net/http"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// serviceChildGet answers a GET of a child the service makes from its
// parent and that is no resource of its own here; ok is false when p is
// none of them. Today: a Logic App trigger, which "Workflow Triggers - Get"
// (Logic REST 2019-05-01: WorkflowTrigger) answers for every trigger the
// workflow's definition declares. Caller holds s.mu.
func (s *Server) serviceChildGet(p armid.Path) (reply, bool) {
	n := len(p.Types)
	if p.Kind != armid.PathResource || n != 2 || len(p.Names) != 2 ||
		!strings.EqualFold(p.Provider+"/"+strings.Join(p.Types, "/"), "Microsoft.Logic/workflows/triggers") {
		return reply{}, false
	}
	parentID := p.ParentID()
	wf := s.store.get(parentID)
	if wf == nil {
		return reply{}, false // the parent's own 404
	}
	want := p.Names[1]
	for name := range asMap(asMap(asMap(wf.Body["properties"])["definition"])["triggers"]) {
		if !strings.EqualFold(name, want) {
			continue
		}
		props := asMap(wf.Body["properties"])
		return ok(map[string]any{
			"id":   strings.TrimRight(wf.ID, "/") + "/triggers/" + name,
			"name": name,
			"type": "Microsoft.Logic/workflows/triggers",
			"properties": map[string]any{
				"provisioningState": "Succeeded",
				"state":             triggerState(props),
				"createdTime":       props["createdTime"],
				"changedTime":       props["changedTime"],
				"workflow":          map[string]any{"id": wf.ID, "name": lastSegment(wf.ID), "type": "Microsoft.Logic/workflows"},
			},
		}), true
	}
	return reply{err: newError(http.StatusNotFound, "WorkflowTriggerNotFound",
		"The workflow '%s' does not contain trigger '%s'.", lastSegment(wf.ID), want)}, true
}

// triggerState is the workflow's state, which its triggers share.
func triggerState(props map[string]any) string {
	if st := str0(props["state"]); st != "" {
		return st
	}
	return "Enabled"
}
