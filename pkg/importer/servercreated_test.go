package importer_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportLeavesServerCreatedChildren: import --children of an Event
// Hubs namespace writes the rule and consumer group a person made, and no
// manifest for RootManageSharedAccessKey or $Default, which the service
// creates with their parents (issue 44 item 1).
func TestImportLeavesServerCreatedChildren(t *testing.T) {
	srv := startEmulator(t, false)
	g := "/subscriptions/" + testSub + "/resourceGroups/rg-imp-sc"
	ns := g + "/providers/Microsoft.EventHub/namespaces/eh-imp-001"
	for _, w := range []struct{ id, ver, body string }{
		{g, "2021-04-01", `{"location":"westeurope"}`},
		{ns, "2024-01-01", `{"location":"westeurope","sku":{"name":"Standard"}}`},
		{ns + "/eventhubs/orders", "2024-01-01", `{"properties":{"partitionCount":2}}`},
		{ns + "/authorizationRules/ci-sender", "2024-01-01", `{"properties":{"rights":["Send"]}}`},
		{ns + "/eventhubs/orders/consumergroups/cg1", "2024-01-01", `{"properties":{}}`},
	} {
		req, _ := http.NewRequest(http.MethodPut, srv.URL()+w.id+"?api-version="+w.ver, strings.NewReader(w.body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode/100 != 2 {
			t.Fatalf("PUT %s: %v %v", w.id, err, resp)
		}
		resp.Body.Close()
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "infra")
	stdout, stderr, code := runCLI(t, "--endpoint", srv.URL(), "--state", filepath.Join(dir, "state.json"), "--subscription", testSub,
		"import", ns, "--children", "--output-dir", out)
	if code != 0 {
		t.Fatalf("import exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.yaml"))
	var all strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all.WriteString(filepath.Base(f) + ":\n" + string(b) + "\n")
	}
	got := all.String()
	for _, want := range []string{"ci-sender", "cg1", "orders"} {
		if !strings.Contains(got, "name: "+want) {
			t.Errorf("import did not write %s:\n%s", want, got)
		}
	}
	for _, not := range []string{"RootManageSharedAccessKey", "$Default"} {
		if strings.Contains(got, not) {
			t.Errorf("import wrote a manifest for %s, which the service creates:\n%s", not, got)
		}
	}
}
