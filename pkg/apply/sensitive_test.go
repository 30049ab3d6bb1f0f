package apply

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// A secret path in position form meets a change in keyed form (a scale
// set's extension fileUris with a SAS token): the value is hidden.
// Before, the spellings never matched and the token was printed.
func TestMarkSensitiveMatchesKeyedAndIndexedSpellings(t *testing.T) {
	const sas = "https://x/a.sh?sig=secret-sas"
	base := "properties.virtualMachineProfile.extensionProfile.extensions"
	cs := markSensitive([]plan.Change{
		{Path: base + "[lapextension].properties.settings.fileUris", After: []any{sas}},
		{Path: base + "[lapextension].properties.settings.commandToExecute", After: "sh a.sh"},
		{Path: base + "[lapextension].properties.protectedSettings", After: map[string]any{"sig": "secret-sas"}},
	}, []string{base + "[0].properties.settings.fileUris[0]", base + "[0].properties.protectedSettings.sig"})
	out, _ := json.Marshal(cs)
	if strings.Contains(string(out), "secret-sas") {
		t.Fatalf("a secret in another spelling is shown: %s", out)
	}
	if cs[1].Sensitive || cs[1].After != "sh a.sh" {
		t.Errorf("a sibling that holds no secret was hidden: %+v", cs[1])
	}
	// Two positions, or two keys, are different items: not hidden.
	for _, pair := range [][2]string{{"properties.rules[1].value", "properties.rules[0].value"}, {"properties.rules[b].value", "properties.rules[a].value"}} {
		if c := markSensitive([]plan.Change{{Path: pair[0], After: "plain"}}, []string{pair[1]})[0]; c.Sensitive {
			t.Errorf("%s hidden by %s's secret", c.Path, pair[1])
		}
	}
}

// A value the record holds as a secret's hash stays secret after the
// manifest stops declaring it: removing it shows live's value hidden.
func TestRecordedSecretPathsStaySecret(t *testing.T) {
	h := secret.Hash([]byte("k"), "properties.password", "hunter2-secret")
	body := map[string]any{"properties": map[string]any{"password": h, "size": 3, "list": []any{map[string]any{"token": h}}}}
	got := recordedSecretPaths(body)
	if strings.Join(got, ",") != "properties.list[0].token,properties.password" {
		t.Fatalf("recorded secret paths %v", got)
	}
	cs := markSensitive([]plan.Change{{Path: "properties.password", Before: "hunter2-secret"}, {Path: "properties.size", Before: 3.0}}, got)
	if !cs[0].Sensitive || cs[0].Before != (plan.Sensitive{}) || cs[1].Sensitive {
		t.Errorf("removal of a recorded secret: %+v", cs)
	}
}

// The note that Azure kept a removed value never shows a secret inside it.
func TestKeptNotesHideSecretsInside(t *testing.T) {
	rs := sensitiveRemovals([]diff.Removal{{Path: "properties.osProfile"}, {Path: "properties.storageProfile"}},
		[]string{"properties.osProfile.linuxConfiguration.ssh.publicKeys[0].keyData"})
	live := map[string]any{"properties": map[string]any{
		"osProfile":      map[string]any{"linuxConfiguration": map[string]any{"ssh": map[string]any{"publicKeys": []any{map[string]any{"keyData": "ssh-rsa SECRETKEY"}}}}},
		"storageProfile": map[string]any{"osDisk": "x"}}}
	notes := strings.Join(diff.KeptAfterWrite(diff.Result{Removed: rs}, live), "\n")
	if strings.Contains(notes, "SECRETKEY") || !strings.Contains(notes, `"osDisk"`) {
		t.Fatalf("notes: %s", notes)
	}
}
