package emulator

import (
	"net/http"
	"strings"
	"testing"
)

// Actions on children the service makes with their parent answer from the
// parent (Logic Apps "Workflow Triggers - List Callback Url", Web Apps
// "List Host Keys", IoT Hub "Get Keys For Key Name"), and say not found
// for a trigger, host or key the parent lacks.
func TestServiceChildActions(t *testing.T) {
	u, g := startWithGroup(t, "svcchild")
	wf := g + "/providers/Microsoft.Logic/workflows/wf1"
	do(t, http.MethodPut, u+wf+"?api-version=2019-05-01", map[string]any{"location": "westeurope", "properties": map[string]any{
		"definition": map[string]any{"triggers": map[string]any{"manual": map[string]any{"type": "Request", "kind": "Http"}}}}})
	r := do(t, http.MethodPost, u+wf+"/triggers/manual/listCallbackUrl?api-version=2019-05-01", nil)
	if r.Status != 200 || !strings.Contains(str0(r.Body["value"]), "/triggers/manual/paths/invoke?") || str0(asMap(r.Body["queries"])["sig"]) == "" {
		t.Errorf("trigger callback: %d %s", r.Status, r.Raw)
	}
	if r := do(t, http.MethodPost, u+wf+"/triggers/other/listCallbackUrl?api-version=2019-05-01", nil); r.Status != 404 || errCode(r) != "WorkflowTriggerNotFound" {
		t.Errorf("a trigger the definition lacks: %d %s", r.Status, r.Raw)
	}

	site := g + "/providers/Microsoft.Web/sites/fn1"
	do(t, http.MethodPut, u+site+"?api-version=2023-12-01", map[string]any{"location": "westeurope", "kind": "functionapp", "properties": map[string]any{}})
	r = do(t, http.MethodPost, u+site+"/host/default/listKeys?api-version=2023-12-01", nil)
	if r.Status != 200 || str0(r.Body["masterKey"]) == "" || str0(asMap(r.Body["functionKeys"])["default"]) == "" {
		t.Errorf("host keys: %d %s", r.Status, r.Raw)
	}

	hub := g + "/providers/Microsoft.Devices/IotHubs/hub1"
	do(t, http.MethodPut, u+hub+"?api-version=2023-06-30", map[string]any{"location": "westeurope", "sku": map[string]any{"name": "S1", "capacity": 1}, "properties": map[string]any{}})
	r = do(t, http.MethodPost, u+hub+"/IotHubKeys/iothubowner/listkeys?api-version=2023-06-30", nil)
	if r.Status != 200 || str0(r.Body["keyName"]) != "iothubowner" || str0(r.Body["primaryKey"]) == "" {
		t.Errorf("hub key: %d %s", r.Status, r.Raw)
	}
	if r := do(t, http.MethodPost, u+g+"/providers/Microsoft.Logic/workflows/none/triggers/manual/listCallbackUrl?api-version=2019-05-01", nil); r.Status != 404 {
		t.Errorf("a trigger of a workflow that does not exist: %d %s", r.Status, r.Raw)
	}
}

// A dashboard part's inputs are any JSON the portal stores as given: an
// ID there names what a tile shows, and a missing resource is the tile's
// problem, not a refused write. A reference where the spec declares an
// ID is still checked.
func TestIDsInsideAnyJSONAreNotReferences(t *testing.T) {
	u, g := startWithGroup(t, "dash")
	gone := g + "/providers/Microsoft.Insights/components/gone"
	body := map[string]any{"location": "westeurope", "properties": map[string]any{"lenses": []any{map[string]any{"order": 0, "parts": []any{
		map[string]any{"position": map[string]any{"x": 0, "y": 0, "colSpan": 2, "rowSpan": 1},
			"metadata": map[string]any{"type": "Extension/HubsExtension/PartType/MarkdownPart",
				"inputs": []any{map[string]any{"name": "id", "value": map[string]any{"resourceMetadata": map[string]any{"id": gone}}}}}}}}}}}
	if r := do(t, http.MethodPut, u+g+"/providers/Microsoft.Portal/dashboards/d1?api-version=2020-09-01-preview", body); r.Status >= 300 {
		t.Errorf("a dashboard naming a missing component in a part's inputs: %d %s", r.Status, r.Raw)
	}
	nic := map[string]any{"location": "westeurope", "properties": map[string]any{"networkSecurityGroup": map[string]any{"id": g + "/providers/Microsoft.Network/networkSecurityGroups/gone"},
		"ipConfigurations": []any{}}}
	if r := do(t, http.MethodPut, u+g+"/providers/Microsoft.Network/networkInterfaces/n1?api-version=2023-09-01", nic); r.Status != 400 || errCode(r) != "InvalidResourceReference" {
		t.Errorf("a NIC naming a missing NSG: %d %s, want 400 InvalidResourceReference", r.Status, r.Raw)
	}
}
