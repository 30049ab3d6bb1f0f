package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const templateAppDocs = `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: rg-tmpl}
spec:
  type: Microsoft.Resources/resourceGroups@2021-04-01
  body: {location: westeurope}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: sttmpl001}
spec:
  type: Microsoft.Storage/storageAccounts@2023-05-01
  resourceGroup: rg-tmpl
  body: {location: westeurope, kind: StorageV2, sku: {name: Standard_LRS}}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: app-tmpl-001}
spec:
  type: Microsoft.Web/sites@2023-12-01
  resourceGroup: rg-tmpl
  body:
    location: westeurope
    properties:
      siteConfig:
        appSettings:
        - name: STORAGE
          value: {valueFrom: {template: "AccountName=${ref:sttmpl001.name};AccountKey=${secret:key}", secrets: {key: {action: {resource: sttmpl001, name: listKeys, path: "keys[0].value"}}}}}
        - name: KEY
          value: {valueFrom: {action: {resource: sttmpl001, name: listKeys, path: "keys[1].value"}}}
`

// TestTemplateActionApplyThenQuiet: a connection string built by
// valueFrom.template from listKeys is written at apply, never shown, and
// the next diff is quiet, as is a plain valueFrom.action value.
func TestTemplateActionApplyThenQuiet(t *testing.T) {
	e := newEnv(t, nil)
	dir := manifestDir(t, filepath.Join(t.TempDir(), "tmpl"), "app.yaml", templateAppDocs)
	plan := e.mustRun(1, "diff", "-f", dir)
	applied := e.mustRun(0, "apply", "-f", dir, "--yes")

	// The site's GET omits siteConfig.appSettings (write-only, as in
	// Azure); the keys the emulator hands out are what must stay hidden.
	const stID = "/subscriptions/" + testSub + "/resourceGroups/rg-tmpl/providers/Microsoft.Storage/storageAccounts/sttmpl001"
	resp, err := httpPost(e.srv.URL() + stID + "/listKeys?api-version=2023-05-01")
	if err != nil || resp.code != 200 || !strings.Contains(resp.body, `"value"`) {
		t.Fatalf("listKeys: %v %+v", err, resp)
	}
	var keys []string
	for _, part := range strings.Split(resp.body, `"value":"`)[1:] {
		keys = append(keys, part[:strings.IndexByte(part, '"')])
	}
	for name, out := range map[string]string{"diff": plan, "apply": applied} {
		for _, k := range keys {
			if strings.Contains(out, k) {
				t.Errorf("%s output shows a key:\n%s", name, out)
			}
		}
	}
	writes := func() int64 { s := e.srv.Stats().Requests; return s["PUT"] + s["PATCH"] }
	before := writes()
	if out := e.mustRun(0, "diff", "-f", dir); strings.Contains(out, "sensitive") {
		t.Errorf("second diff is not quiet:\n%s", out)
	}
	e.mustRun(0, "apply", "-f", dir, "--yes")
	if n := writes() - before; n != 0 {
		t.Errorf("the second apply wrote %d times", n)
	}
	data, err := os.ReadFile(e.state)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if strings.Contains(string(data), k) {
			t.Error("state holds a key in clear")
		}
	}
}
