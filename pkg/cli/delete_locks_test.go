package cli_test

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// lockDocs: a group and a storage account, each with a CanNotDelete lock
// the manifests declare.
const lockDocs = `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: rg-lk}
spec:
  type: Microsoft.Resources/resourceGroups@2021-04-01
  body: {location: westeurope}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: stlk001}
spec:
  type: Microsoft.Storage/storageAccounts@2023-05-01
  resourceGroup: rg-lk
  body: {location: westeurope, sku: {name: Standard_LRS}, kind: StorageV2}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: lock-st}
spec:
  type: Microsoft.Authorization/locks@2020-05-01
  scope: ${ref:stlk001}
  body: {properties: {level: CanNotDelete, notes: keep the data}}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: lock-rg}
spec:
  type: Microsoft.Authorization/locks@2020-05-01
  scope: ${ref:rg-lk}
  body: {properties: {level: CanNotDelete}}
`

// TestDeleteRemovesManagedLocksFirst: the locks the manifests declare are
// deleted before what they lock, the group's DELETE waiting for them;
// the dry run says so (issue 44 item 2).
func TestDeleteRemovesManagedLocksFirst(t *testing.T) {
	e := newEnv(t, nil)
	dir := manifestDir(t, filepath.Join(t.TempDir(), "lk"), "lk.yaml", lockDocs)
	e.mustRun(0, "apply", "-f", dir, "--yes")
	out, errOut, code := e.run("delete", "-f", dir, "--dry-run")
	if code != 1 || strings.Contains(errOut, "would be refused") || strings.Count(out, "deleted first") != 2 || !strings.Contains(out, "after its lock(s) lock-rg") {
		t.Fatalf("delete --dry-run: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	out, errOut, code = e.run("delete", "-f", dir, "--yes")
	if code != 0 {
		t.Fatalf("delete: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	assertOrder(t, out+errOut, "writing", []string{"locks/lock-rg", "resourceGroups/rg-lk"})
	assertOrder(t, out+errOut, "writing", []string{"locks/lock-st", "resourceGroups/rg-lk"})
	if _, code := e.live(rg("rg-lk"), "2021-04-01"); code != 404 {
		t.Errorf("the group: GET %d after the delete", code)
	}
}

// TestDeleteRefusesUnmanagedLock: a lock no manifest or state knows, on
// the resource, its group or inside it, refuses the plan up front,
// naming the lock and how to remove it; nothing is deleted.
func TestDeleteRefusesUnmanagedLock(t *testing.T) {
	e := newEnv(t, nil)
	i := strings.Index(lockDocs, "---\napiVersion: azure.kubectl.io/v1alpha1\nkind: Resource\nmetadata: {name: lock-st}")
	dir := manifestDir(t, filepath.Join(t.TempDir(), "lk"), "lk.yaml", lockDocs[:i])
	e.mustRun(0, "apply", "-f", dir, "--yes")
	st := rg("rg-lk") + "/providers/Microsoft.Storage/storageAccounts/stlk001"
	for _, lock := range []string{st + "/providers/Microsoft.Authorization/locks/outside", rg("rg-lk") + "/providers/Microsoft.Authorization/locks/rg-outside"} {
		if r, err := httpWrite(http.MethodPut, e.srv.URL()+lock+"?api-version=2020-05-01", `{"properties":{"level":"CanNotDelete"}}`); err != nil || r.code/100 != 2 {
			t.Fatalf("PUT %s: %v %d %s", lock, err, r.code, r.body)
		}
	}
	for _, args := range [][]string{
		{"delete", "storageAccounts/stlk001", "--yes"},
		{"delete", "-f", dir, "--yes"},
	} {
		before := e.writes()
		_, errOut, code := e.run(args...)
		if code == 0 || !strings.Contains(errOut, "ScopeLocked") || !strings.Contains(errOut, "locks/outside") || !strings.Contains(errOut, "locks/rg-outside") ||
			!strings.Contains(errOut, "az lock delete --ids") || !strings.Contains(errOut, "kubectl azure import") {
			t.Errorf("%v: exit %d\n%s", args, code, errOut)
		}
		if w := e.writes(); w != before {
			t.Errorf("%v: a refused delete wrote %d times", args, w-before)
		}
	}
	_, errOut, _ := e.run("delete", "-f", dir, "--dry-run")
	if !strings.Contains(errOut, "would be refused") || !strings.Contains(errOut, "locks/outside") {
		t.Errorf("delete --dry-run does not warn of the lock:\n%s", errOut)
	}
	if _, code := e.live(st, "2023-05-01"); code != 200 {
		t.Errorf("the account: GET %d after refused deletes", code)
	}
}
