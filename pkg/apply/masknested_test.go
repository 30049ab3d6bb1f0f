package apply

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// A change that carries a whole value with a valueFrom secret inside it (a
// VM's ssh publicKeys, an array without identifiers printed whole) hides
// that value and keeps the rest; where the place cannot be followed, the
// whole change is hidden. Before, the key was printed in clear.
func TestMarkSensitiveHidesSecretsInsideAWholeValue(t *testing.T) {
	const key = "ssh-rsa AAAA-secret-key"
	secretPath := "properties.osProfile.linuxConfiguration.ssh.publicKeys[0].keyData"
	cs := markSensitive([]plan.Change{
		{Path: "properties.osProfile.linuxConfiguration.ssh.publicKeys",
			After: []any{map[string]any{"keyData": key, "path": "/home/u/.ssh/authorized_keys"}}},
		{Path: "properties.settings", After: map[string]any{"fileUris": []any{"https://x/a.sh?sig=secret-key"}}},
		{Path: "properties.other", After: "plain"},
	}, []string{secretPath, "properties.settings.fileUris[0]"})
	out, _ := json.Marshal(cs)
	if strings.Contains(string(out), "secret-key") {
		t.Fatalf("a secret inside a whole value is shown: %s", out)
	}
	keys := cs[0].After.([]any)[0].(map[string]any)
	if keys["keyData"] != (plan.Sensitive{}) || keys["path"] != "/home/u/.ssh/authorized_keys" || cs[0].Sensitive {
		t.Errorf("publicKeys: %v (sensitive %v), want only keyData hidden", cs[0].After, cs[0].Sensitive)
	}
	if cs[2].After != "plain" || cs[2].Sensitive {
		t.Errorf("an unrelated change was touched: %+v", cs[2])
	}
	// A keyed item cannot be followed in the value: the whole is hidden.
	cs = markSensitive([]plan.Change{{Path: "properties.rules", After: []any{map[string]any{"name": "a", "secret": key}}}},
		[]string{"properties.rules[a].secret"})
	if !cs[0].Sensitive || cs[0].After != (plan.Sensitive{}) {
		t.Errorf("keyed place: %+v, want the whole change hidden", cs[0])
	}
}
