package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ExistingOutsideSet is made by another team (its own state): the resources the
// reading set declares existing.
const ExistingOutsideSet = `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: rg-shared}
spec:
  type: Microsoft.Resources/resourceGroups@2021-04-01
  body: {location: westeurope}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: stshared001}
spec:
  type: Microsoft.Storage/storageAccounts@2023-05-01
  resourceGroup: rg-shared
  body:
    location: westeurope
    sku: {name: Standard_LRS}
    kind: StorageV2
`

// ExistingReadingSet reads the shared account's endpoint and key into a vault
// secret and tags of its own group, and declares the account existing.
const ExistingReadingSet = `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata:
  name: stshared001
  annotations: {azure.kubectl.io/existing: "true"}
spec:
  type: Microsoft.Storage/storageAccounts@2023-05-01
  resourceGroup: rg-shared
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: rg-app}
spec:
  type: Microsoft.Resources/resourceGroups@2021-04-01
  body:
    location: westeurope
    tags:
      blob: ${ref:stshared001.properties.primaryEndpoints.blob}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: kv-app-001}
spec:
  type: Microsoft.KeyVault/vaults@2023-07-01
  resourceGroup: rg-app
  body:
    location: westeurope
    properties:
      tenantId: 8e2a4c1d-3b5f-4e7a-9c0d-6f1b2a3c4d5e
      sku: {family: A, name: standard}
      enableRbacAuthorization: true
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: shared-key}
spec:
  type: Microsoft.KeyVault/vaults/secrets@2023-07-01
  parent: ${ref:kv-app-001}
  body:
    properties:
      value:
        valueFrom:
          action: {resource: stshared001, name: listKeys, path: "keys[0].value"}
`

// TestLoopWithExistingResourceWritesOnce: the controller's sweeps plan
// parts of the set, each without the existing declaration; the value and
// the key taken from the existing resource still settle, so steady state
// writes nothing, and the existing resource is no resource of the loop.
func TestLoopWithExistingResourceWritesOnce(t *testing.T) {
	e := newLoopEnv(t)
	outside := filepath.Join(t.TempDir(), "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "set.yaml"), []byte(ExistingOutsideSet), 0o644); err != nil {
		t.Fatal(err)
	}
	e.cli(0, "apply", "-f", outside, "--yes", "--state", filepath.Join(t.TempDir(), "other.json"))
	e.write("infra.yaml", ExistingReadingSet)
	stop, log := e.loop(t.Context())
	e.waitFor("the loop applies the reading set", 20*time.Second, log, allInSync(3))
	mark := time.Now()
	e.waitFor("a sweep", 10*time.Second, log, sweptAfter(mark))
	created := e.count("loop", "PUT", "PATCH", "DELETE")
	mark = time.Now()
	e.waitFor("two more sweeps", 10*time.Second, log, sweptAfter(mark))
	mark = time.Now()
	e.waitFor("a third sweep", 10*time.Second, log, sweptAfter(mark))
	if w := e.count("loop", "PUT", "PATCH", "DELETE"); w != created || created != 3 {
		t.Fatalf("the loop wrote %d times to create 3 resources, then %d more\n%s", created, w-created, log.String())
	}
	st := e.statusNow()
	for _, r := range st.Resources {
		if strings.Contains(r.ID, "storageAccounts") {
			t.Errorf("status lists the existing account: %+v", r)
		}
	}
	if code := stop(); code != 0 {
		t.Fatalf("stopping exited %d\n%s", code, log.String())
	}
}
