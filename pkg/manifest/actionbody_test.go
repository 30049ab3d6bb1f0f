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

// TestExistingEnvelope: an existing resource is read, never written: a
// body, a write-side annotation or a name known only after apply is bad
// input; a good one is in Set.Existing, not Set.Resources, and orders
// nothing.
func TestExistingEnvelope(t *testing.T) {
	const st = "Microsoft.Storage/storageAccounts@2023-05-01"
	ex := func(name, annotations, body string) string {
		return "apiVersion: azure.kubectl.io/v1alpha1\nkind: Resource\nmetadata:\n  name: \"" + name + "\"\n  annotations: {azure.kubectl.io/existing: \"true\"" + annotations + "}\n" +
			"spec:\n  type: " + st + "\n  resourceGroup: rg-shared\n" + body
	}
	reader := doc(rgDocT, rgType, "", `{location: westeurope, tags: {blob: "${ref:st1.properties.primaryEndpoints.blob}"}}`)
	o := docs(ex("st1", "", ""), reader)
	o.LookupEnv = envOf(map[string]string{"AZURE_SUBSCRIPTION_ID": testSub})
	s := load(t, o)
	if len(s.Resources) != 1 || len(s.Existing) != 1 || s.Existing[0].Name != "st1" || len(s.Resources[0].DependsOn) != 0 || len(s.Unselected) != 0 {
		t.Fatalf("resources %d, existing %v, depends %v, unselected %v", len(s.Resources), s.Existing, s.Resources[0].DependsOn, s.Unselected)
	}
	for _, c := range []struct{ doc, want string }{
		{ex("st1", "", "  body: {tags: {a: b}}\n"), "spec.body: a resource annotated azure.kubectl.io/existing: true is only read"},
		{ex("st1", ", azure.kubectl.io/prevent-destroy: \"true\"", ""), "metadata.annotations.azure.kubectl.io/prevent-destroy: means nothing"},
		{ex("${guid:${ref:rg-demo.properties.provisioningState}}", "", ""), "known only after apply"},
	} {
		o := docs(c.doc, doc(rgDocT, rgType, "", "{location: westeurope}"))
		o.LookupEnv = envOf(map[string]string{"AZURE_SUBSCRIPTION_ID": testSub})
		if ve := loadErr(t, o); !strings.Contains(ve.Error(), c.want) {
			t.Errorf("want %q in:\n%v", c.want, ve)
		}
	}
}
