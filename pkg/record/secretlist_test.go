package record

import (
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// A list of secret strings under a write-only member (a VM extension's
// protectedSettings.fileUris, script URIs with a SAS token) is recorded
// as one hash per item; the next plan matches each item's hash and is
// quiet, and a changed URI is a change. Before, list items were compared
// without the hash rule and every re-plan wrote the list again.
func TestSecretListItemsCompareByHash(t *testing.T) {
	const id = "/subscriptions/s/resourceGroups/g/providers/Microsoft.Compute/virtualMachines/v/extensions/e"
	typ, _ := schema.Default().Lookup("Microsoft.Compute/virtualMachines/extensions", "2022-03-01")
	key := []byte("0123456789abcdef0123456789abcdef")
	body := func(uris ...any) map[string]any {
		return map[string]any{"location": "westeurope", "properties": map[string]any{"publisher": "p", "type": "t", "typeHandlerVersion": "2.0",
			"protectedSettings": map[string]any{"fileUris": uris}}}
	}
	live := map[string]any{"location": "westeurope", "properties": map[string]any{"publisher": "p", "type": "t", "typeHandlerVersion": "2.0"}}
	paths := []string{"properties.protectedSettings.fileUris[0]", "properties.protectedSettings.fileUris[1]"}
	rec, err := Build(Input{ID: id, Type: typ.Name, APIVersion: typ.APIVersion, Desired: body("https://a/x.sh?sig=S1", "https://a/y.sh?sig=S1"),
		SecretPaths: paths, Live: live, Schema: typ, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	plan := func(uris ...any) diff.Result {
		return diff.Compute(diff.Input{Desired: body(uris...), LastApplied: rec.LastApplied, Baseline: rec.Baseline, Live: live, Schema: typ,
			SecretKey: secret.ResourceKey(key, id), SecretPaths: paths})
	}
	if r := plan("https://a/x.sh?sig=S1", "https://a/y.sh?sig=S1"); len(r.Changes) != 0 {
		t.Errorf("re-plan of the same secret list: %+v", r.Changes)
	}
	r := plan("https://a/x.sh?sig=S2", "https://a/y.sh?sig=S2")
	if len(r.Changes) != 1 || !strings.HasSuffix(r.Changes[0].Path, "fileUris") {
		t.Errorf("a rotated token: %+v, want one change of fileUris", r.Changes)
	}
}
