package secret

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
)

func mustParse(t *testing.T, s string) bodypath.Path {
	t.Helper()
	p, err := bodypath.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A whole value keeps its plain members and hides, place by place, what
// the rule calls secret inside it: a valueFrom path (a VM's ssh key), a
// credential name, and a place named by key, hidden in every item it may
// be. The value given is never modified.
func TestRuleMaskInHidesPlacesInsideAWholeValue(t *testing.T) {
	r := For("Microsoft.Compute/virtualMachines", "vm", nil,
		"properties.osProfile.linuxConfiguration.ssh.publicKeys[0].keyData", "properties.rules[a].token2")
	keys := []any{map[string]any{"keyData": "ssh-rsa SECRET-KEY", "path": "/home/u/.ssh/authorized_keys"}}
	got := r.MaskIn(mustParse(t, "properties.osProfile.linuxConfiguration.ssh.publicKeys"), keys, Placeholder)
	k := got.([]any)[0].(map[string]any)
	if k["keyData"] != Placeholder || k["path"] != "/home/u/.ssh/authorized_keys" {
		t.Errorf("publicKeys: %v, want only keyData hidden", got)
	}
	if keys[0].(map[string]any)["keyData"] != "ssh-rsa SECRET-KEY" {
		t.Error("MaskIn modified its argument")
	}
	rules := []any{map[string]any{"name": "b", "token2": "SECRET-1", "adminPassword": "SECRET-2", "port": 22.0}}
	out, _ := json.Marshal(r.MaskIn(mustParse(t, "properties.rules"), rules, Placeholder))
	if strings.Contains(string(out), "SECRET-") || !strings.Contains(string(out), `"name":"b"`) || !strings.Contains(string(out), `"port":22`) {
		t.Errorf("rules: %s", out)
	}
	// Nothing to hide: the very value comes back; a scalar is the caller's.
	plain := map[string]any{"size": "S"}
	if got := r.MaskIn(mustParse(t, "properties.sku"), plain, Placeholder); got.(map[string]any)["size"] != "S" {
		t.Errorf("plain value changed: %v", got)
	}
	if got := r.MaskIn(mustParse(t, "properties.adminPassword"), "pw", Placeholder); got != "pw" {
		t.Errorf("scalar = %v, want it as is", got)
	}
}

// Holds: a pattern strictly below the path, so a note that prints the
// whole value there withholds it.
func TestRuleHolds(t *testing.T) {
	r := For("X.Y/z", "n", nil, "properties.osProfile.linuxConfiguration.ssh.publicKeys[0].keyData")
	for path, want := range map[string]bool{
		"properties.osProfile": true,
		"properties.osProfile.linuxConfiguration.ssh.publicKeys[0].keyData": false, // at, not below
		"properties.storageProfile":                                         false,
	} {
		if got := r.Holds(mustParse(t, path)); got != want {
			t.Errorf("Holds(%s) = %v, want %v", path, got, want)
		}
	}
}
