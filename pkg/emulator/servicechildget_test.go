package emulator

import (
	"net/http"
	"testing"
)

// A Logic App's triggers are read as Azure answers "Workflow Triggers -
// Get": one per trigger the definition declares, 404 for any other, and
// the parent's 404 when the workflow does not exist.
func TestServiceChildGet(t *testing.T) {
	u, g := startWithGroup(t, "svcget")
	wf := g + "/providers/Microsoft.Logic/workflows/wf1"
	do(t, http.MethodPut, u+wf+"?api-version=2019-05-01", map[string]any{"location": "westeurope", "properties": map[string]any{
		"definition": map[string]any{"triggers": map[string]any{"Manual": map[string]any{"type": "Request", "kind": "Http"}}}}})
	r := do(t, http.MethodGet, u+wf+"/triggers/manual?api-version=2019-05-01", nil)
	if r.Status != 200 || str0(r.Body["name"]) != "Manual" || str0(r.Body["type"]) != "Microsoft.Logic/workflows/triggers" ||
		str0(asMap(r.Body["properties"])["provisioningState"]) != "Succeeded" {
		t.Errorf("trigger: %d %s", r.Status, r.Raw)
	}
	if r := do(t, http.MethodGet, u+wf+"/triggers/other?api-version=2019-05-01", nil); r.Status != 404 || errCode(r) != "WorkflowTriggerNotFound" {
		t.Errorf("a trigger the definition lacks: %d %s", r.Status, r.Raw)
	}
	if r := do(t, http.MethodGet, u+g+"/providers/Microsoft.Logic/workflows/none/triggers/manual?api-version=2019-05-01", nil); r.Status != 404 || errCode(r) == "WorkflowTriggerNotFound" {
		t.Errorf("a trigger of a workflow that does not exist: %d %s", r.Status, r.Raw)
	}
}
