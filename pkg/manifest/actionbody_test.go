package manifest

import (
	"context"
	"strings"
	"testing"
)

// TestActionBody: an action's body (listAccountSas's terms) is kept as one
// canonical JSON text, whatever the key order, and sent as written; a
// body that is not a mapping, or holds a placeholder, is bad input.
func TestActionBody(t *testing.T) {
	const st = "Microsoft.Storage/storageAccounts@2023-05-01"
	mk := func(body string) LoadOptions {
		o := docs(
			doc(rgDocT, rgType, "", "{location: westeurope}"),
			doc("st1", st, "resourceGroup: rg-demo", "{location: westeurope, kind: StorageV2, sku: {name: Standard_LRS}}"),
			doc("rg2", rgType, "", `{location: westeurope, tags: {sas: {valueFrom: {action: {resource: st1, name: listAccountSas, path: accountSasToken, body: `+body+`}}}}}`),
		)
		o.LookupEnv = envOf(map[string]string{"AZURE_SUBSCRIPTION_ID": testSub})
		return o
	}
	a := byName(t, load(t, mk(`{signedServices: b, signedPermission: r, signedExpiry: "2030-01-01T00:00:00Z"}`)), "rg2").Actions["tags.sas"]
	b := byName(t, load(t, mk(`{signedExpiry: "2030-01-01T00:00:00Z", signedPermission: r, signedServices: b}`)), "rg2").Actions["tags.sas"]
	if a == nil || a.Body != `{"signedExpiry":"2030-01-01T00:00:00Z","signedPermission":"r","signedServices":"b"}` || *a != *b {
		t.Fatalf("bodies: %+v / %+v", a, b)
	}
	if got := a.RequestBody()["signedPermission"]; got != "r" {
		t.Errorf("RequestBody = %v", a.RequestBody())
	}
	for _, bad := range []string{`[1, 2]`, `"text"`, `{signedExpiry: "${ref:st1.name}"}`} {
		if _, err := Load(context.Background(), mk(bad)); err == nil || !strings.Contains(err.Error(), "tags.sas.valueFrom.action.body") {
			t.Errorf("body %s: %v", bad, err)
		}
	}
}
