package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// What ARM accepts the CLI's plan does not refuse, against the emulator:
// an api-version public templates use that the schema index lacks (a
// warning, since ARM's providers answer lists it), an App Insights
// component without kind, a private DNS zone group with a location, a web
// test carrying a hidden-link tag; and a property written in another case
// than the schema's is named in a warning.
func TestCLIAcceptsWhatARMAccepts(t *testing.T) {
	e := newEnv(t, nil)
	net := "Microsoft.Network"
	docs := `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: rg-acc}
spec:
  type: Microsoft.Resources/resourceGroups@2021-04-01
  body: {location: westeurope}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: ai-acc}
spec:
  type: Microsoft.Insights/components@2020-02-02-preview
  resourceGroup: rg-acc
  body:
    location: westeurope
    properties: {Application_Type: web}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: wt-acc}
spec:
  type: Microsoft.Insights/webtests@2022-06-15
  resourceGroup: rg-acc
  body:
    location: westeurope
    kind: ping
    tags:
      "hidden-link:/subscriptions/${subscriptionId}/resourceGroups/rg-acc/providers/microsoft.insights/components/ai-acc": Resource
    properties:
      SyntheticMonitorId: wt-acc
      Name: wt-acc
      Locations: [{Id: us-fl-mia-edge}]
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: 7a0b7f3e-1d3c-4f4b-9a43-0f4c0b3a1e11}
spec:
  type: Microsoft.Authorization/roleAssignments@2021-04-01-preview
  scope: ${ref:Microsoft.Resources/resourceGroups/rg-acc}
  body:
    properties:
      roleDefinitionId: /subscriptions/${subscriptionId}/providers/Microsoft.Authorization/roleDefinitions/ba92f5b4-2d11-453d-a403-e96b0029c9fe
      principalId: 5b1a7c9e-2f44-4d0b-8e61-0c7f3a9d2b58
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: vnet-acc}
spec:
  type: ` + net + `/virtualNetworks@2021-05-01
  resourceGroup: rg-acc
  body:
    location: westeurope
    properties:
      addressSpace: {addressPrefixes: [10.0.0.0/16]}
      subnets: [{name: pe, properties: {addressPrefix: 10.0.0.0/24}}]
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: pe-acc}
spec:
  type: ` + net + `/privateEndpoints@2021-05-01
  resourceGroup: rg-acc
  body:
    location: westeurope
    properties:
      subnet: {id: "${ref:vnet-acc}/subnets/pe"}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: default}
spec:
  type: ` + net + `/privateEndpoints/privateDnsZoneGroups@2021-05-01
  parent: ${ref:pe-acc}
  body:
    location: westeurope
    properties: {privateDnsZoneConfigs: []}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: stacc001}
spec:
  type: Microsoft.Storage/storageAccounts@2023-05-01
  resourceGroup: rg-acc
  body:
    location: westeurope
    kind: StorageV2
    sku: {name: Standard_LRS}
    properties: {minimumTLSVersion: TLS1_2}
`
	dir := manifestDir(t, filepath.Join(t.TempDir(), "acc"), "acc.yaml", docs)
	out, errOut, code := e.run("diff", "-f", dir)
	if code != 1 {
		t.Fatalf("diff: exit %d, want 1 (changes, no refusal)\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"api-version 2021-04-01-preview of Microsoft.Authorization/roleAssignments is not in the schema index, but ARM serves it",
		"minimumTlsVersion",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("diff warnings lack %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(errOut, "does not serve") {
		t.Errorf("diff says a version ARM serves is not served:\n%s", errOut)
	}
	e.mustRun(0, "apply", "-f", dir, "--yes")
	if out := e.mustRun(0, "diff", "-f", dir); !strings.Contains(out, "No changes") {
		t.Errorf("second diff is not empty:\n%s", out)
	}
}
