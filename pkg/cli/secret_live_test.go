package cli_test

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// Every entry of an App Service appsettings resource is a secret, also one
// added outside the tool that neither the manifests nor the state name: a
// plan shows its change as sensitive and never its value.
func TestAppSettingAddedOutsideStaysSecret(t *testing.T) {
	e := newEnv(t, nil)
	dir := manifestDir(t, filepath.Join(t.TempDir(), "web"), "web.yaml", `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: rg-web}
spec:
  type: Microsoft.Resources/resourceGroups@2021-04-01
  body: {location: westeurope}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: plan-web}
spec:
  type: Microsoft.Web/serverfarms@2022-09-01
  resourceGroup: rg-web
  body: {location: westeurope, sku: {name: B1}}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: app-web-001}
spec:
  type: Microsoft.Web/sites@2022-09-01
  resourceGroup: rg-web
  body:
    location: westeurope
    properties: {serverFarmId: "${ref:plan-web.id}"}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: appsettings}
spec:
  type: Microsoft.Web/sites/config@2022-09-01
  resourceGroup: rg-web
  parent: app-web-001
  body:
    properties: {DECLARED: declared-value-123}
`)
	e.mustRun(0, "apply", "-f", dir, "--yes")
	id := rg("rg-web") + "/providers/Microsoft.Web/sites/app-web-001/config/appsettings"
	r, err := httpWrite(http.MethodPut, e.srv.URL()+id+"?api-version=2022-09-01", `{"properties":{"DECLARED":"declared-value-123","ADDED":"added-outside-value-456"}}`)
	if err != nil || r.code >= 300 {
		t.Fatalf("PUT %s: %v %d %s", id, err, r.code, r.body)
	}
	for _, args := range [][]string{{"get", "-f", dir, "-o", "json"}, {"get", "-f", dir, "-o", "yaml"}, {"-v", "8", "diff", "-f", dir}} {
		out, errOut, _ := e.run(args...)
		if strings.Contains(out+errOut, "added-outside-value-456") || strings.Contains(out+errOut, "declared-value-123") {
			t.Fatalf("%v shows an app setting's value:\n%s\n%s", args, out, errOut)
		}
	}
	for _, format := range []string{"text", "json", "yaml", "markdown"} {
		out, errOut, code := e.run("diff", "-f", dir, "-o", format)
		if code > 1 {
			t.Fatalf("diff -o %s exited %d:\n%s\n%s", format, code, out, errOut)
		}
		if strings.Contains(out+errOut, "added-outside-value-456") || strings.Contains(out+errOut, "declared-value-123") {
			t.Fatalf("diff -o %s shows an app setting's value:\n%s\n%s", format, out, errOut)
		}
		if format == "text" && (!strings.Contains(out, "properties.ADDED") || !strings.Contains(out, "(sensitive)")) {
			t.Fatalf("diff does not report the setting added outside:\n%s", out)
		}
	}
	// A declared setting changed outside is drift too (the service answers
	// settings as they were sent), hidden like the rest.
	r, err = httpWrite(http.MethodPut, e.srv.URL()+id+"?api-version=2022-09-01", `{"properties":{"DECLARED":"changed-outside-value-789"}}`)
	if err != nil || r.code >= 300 {
		t.Fatalf("PUT %s: %v %d %s", id, err, r.code, r.body)
	}
	out, errOut, code := e.run("diff", "-f", dir)
	if code != 1 || !strings.Contains(out, "properties.DECLARED") || strings.Contains(out+errOut, "changed-outside-value-789") || strings.Contains(out+errOut, "declared-value-123") {
		t.Fatalf("a declared setting changed outside: exit %d\n%s\n%s", code, out, errOut)
	}
}
