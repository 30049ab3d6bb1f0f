package convert_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/convert"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
)

const schema = `"$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#"`

func convertText(t *testing.T, text string, s convert.Scope) (string, *convert.Result) {
	t.Helper()
	tmpl, err := convert.Parse("t.json", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if s.ResourceGroup == "" {
		s.ResourceGroup, s.Location = "rg-app", "westeurope"
	}
	res, err := tmpl.Convert(context.Background(), convert.Options{Scope: s})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := convert.Write(&buf, res.Manifests, "yaml"); err != nil {
		t.Fatal(err)
	}
	return buf.String(), res
}

func wantAll(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}

// TestNestedDeployment: a Bicep module (inner scope) is inlined with its
// parameters, its outputs feed the outer template, a telemetry deployment
// is dropped with a note.
func TestNestedDeployment(t *testing.T) {
	out, res := convertText(t, `{`+schema+`,
  "parameters": {"prefix": {"type": "string", "defaultValue": "demo"}},
  "resources": [
    {"type": "Microsoft.Resources/deployments", "apiVersion": "2022-09-01", "name": "pid-00000000-0000-0000-0000-000000000000",
     "properties": {"mode": "Incremental", "template": {`+schema+`, "resources": []}}},
    {"type": "Microsoft.Resources/deployments", "apiVersion": "2022-09-01", "name": "identity",
     "properties": {"mode": "Incremental", "expressionEvaluationOptions": {"scope": "inner"},
       "parameters": {"name": {"value": "[format('id-{0}', parameters('prefix'))]"}},
       "template": {`+schema+`,
         "parameters": {"name": {"type": "string"}},
         "resources": [{"type": "Microsoft.ManagedIdentity/userAssignedIdentities", "apiVersion": "2023-01-31", "name": "[parameters('name')]", "location": "[resourceGroup().location]"}],
         "outputs": {
           "principalId": {"type": "string", "value": "[reference(resourceId('Microsoft.ManagedIdentity/userAssignedIdentities', parameters('name')), '2023-01-31').principalId]"},
           "id": {"type": "string", "value": "[resourceId('Microsoft.ManagedIdentity/userAssignedIdentities', parameters('name'))]"}}}}},
    {"type": "Microsoft.Authorization/roleAssignments", "apiVersion": "2022-04-01",
     "name": "[guid(resourceGroup().id, 'reader')]",
     "properties": {"principalId": "[reference(resourceId('Microsoft.Resources/deployments', 'identity'), '2022-09-01').outputs.principalId.value]",
       "roleDefinitionId": "[subscriptionResourceId('Microsoft.Authorization/roleDefinitions', 'acdd72a7-3385-48ef-bd42-f606fba81ae7')]"},
     "dependsOn": ["[resourceId('Microsoft.Resources/deployments', 'identity')]"]}
  ]}`, convert.Scope{})
	wantAll(t, out,
		"name: id-demo\nspec:\n  type: Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31\n  resourceGroup: rg-app",
		"principalId: ${ref:id-demo.properties.principalId}",
		"roleDefinitionId: /subscriptions/${subscriptionId}/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7",
		"name: ${guid:${ref:rg-app}-reader}\n  resourceGroup: rg-app",
	)
	if strings.Contains(out, "depends-on") {
		t.Errorf("the dependsOn on the module is implied by the principal's reference:\n%s", out)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "pid-00000000") {
		t.Errorf("notes = %q, want the telemetry deployment dropped", res.Notes)
	}
}

// TestSymbolicResources: languageVersion 2.0 resources are an object keyed
// by symbolic name; an existing resource is referenced by ID, not declared;
// a dependsOn no body implies becomes the depends-on annotation.
func TestSymbolicResources(t *testing.T) {
	out, _ := convertText(t, `{`+schema+`, "languageVersion": "2.0",
  "resources": {
    "vnet": {"existing": true, "type": "Microsoft.Network/virtualNetworks", "apiVersion": "2024-01-01", "name": "vnet-shared"},
    "st": {"type": "Microsoft.Storage/storageAccounts", "apiVersion": "2023-05-01",
      "name": "[format('st{0}', uniqueString(resourceGroup().id))]", "location": "westeurope", "sku": {"name": "Standard_LRS"}, "kind": "StorageV2",
      "properties": {"networkAcls": {"virtualNetworkRules": [{"id": "[format('{0}/subnets/a', resourceId('Microsoft.Network/virtualNetworks', 'vnet-shared'))]"}]}}},
    "logs": {"type": "Microsoft.OperationalInsights/workspaces", "apiVersion": "2023-09-01", "name": "logs", "location": "westeurope"},
    "diag": {"type": "Microsoft.Insights/diagnosticSettings", "apiVersion": "2021-05-01-preview", "name": "to-logs",
      "scope": "[format('Microsoft.Storage/storageAccounts/{0}', format('st{0}', uniqueString(resourceGroup().id)))]",
      "properties": {"workspaceId": "[resourceId('Microsoft.OperationalInsights/workspaces', 'logs')]"}},
    "after": {"type": "Microsoft.ManagedIdentity/userAssignedIdentities", "apiVersion": "2023-01-31", "name": "id-after", "location": "westeurope",
      "dependsOn": ["logs", "st"]}
  }}`, convert.Scope{})
	wantAll(t, out,
		"name: st\nspec:\n  type: Microsoft.Storage/storageAccounts@2023-05-01\n  name: st${uniqueString:${ref:rg-app}}",
		"- id: /subscriptions/${subscriptionId}/resourceGroups/rg-app/providers/Microsoft.Network/virtualNetworks/vnet-shared/subnets/a",
		"scope: st\n",
		"workspaceId: ${ref:logs}",
		"azure.kubectl.io/depends-on: logs, st",
	)
	if strings.Contains(out, "name: vnet-shared") {
		t.Errorf("the existing vnet is declared:\n%s", out)
	}
}

// TestCopyLoops: resource, property and variable copies, copyIndex with an
// offset and a loop name, conditions.
func TestCopyLoops(t *testing.T) {
	out, _ := convertText(t, `{`+schema+`,
  "parameters": {"count": {"type": "int", "defaultValue": 2}, "withLogs": {"type": "bool", "defaultValue": false}},
  "variables": {"copy": [{"name": "prefixes", "count": 2, "input": "[format('10.0.{0}.0/24', copyIndex('prefixes'))]"}]},
  "resources": [
    {"type": "Microsoft.Network/virtualNetworks", "apiVersion": "2024-01-01", "name": "[format('vnet-{0}', copyIndex(1))]",
     "location": "westeurope", "copy": {"name": "vnets", "count": "[parameters('count')]", "mode": "Serial", "batchSize": 1},
     "properties": {"addressSpace": {"addressPrefixes": ["10.0.0.0/16"]},
       "copy": [{"name": "subnets", "count": 2, "input": {"name": "[format('snet-{0}-{1}', copyIndex('vnets'), copyIndex('subnets'))]",
         "properties": {"addressPrefix": "[variables('prefixes')[copyIndex('subnets')]]"}}}]}},
    {"condition": "[parameters('withLogs')]", "type": "Microsoft.OperationalInsights/workspaces", "apiVersion": "2023-09-01", "name": "logs", "location": "westeurope"}
  ]}`, convert.Scope{})
	wantAll(t, out, "name: vnet-1\n", "name: vnet-2\n", "name: snet-1-1", "addressPrefix: 10.0.1.0/24", "name: snet-0-0")
	if strings.Contains(out, "logs") || strings.Contains(out, "vnet-3") {
		t.Errorf("a false condition or the count was not honoured:\n%s", out)
	}
}

// TestUniqueStringName: a name computed by uniqueString() equals what ARM
// computed for the same inputs. The value is from a real deployment (the
// Modm project's ArmFunctionsTests, also in pkg/manifest's tests).
func TestUniqueStringName(t *testing.T) {
	text := `{` + schema + `,
  "resources": [{"type": "Microsoft.Storage/storageAccounts", "apiVersion": "2023-05-01", "location": "westeurope",
    "name": "[concat('st', uniqueString(resourceId('Microsoft.Compute/virtualMachines', 'bobjacmodm201')))]"}]}`
	s := convert.Scope{Subscription: "31e9f9a0-9fd2-4294-a0a3-0101246d9700", ResourceGroup: "rg-modm201-20230913120256", Location: "westeurope"}
	out, _ := convertText(t, text, s)
	wantAll(t, out, "name: styvjxno3je5on2\n")
	// Without the subscription, the placeholder computes the same at load.
	s.Subscription = ""
	out, _ = convertText(t, text, s)
	wantAll(t, out, "name: st${uniqueString:/subscriptions/${subscriptionId}/resourceGroups/rg-modm201-20230913120256/providers/Microsoft.Compute/virtualMachines/bobjacmodm201}")
	if got := manifest.ARMUniqueString("/subscriptions/31e9f9a0-9fd2-4294-a0a3-0101246d9700/resourceGroups/rg-modm201-20230913120256/providers/Microsoft.Compute/virtualMachines/bobjacmodm201"); got != "yvjxno3je5on2" {
		t.Fatalf("manifest.ARMUniqueString = %s", got)
	}
}

// TestEvaluate: with everything known, resources come out fully evaluated,
// as an emulator deploying the template needs them.
func TestEvaluate(t *testing.T) {
	tmpl, err := convert.Parse("t.json", []byte(`{`+schema+`,
  "parameters": {"n": {"type": "int", "defaultValue": 2}, "password": {"type": "secureString"}},
  "resources": [{"type": "Microsoft.Sql/servers", "apiVersion": "2023-05-01-preview", "name": "[format('sql-{0}', uniqueString(resourceGroup().id))]",
    "location": "[resourceGroup().location]", "copy": {"name": "s", "count": "[parameters('n')]"},
    "properties": {"administratorLoginPassword": "[parameters('password')]", "index": "[copyIndex()]"}}],
  "outputs": {"id": {"type": "string", "value": "[resourceId('Microsoft.Sql/servers', format('sql-{0}', uniqueString(resourceGroup().id)))]"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	sub := "00000000-0000-0000-0000-000000000001"
	rs, outs, err := tmpl.Evaluate(context.Background(), convert.Scope{Subscription: sub, ResourceGroup: "rg", Location: "westus", Parameters: map[string]any{"password": "p@ss"}})
	if err != nil {
		t.Fatal(err)
	}
	name := "sql-" + manifest.ARMUniqueString("/subscriptions/"+sub+"/resourceGroups/rg")
	id := "/subscriptions/" + sub + "/resourceGroups/rg/providers/Microsoft.Sql/servers/" + name
	if len(rs) != 2 || rs[0].Name != name || rs[0].ID != id || rs[1].Body["properties"].(map[string]any)["index"] != int64(1) {
		t.Fatalf("resources = %+v", rs)
	}
	if rs[0].Body["properties"].(map[string]any)["administratorLoginPassword"] != "p@ss" || rs[0].Body["location"] != "westus" {
		t.Errorf("body = %v", rs[0].Body)
	}
	if outs["id"] != id {
		t.Errorf("outputs = %v", outs)
	}
}

// TestSubscriptionTemplate: a subscription template creates a group and
// deploys a module into it; the group is a document of the template's own,
// and no --resource-group is needed.
func TestSubscriptionTemplate(t *testing.T) {
	tmpl, err := convert.Parse("sub.json", []byte(`{"$schema": "https://schema.management.azure.com/schemas/2018-05-01/subscriptionDeploymentTemplate.json#",
  "parameters": {"rgName": {"type": "string", "defaultValue": "rg-sub"}},
  "resources": [
    {"type": "Microsoft.Resources/resourceGroups", "apiVersion": "2021-04-01", "name": "[parameters('rgName')]", "location": "northeurope"},
    {"type": "Microsoft.Resources/deployments", "apiVersion": "2022-09-01", "name": "inner", "resourceGroup": "[parameters('rgName')]",
     "dependsOn": ["[subscriptionResourceId('Microsoft.Resources/resourceGroups', parameters('rgName'))]"],
     "properties": {"mode": "Incremental", "expressionEvaluationOptions": {"scope": "inner"},
       "template": {"$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
         "resources": [{"type": "Microsoft.Storage/storageAccounts", "apiVersion": "2023-05-01", "name": "[concat('st', uniqueString(resourceGroup().id))]",
           "location": "[resourceGroup().location]", "sku": {"name": "Standard_LRS"}, "kind": "StorageV2"}]}}},
    {"type": "Microsoft.Authorization/roleAssignments", "apiVersion": "2022-04-01", "name": "[guid(subscription().id, 'ops')]",
     "properties": {"principalId": "9c7c1f5e-8a3b-4d2e-9f1a-2b3c4d5e6f70", "roleDefinitionId": "[subscriptionResourceId('Microsoft.Authorization/roleDefinitions', 'acdd72a7-3385-48ef-bd42-f606fba81ae7')]"}}
  ]}`))
	if err != nil {
		t.Fatal(err)
	}
	if tmpl.Scope() != "subscription" {
		t.Fatalf("scope = %s", tmpl.Scope())
	}
	res, err := tmpl.Convert(context.Background(), convert.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	_ = convert.Write(&buf, res.Manifests, "yaml")
	wantAll(t, buf.String(),
		"name: rg-sub\nspec:\n  type: Microsoft.Resources/resourceGroups@2021-04-01\n  body:\n    location: northeurope",
		"name: st${uniqueString:${ref:rg-sub}}\n  resourceGroup: rg-sub\n  body:\n    kind: StorageV2\n    location: northeurope",
		"name: ${guid:/subscriptions/${subscriptionId}-ops}\n  scope: /subscriptions/${subscriptionId}",
	)
	if len(res.Manifests) != 3 {
		t.Errorf("%d manifests, want 3", len(res.Manifests))
	}
}

// TestPartial: with Partial, what converted is written and the rest is a
// warning; without, the whole conversion is refused.
func TestPartial(t *testing.T) {
	text := `{` + schema + `,
  "resources": [
    {"type": "Microsoft.Storage/storageAccounts", "apiVersion": "2023-05-01", "name": "stok", "location": "westeurope"},
    {"type": "Microsoft.Storage/storageAccounts", "apiVersion": "2023-05-01", "name": "[substring(uniqueString(resourceGroup().id), 0, 6)]", "location": "westeurope"}
  ]}`
	tmpl, err := convert.Parse("t.json", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	s := convert.Scope{ResourceGroup: "rg", Location: "westeurope"}
	if _, err := tmpl.Convert(context.Background(), convert.Options{Scope: s}); err == nil || !strings.Contains(err.Error(), "t.json#0 (line 4): resources[1].name") {
		t.Fatalf("err = %v, want the second resource's name refused", err)
	}
	res, err := tmpl.Convert(context.Background(), convert.Options{Scope: s, Partial: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Manifests) != 2 || res.Manifests[1].Name != "stok" || len(res.Warnings) != 1 {
		t.Errorf("manifests %d, warnings %v", len(res.Manifests), res.Warnings)
	}
	// With the subscription, the substring is known and converts.
	s.Subscription = "00000000-0000-0000-0000-000000000001"
	if _, err := tmpl.Convert(context.Background(), convert.Options{Scope: s}); err != nil {
		t.Errorf("with --subscription: %v", err)
	}
}

// TestNestedChildTypes: a nested child's type may be relative with more
// than one segment, or an extension under "providers/".
func TestNestedChildTypes(t *testing.T) {
	out, _ := convertText(t, `{`+schema+`,
  "resources": [{"type": "Microsoft.Storage/storageAccounts", "apiVersion": "2023-05-01", "name": "stnested", "location": "westeurope",
    "resources": [
      {"type": "blobServices/containers", "apiVersion": "2023-05-01", "name": "default/data", "dependsOn": ["stnested"]},
      {"type": "providers/locks", "apiVersion": "2020-05-01", "name": "Microsoft.Authorization/no-delete", "properties": {"level": "CanNotDelete"}}
    ]}]}`, convert.Scope{})
	wantAll(t, out,
		"name: data\nspec:\n  type: Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01\n  parent: /subscriptions/${subscriptionId}/resourceGroups/rg-app/providers/Microsoft.Storage/storageAccounts/stnested/blobServices/default",
		"name: no-delete\nspec:\n  type: Microsoft.Authorization/locks@2020-05-01\n  scope: stnested",
	)
}
