package emulator

import (
	"net/http"
	"strings"
	"testing"
)

// readingTemplate is a template whose resources read each other: the
// network is declared first and reads the storage account, with no
// dependsOn, by its ID and by its name alone; an output reads it too.
// ARM deploys the account first and evaluates the network's values from
// the deployed account ("reference": "If the referenced resource is
// provisioned within the same template ... the referenced resource is
// deployed first", Template functions - resources, ARM template
// reference).
func readingTemplate() map[string]any {
	st := "[resourceId('Microsoft.Storage/storageAccounts', 'streads1')]"
	return map[string]any{
		"$schema":        "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
		"contentVersion": "1.0.0.0",
		"resources": []any{
			map[string]any{
				"type": "Microsoft.Network/virtualNetworks", "apiVersion": "2023-11-01", "name": "vnet-reads", "location": "[resourceGroup().location]",
				"tags": map[string]any{
					"blob": "[reference(" + st[1:len(st)-1] + ", '2023-05-01').primaryEndpoints.blob]",
					"sku":  "[reference('streads1', '2023-05-01', 'Full').sku.name]",
					"keys": "[string(length(listKeys(" + st[1:len(st)-1] + ", '2023-05-01').keys))]",
				},
				"properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"10.3.0.0/16"}}},
			},
			map[string]any{
				"type": "Microsoft.Storage/storageAccounts", "apiVersion": "2023-05-01", "name": "streads1",
				"location": "[resourceGroup().location]", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"},
			},
		},
		"outputs": map[string]any{
			"blob": map[string]any{"type": "string", "value": "[reference(" + st[1:len(st)-1] + ", '2023-05-01').primaryEndpoints.blob]"},
		},
	}
}

func TestDeploymentEvaluatesReadsAfterWhatTheyRead(t *testing.T) {
	u, g := startWithGroup(t, "rg-reads")
	dep := u + g + "/providers/Microsoft.Resources/deployments/reads?api-version=2022-09-01"
	body := map[string]any{"properties": map[string]any{"mode": "Incremental", "template": readingTemplate()}}
	// validate takes the template: its reads are of resources it deploys.
	if r := do(t, http.MethodPost, u+g+"/providers/Microsoft.Resources/deployments/reads/validate?api-version=2022-09-01", body); r.Status != http.StatusOK {
		t.Fatalf("validate: %d %s", r.Status, r.Raw)
	}
	if r := do(t, http.MethodPut, dep, body); r.Status != http.StatusCreated {
		t.Fatalf("PUT deployment: %d %s", r.Status, r.Raw)
	}
	done := waitDeployment(t, dep)
	if st := str(done.Body, "properties", "provisioningState"); st != "Succeeded" {
		t.Fatalf("deployment %s: %s", st, done.Raw)
	}
	st := do(t, http.MethodGet, u+g+"/providers/Microsoft.Storage/storageAccounts/streads1?api-version=2023-05-01", nil)
	blob := str(st.Body, "properties", "primaryEndpoints", "blob")
	if !strings.Contains(blob, "streads1.blob.") {
		t.Fatalf("storage account: %d %s", st.Status, st.Raw)
	}
	vnet := do(t, http.MethodGet, u+g+"/providers/Microsoft.Network/virtualNetworks/vnet-reads?api-version=2023-11-01", nil)
	if str(vnet.Body, "tags", "blob") != blob || str(vnet.Body, "tags", "sku") != "Standard_LRS" || str(vnet.Body, "tags", "keys") != "2" {
		t.Errorf("the network's values read from the deployed account: %s", vnet.Raw)
	}
	outs, _ := done.Body["properties"].(map[string]any)["outputs"].(map[string]any)
	if v, _ := outs["blob"].(map[string]any); v["value"] != blob {
		t.Errorf("outputs: %v", outs)
	}
	// The account was made before the network that reads it.
	ors, _ := done.Body["properties"].(map[string]any)["outputResources"].([]any)
	if len(ors) != 2 || !strings.Contains(mustJSON(t, ors[0]), "streads1") {
		t.Errorf("outputResources: %v", ors)
	}
}

// A read of a resource the template neither deploys nor finds fails the
// deployment with ARM's ResourceNotFound in DeploymentFailed's details;
// resources that read each other in a circle fail it as ARM's
// "Circular dependency detected" does.
func TestDeploymentReadsThatCannotBeAnswered(t *testing.T) {
	u, g := startWithGroup(t, "rg-reads-bad")
	base := u + g + "/providers/Microsoft.Resources/deployments/"
	q := "?api-version=2022-09-01"
	vnet := func(name, reads string) map[string]any {
		return map[string]any{"type": "Microsoft.Network/virtualNetworks", "apiVersion": "2023-11-01", "name": name, "location": "westeurope",
			"tags":       map[string]any{"r": "[reference(resourceId('Microsoft.Network/virtualNetworks', '" + reads + "'), '2023-11-01').resourceGuid]"},
			"properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"10.4.0.0/16"}}}}
	}
	tpl := func(resources ...any) map[string]any {
		return map[string]any{"properties": map[string]any{"mode": "Incremental", "template": map[string]any{
			"$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#", "contentVersion": "1.0.0.0", "resources": resources}}}
	}
	for _, c := range []struct {
		name      string
		body      map[string]any
		code      string
		resources int
	}{
		{"missing", tpl(vnet("a", "nowhere")), "ResourceNotFound", 0},
		{"circle", tpl(vnet("a", "b"), vnet("b", "a")), "Circular dependency", 0},
	} {
		if r := do(t, http.MethodPut, base+c.name+q, c.body); r.Status != http.StatusCreated {
			t.Fatalf("%s: PUT %d %s", c.name, r.Status, r.Raw)
		}
		d := waitDeployment(t, base+c.name+q)
		e, _ := d.Body["properties"].(map[string]any)["error"].(map[string]any)
		if str(d.Body, "properties", "provisioningState") != "Failed" || e["code"] != "DeploymentFailed" || !strings.Contains(d.Raw, c.code) {
			t.Errorf("%s: %s", c.name, d.Raw)
		}
		if ors, _ := d.Body["properties"].(map[string]any)["outputResources"].([]any); len(ors) != c.resources {
			t.Errorf("%s: outputResources %v", c.name, ors)
		}
	}
}
