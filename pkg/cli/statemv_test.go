package cli_test

import (
	"encoding/json"
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
