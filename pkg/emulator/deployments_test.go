package emulator

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// waitDeployment polls a deployment until it leaves Accepted/Running.
func waitDeployment(t *testing.T, url string) resp {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r := do(t, http.MethodGet, url, nil)
		st := str(r.Body, "properties", "provisioningState")
		if st != "Accepted" && st != "Running" {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("deployment still %s: %s", st, r.Raw)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestDeploymentDeploysItsResources(t *testing.T) {
	u, g := startWithGroup(t, "rg-deploy")
	tpl := map[string]any{
		"$schema":        "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
		"contentVersion": "1.0.0.0",
		"parameters": map[string]any{
			"prefix": map[string]any{"type": "string", "defaultValue": "demo"},
		},
		"variables": map[string]any{
			"vnetName": "[concat(parameters('prefix'), '-vnet')]",
		},
		"resources": []any{
			map[string]any{
				"type": "Microsoft.Network/virtualNetworks/subnets", "apiVersion": "2023-11-01",
				"name":       "[concat(variables('vnetName'), '/extra')]",
				"dependsOn":  []any{"[resourceId('Microsoft.Network/virtualNetworks', variables('vnetName'))]"},
				"properties": map[string]any{"addressPrefix": "10.1.1.0/24"},
			},
			map[string]any{
				"type": "Microsoft.Network/virtualNetworks", "apiVersion": "2023-11-01",
				"name": "[variables('vnetName')]", "location": "[resourceGroup().location]",
				"tags":       map[string]any{"env": "[parameters('prefix')]"},
				"properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"10.1.0.0/16"}}},
			},
		},
		"outputs": map[string]any{
			"vnetId": map[string]any{"type": "string", "value": "[resourceId('Microsoft.Network/virtualNetworks', variables('vnetName'))]"},
		},
	}
	dep := u + g + "/providers/Microsoft.Resources/deployments/main?api-version=2022-09-01"
	r := do(t, http.MethodPut, dep, map[string]any{"properties": map[string]any{
		"mode": "Incremental", "template": tpl, "parameters": map[string]any{"prefix": map[string]any{"value": "app"}},
	}})
	if r.Status != http.StatusCreated || str(r.Body, "properties", "provisioningState") != "Accepted" {
		t.Fatalf("PUT deployment: %d %s", r.Status, r.Raw)
	}
	done := waitDeployment(t, dep)
	if st := str(done.Body, "properties", "provisioningState"); st != "Succeeded" {
		t.Fatalf("deployment %s: %s", st, done.Raw)
	}
	vnetID := g + "/providers/Microsoft.Network/virtualNetworks/app-vnet"
	outs, _ := done.Body["properties"].(map[string]any)["outputs"].(map[string]any)
	if v, _ := outs["vnetId"].(map[string]any); v["value"] != vnetID || v["type"] != "String" {
		t.Errorf("outputs: %v", outs)
	}
	ors, _ := done.Body["properties"].(map[string]any)["outputResources"].([]any)
	if len(ors) != 2 {
		t.Errorf("outputResources: %v", ors)
	}
	// The resources exist, written in dependency order, with the template's values.
	vnet := do(t, http.MethodGet, u+vnetID+"?api-version=2023-11-01", nil)
	if vnet.Status != http.StatusOK || str(vnet.Body, "tags", "env") != "app" || str(vnet.Body, "location") != "westeurope" {
		t.Fatalf("vnet: %d %s", vnet.Status, vnet.Raw)
	}
	if sn := do(t, http.MethodGet, u+vnetID+"/subnets/extra?api-version=2023-11-01", nil); sn.Status != http.StatusOK {
		t.Errorf("subnet: %d %s", sn.Status, sn.Raw)
	}
}

func TestDeploymentFailuresAnswerAsARM(t *testing.T) {
	u, g := startWithGroup(t, "rg-deploy-bad")
	base := u + g + "/providers/Microsoft.Resources/deployments/"
	q := "?api-version=2022-09-01"
	tpl := func(resources ...any) map[string]any {
		return map[string]any{"$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
			"contentVersion": "1.0.0.0", "resources": resources}
	}
	// A template that does not evaluate is refused at once.
	r := do(t, http.MethodPut, base+"bad"+q, map[string]any{"properties": map[string]any{"mode": "Incremental",
		"template": tpl(map[string]any{"type": "Microsoft.Network/virtualNetworks", "apiVersion": "2023-11-01", "name": "[parameters('missing')]", "location": "westeurope"})}})
	if errCode(r) != "InvalidTemplate" {
		t.Errorf("a parameter the template lacks: %d %s", r.Status, r.Raw)
	}
	// One the emulator cannot evaluate (a value only a deployment has) is
	// taken, as ARM takes it, and then fails saying why: never refused as
	// wrong, never reported as deployed.
	r = do(t, http.MethodPut, base+"beyond"+q, map[string]any{"properties": map[string]any{"mode": "Incremental",
		"template": tpl(map[string]any{"type": "Microsoft.Network/virtualNetworks", "apiVersion": "2023-11-01", "name": "[nosuchfunction()]", "location": "westeurope"})}})
	if r.Status != http.StatusCreated {
		t.Fatalf("a template beyond the emulator: %d %s", r.Status, r.Raw)
	}
	if d := waitDeployment(t, base+"beyond"+q); str(d.Body, "properties", "provisioningState") != "Failed" || !strings.Contains(d.Raw, "EmulatorCannotEvaluate") {
		t.Errorf("a template beyond the emulator: %s", d.Raw)
	}
	if r := do(t, http.MethodPut, base+"linked"+q, map[string]any{"properties": map[string]any{"mode": "Incremental",
		"templateLink": map[string]any{"uri": "https://example.invalid/t.json"}}}); errCode(r) != "InvalidTemplate" || !strings.Contains(r.Raw, "linked") {
		t.Errorf("linked template: %d %s", r.Status, r.Raw)
	}
	// A resource ARM refuses fails the deployment with DeploymentFailed.
	r = do(t, http.MethodPut, base+"refused"+q, map[string]any{"properties": map[string]any{"mode": "Incremental",
		"template": tpl(map[string]any{"type": "Microsoft.Network/virtualNetworks", "apiVersion": "2023-11-01", "name": "v", "location": "westeurope",
			"properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}},
				"subnets": []any{map[string]any{"name": "out", "properties": map[string]any{"addressPrefix": "10.9.0.0/24"}}}}})}})
	if r.Status != http.StatusCreated {
		t.Fatalf("PUT: %d %s", r.Status, r.Raw)
	}
	done := waitDeployment(t, base+"refused"+q)
	e, _ := done.Body["properties"].(map[string]any)["error"].(map[string]any)
	if str(done.Body, "properties", "provisioningState") != "Failed" || e["code"] != "DeploymentFailed" || !strings.Contains(done.Raw, "NetcfgSubnetRangeOutsideVnet") {
		t.Errorf("failed deployment: %s", done.Raw)
	}
	// validate evaluates without deploying.
	if r := do(t, http.MethodPost, base+"v/validate"+q, map[string]any{"properties": map[string]any{"mode": "Incremental",
		"template": tpl(map[string]any{"type": "Microsoft.Network/virtualNetworks", "apiVersion": "2023-11-01", "name": "[parameters('missing')]", "location": "westeurope"})}}); errCode(r) != "InvalidTemplate" {
		t.Errorf("validate: %d %s", r.Status, r.Raw)
	}
}

// The body azure-cli 2.45 sends for `az deployment group create -f FILE`:
// the file's text spliced in after a bare key, comments and all.
func TestLenientJSONReadsWhatTheAzureCLISends(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"properties": {"mode": "Incremental", template:{
  // a comment
  "a": "x // not a comment", /* block */ "b": 1}}}`, `{"properties":{"mode":"Incremental","template":{"a":"x // not a comment","b":1}}}`},
		{`{ key : "v", "s": "with \" quote, k: 1" }`, `{"key":"v","s":"with \" quote, k: 1"}`},
		{`{"a": [true, false, null]}`, `{"a":[true,false,null]}`},
	}
	for _, c := range cases {
		got, err := decodeBody(lenientJSON([]byte(c.in)))
		if err != nil {
			t.Fatalf("%s: %v (rewritten: %s)", c.in, err, lenientJSON([]byte(c.in)))
		}
		want, _ := decodeBody([]byte(c.want))
		if g, w := mustJSON(t, got), mustJSON(t, want); g != w {
			t.Errorf("%s:\n got %s\nwant %s", c.in, g, w)
		}
	}
	// Strict JSON passes through unchanged.
	strict := `{"a": {"b": "c"}, "d": [1, 2]}`
	if got := string(lenientJSON([]byte(strict))); got != strict {
		t.Errorf("strict JSON rewritten: %s", got)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
