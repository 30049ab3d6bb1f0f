package emulator

import "testing"

// Every virtual hub has the route tables defaultRouteTable and
// noneRouteTable, which connections name in their routingConfiguration
// without a template declaring them (Microsoft Learn "About virtual hub
// routing": Default and None route tables; the quickstart
// virtual-wan-with-all-gateways points its P2S gateways at
// hubRouteTables/defaultRouteTable).
func TestVirtualHubDefaultRouteTables(t *testing.T) {
	u, g := startWithGroup(t, "rg-hub-rt")
	pv := u + g + "/providers/Microsoft.Network/"
	put(t, pv+"virtualWans/wan?api-version=2023-04-01", map[string]any{"location": "westeurope", "properties": map[string]any{}})
	put(t, pv+"virtualHubs/hub?api-version=2023-04-01", map[string]any{"location": "westeurope", "properties": map[string]any{
		"addressPrefix": "10.10.0.0/24", "virtualWan": map[string]any{"id": g + "/providers/Microsoft.Network/virtualWans/wan"}}})
	put(t, pv+"virtualNetworks/spoke?api-version=2023-04-01", map[string]any{"location": "westeurope", "properties": map[string]any{
		"addressSpace": map[string]any{"addressPrefixes": []any{"10.20.0.0/16"}}}})
	hub := g + "/providers/Microsoft.Network/virtualHubs/hub"
	conn := func(table string) resp {
		return do(t, "PUT", pv+"virtualHubs/hub/hubVirtualNetworkConnections/c?api-version=2023-04-01", map[string]any{"properties": map[string]any{
			"remoteVirtualNetwork": map[string]any{"id": g + "/providers/Microsoft.Network/virtualNetworks/spoke"},
			"routingConfiguration": map[string]any{
				"associatedRouteTable":  map[string]any{"id": hub + "/hubRouteTables/" + table},
				"propagatedRouteTables": map[string]any{"ids": []any{map[string]any{"id": hub + "/hubRouteTables/noneRouteTable"}}}}}})
	}
	if r := conn("defaultRouteTable"); r.Status >= 300 {
		t.Errorf("the hub's defaultRouteTable taken for missing: %d %s", r.Status, r.Raw)
	}
	if r := conn("mine"); errCode(r) != "InvalidResourceReference" {
		t.Errorf("a route table never created: %d %s", r.Status, r.Raw)
	}
}

// An Enterprise plan's build service comes with the builder "default"
// (Microsoft Learn "Use Tanzu Build Service": the default builder), under
// which templates bind buildpacks without declaring it (the quickstart
// microservice-apps-enterprise-plan).
func TestSpringDefaultBuilder(t *testing.T) {
	u, g := startWithGroup(t, "rg-spring-b")
	asa := u + g + "/providers/Microsoft.AppPlatform/Spring/asa1"
	put(t, asa+"?api-version=2023-05-01-preview", map[string]any{"location": "westeurope", "sku": map[string]any{"name": "E0", "tier": "Enterprise"}, "properties": map[string]any{}})
	put(t, asa+"/buildServices/default?api-version=2023-05-01-preview", map[string]any{"properties": map[string]any{}})
	bind := func(builder string) resp {
		return do(t, "PUT", asa+"/buildServices/default/builders/"+builder+"/buildpackBindings/default?api-version=2023-05-01-preview",
			map[string]any{"properties": map[string]any{"bindingType": "ApplicationInsights"}})
	}
	if r := bind("default"); r.Status >= 300 {
		t.Errorf("a binding under the default builder: %d %s", r.Status, r.Raw)
	}
	if r := bind("mine"); errCode(r) != "ParentResourceNotFound" {
		t.Errorf("a binding under a builder never created: %d %s", r.Status, r.Raw)
	}
}

// A Machine Learning asset version is written without its container: the
// service makes the container with the first version (azure-ai-ml's
// data, model, environment, code and component create_or_update call the
// *Versions operation only; the quickstart
// machine-learning-dataversion-create-from-file-uri declares
// workspaces/data/versions alone).
func TestMachineLearningVersionWithoutContainer(t *testing.T) {
	u, g := startWithGroup(t, "rg-ml-ver")
	ws := u + g + "/providers/Microsoft.MachineLearningServices/workspaces/ws1"
	put(t, ws+"?api-version=2023-04-01", map[string]any{"location": "westeurope", "identity": map[string]any{"type": "SystemAssigned"}, "properties": map[string]any{}})
	r := do(t, "PUT", ws+"/data/d1/versions/1?api-version=2023-04-01", map[string]any{"properties": map[string]any{"dataType": "uri_file", "dataUri": "https://example.org/a.csv"}})
	if r.Status >= 300 {
		t.Errorf("a data version without its container: %d %s", r.Status, r.Raw)
	}
	r = do(t, "PUT", u+g+"/providers/Microsoft.MachineLearningServices/workspaces/none/data/d1/versions/1?api-version=2023-04-01", map[string]any{"properties": map[string]any{"dataType": "uri_file", "dataUri": "https://example.org/a.csv"}})
	if errCode(r) != "ParentResourceNotFound" {
		t.Errorf("a data version in a workspace never created: %d %s", r.Status, r.Raw)
	}
}
