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

// Azure Maps "Accounts - List Sas" answers an accountSasToken, one per
// body: another expiry is another token.
func TestMapsListSas(t *testing.T) {
	u, g := startWithGroup(t, "mapssas")
	acct := g + "/providers/Microsoft.Maps/accounts/map1"
	do(t, http.MethodPut, u+acct+"?api-version=2021-12-01-preview", map[string]any{"location": "global", "sku": map[string]any{"name": "G2"}, "kind": "Gen2", "properties": map[string]any{}})
	body := map[string]any{"signingKey": "primaryKey", "principalId": "p1", "maxRatePerSecond": 500, "expiry": "2030-01-01T00:00:00Z"}
	a := do(t, http.MethodPost, u+acct+"/listSas?api-version=2021-12-01-preview", body)
	b := do(t, http.MethodPost, u+acct+"/listSas?api-version=2021-12-01-preview", body)
	body["expiry"] = "2031-01-01T00:00:00Z"
	c := do(t, http.MethodPost, u+acct+"/listSas?api-version=2021-12-01-preview", body)
	if a.Status != 200 || str0(a.Body["accountSasToken"]) == "" || str0(a.Body["accountSasToken"]) != str0(b.Body["accountSasToken"]) || str0(c.Body["accountSasToken"]) == str0(a.Body["accountSasToken"]) {
		t.Errorf("list sas: %d %s / %s / %s", a.Status, a.Raw, b.Raw, c.Raw)
	}
}
