package cli_test

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// `state mv` files a record under a new ID or set, bodies unchanged, and
// sends nothing to Azure (issue 33 item 9).
func TestStateMove(t *testing.T) {
	e := newEnv(t, nil)
	e.mustRun(0, "apply", "-f", e.dir, "--yes")
	show := func(ref string) map[string]any {
		var r map[string]any
		if err := json.Unmarshal([]byte(e.mustRun(0, "state", "show", ref, "-o", "json")), &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	before := show("storageAccounts/stdemo001")
	writes := e.writes()
	newID := rg("rg-moved") + "/providers/Microsoft.Storage/storageAccounts/stdemo001"

	out := e.mustRun(0, "state", "mv", "storageAccounts/stdemo001", newID, "--to-set", "team-b")
	if !strings.Contains(out, "nothing was sent to Azure") {
		t.Errorf("state mv said:\n%s", out)
	}
	if e.writes() != writes {
		t.Errorf("state mv wrote to Azure")
	}
	after := show(newID)
	if after["id"] != newID || after["set"] != "team-b" {
		t.Errorf("moved record: id %v set %v", after["id"], after["set"])
	}
	for _, k := range []string{"lastApplied", "baseline", "etag", "type", "apiVersion"} {
		if !reflect.DeepEqual(before[k], after[k]) {
			t.Errorf("%s changed in the move:\n%v\n%v", k, before[k], after[k])
		}
	}
	if _, _, code := e.run("state", "show", rg("rg-demo")+"/providers/Microsoft.Storage/storageAccounts/stdemo001"); code != 2 {
		t.Errorf("the old record is still there (state show exit %d)", code)
	}

	for _, c := range []struct {
		name string
		args []string
	}{
		{"other type", []string{"state", "mv", newID, rg("rg-demo") + "/providers/Microsoft.KeyVault/vaults/stdemo001"}},
		{"nothing to do", []string{"state", "mv", newID}},
		{"not an ID", []string{"state", "mv", newID, "stdemo002"}},
	} {
		if _, errOut, code := e.run(c.args...); code != 2 {
			t.Errorf("%s: exit %d, want 2\n%s", c.name, code, errOut)
		}
	}
}

// After ARM moved a resource to another group and `state mv` followed it,
// the plan is quiet, secrets included: a record's secret hashes are salted
// with the ID they were made under, which the move keeps (hashedAs) since
// it has no clear value to hash again (issue 45 item 16).
func TestStateMoveKeepsSecretHashes(t *testing.T) {
	e := newEnv(t, nil)
	const secret = "Mv7SECRETmv7-VALUE"
	t.Setenv("OWNER_SECRET", secret)
	const doc = `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: RG}
spec:
  type: Microsoft.Resources/resourceGroups@2021-04-01
  body: {location: westeurope}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: id-sec}
spec:
  type: Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31
  resourceGroup: GROUP
  body:
    location: westeurope
    tags: {owner: {valueFrom: {env: OWNER_SECRET}}, team: net}
`
	dir := filepath.Join(t.TempDir(), "mv")
	write := func(group, team string) {
		text := strings.ReplaceAll(strings.ReplaceAll(doc, "GROUP", group), "team: net", "team: "+team)
		manifestDir(t, dir, "id.yaml", strings.Replace(text, "metadata: {name: RG}", "metadata: {name: rg-mv-a}", 1)+
			"---\n"+strings.Replace(strings.SplitN(doc, "---\n", 2)[0], "metadata: {name: RG}", "metadata: {name: rg-mv-b}", 1))
	}
	write("rg-mv-a", "net")
	e.mustRun(0, "apply", "-f", dir, "--yes")
	e.mustRun(0, "diff", "-f", dir)

	// ARM's move: the identity now lives in rg-mv-b, the manifest says so.
	const idPath = "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-sec"
	oldID, newID := rg("rg-mv-a")+idPath, rg("rg-mv-b")+idPath
	live, _ := e.live(oldID, "2023-01-31")
	if err := e.srv.Seed(newID, "2023-01-31", live); err != nil {
		t.Fatal(err)
	}
	if r, err := httpWrite(http.MethodDelete, e.srv.URL()+oldID+"?api-version=2023-01-31", ""); err != nil || r.code >= 300 {
		t.Fatalf("DELETE: %v %d %s", err, r.code, r.body)
	}
	write("rg-mv-b", "net")

	e.mustRun(0, "state", "mv", "userAssignedIdentities/id-sec", newID)
	out, errOut, code := e.run("diff", "-f", dir)
	if code != 0 {
		t.Fatalf("diff after state mv: exit %d, want 0 (quiet)\n%s\n%s", code, out, errOut)
	}
	shown := e.mustRun(0, "state", "show", newID, "-o", "json")
	if strings.Contains(shown, secret) || !strings.Contains(shown, "hmac-sha256:") {
		t.Errorf("moved record: the secret is not kept hashed:\n%s", shown)
	}
	// A change rewrites the record under its own ID, and stays quiet after.
	write("rg-mv-b", "ops")
	e.mustRun(0, "apply", "-f", dir, "--yes")
	e.mustRun(0, "diff", "-f", dir)
	if shown := e.mustRun(0, "state", "show", newID, "-o", "json"); strings.Contains(shown, "hashedAs") {
		t.Errorf("a record written afresh still names the old salt:\n%s", shown)
	}
}
