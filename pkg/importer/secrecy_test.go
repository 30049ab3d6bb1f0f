package importer_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/importer"
)

// An API Management named value with secret: false is plain configuration
// and a connection string's type (either case) names a kind: import writes
// both in clear; a secret named value and a connection string's value
// still come from the environment; the first plan after the import is
// empty.
func TestImportSecretRulesFollowSiblingFlagsAndIdentifiers(t *testing.T) {
	srv := startEmulator(t, false)
	c := armClient(t, srv.URL(), false)
	g := "/subscriptions/" + testSub + "/resourceGroups/rg-sec"
	apim := g + "/providers/Microsoft.ApiManagement/service/apim-sec"
	site := g + "/providers/Microsoft.Web/sites/app-sec"
	for _, w := range []struct{ id, v, body string }{
		{g, "2021-04-01", `{"location":"westeurope"}`},
		{apim, "2022-08-01", `{"location":"westeurope","sku":{"name":"Developer","capacity":1},"properties":{"publisherEmail":"a@example.com","publisherName":"x"}}`},
		{apim + "/namedValues/plain", "2022-08-01", `{"properties":{"displayName":"plain","value":"plain-config-value","secret":false}}`},
		{apim + "/namedValues/hidden", "2022-08-01", `{"properties":{"displayName":"hidden","value":"hidden-secret-value","secret":true}}`},
		{g + "/providers/Microsoft.Web/serverfarms/plan-sec", "2023-01-01", `{"location":"westeurope","sku":{"name":"B1"}}`},
		{site, "2023-01-01", `{"location":"westeurope","properties":{"serverFarmId":"` + g + `/providers/Microsoft.Web/serverfarms/plan-sec"}}`},
		{site + "/config/connectionstrings", "2023-01-01", `{"properties":{"db":{"value":"Server=x;Password=cs-secret","Type":"SQLAzure"}}}`},
	} {
		req, _ := http.NewRequest(http.MethodPut, srv.URL()+w.id+"?api-version="+w.v, strings.NewReader(w.body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode >= 300 {
			t.Fatalf("PUT %s: %v %v", w.id, err, resp)
		}
		resp.Body.Close()
	}
	time.Sleep(50 * time.Millisecond) // long-running creates settle
	st := openStore(t)
	im := newImporter(c, importer.Options{IDs: []string{apim + "/namedValues/plain", apim + "/namedValues/hidden", site + "/config/connectionstrings"}})
	res, err := im.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	y := string(yamlOf(t, res))
	for _, want := range []string{"value: plain-config-value", "Type: SQLAzure"} {
		if !strings.Contains(y, want) {
			t.Errorf("import lacks %q in clear:\n%s", want, y)
		}
	}
	for _, secret := range []string{"hidden-secret-value", "cs-secret"} {
		if strings.Contains(y, secret) {
			t.Errorf("import printed the secret %q:\n%s", secret, y)
		}
	}
	var paths []string
	for _, v := range res.SecretVariables() {
		paths = append(paths, v.Path)
	}
	if strings.Join(paths, ",") != "properties.value,properties.db.value" && strings.Join(paths, ",") != "properties.db.value,properties.value" {
		t.Errorf("secret variables for %v, want the hidden named value and the connection string's value", paths)
	}
	if err := im.Record(context.Background(), st, res, time.Second); err != nil {
		t.Fatal(err)
	}
	p := planSet(t, c, st, loadYAMLEnv(t, []byte(y), importer.EnvValues(res)))
	for _, r := range p.Resources {
		if len(r.Changes) > 0 {
			t.Errorf("plan after import changes %s: %s", r.ID, describeChanges(r.Changes))
		}
	}
}

// A diagnostic setting apply created under its own name is imported with
// an api-version whose name rule takes that name (2016-09-01 allows only
// "service"), so the manifest loads and plans nothing, as apply's did. Its
// body holds a member no version declares (a service newer than the
// specs), so no version is picked for declaring everything.
func TestImportKeepsNamesApplyAccepts(t *testing.T) {
	srv := startEmulator(t, false)
	c := armClient(t, srv.URL(), false)
	g := "/subscriptions/" + testSub + "/resourceGroups/rg-diag"
	ws := g + "/providers/Microsoft.OperationalInsights/workspaces/law-diag"
	kv := g + "/providers/Microsoft.KeyVault/vaults/kv-diag-1"
	diag := kv + "/providers/Microsoft.Insights/diagnosticSettings/to-law"
	for _, w := range []struct{ id, v, body string }{
		{g, "2021-04-01", `{"location":"westeurope"}`},
		{ws, "2022-10-01", `{"location":"westeurope","properties":{"sku":{"name":"PerGB2018"}}}`},
		{kv, "2023-07-01", `{"location":"westeurope","properties":{"tenantId":"8e2a4c1d-3b5f-4e7a-9c0d-6f1b2a3c4d5e","sku":{"family":"A","name":"standard"},"enableRbacAuthorization":true}}`},
		{diag, "2021-05-01-preview", `{"properties":{"workspaceId":"` + ws + `","metrics":[{"category":"AllMetrics","enabled":true}],"newerMember":"x"}}`},
	} {
		req, _ := http.NewRequest(http.MethodPut, srv.URL()+w.id+"?api-version="+w.v, strings.NewReader(w.body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode >= 300 {
			t.Fatalf("PUT %s: %v %v", w.id, err, resp)
		}
		resp.Body.Close()
	}
	time.Sleep(50 * time.Millisecond)
	st := openStore(t)
	im := newImporter(c, importer.Options{IDs: []string{diag}})
	res, err := im.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Resources) != 1 || strings.HasPrefix(res.Resources[0].APIVersion, "2016-") || strings.HasPrefix(res.Resources[0].APIVersion, "2015-") {
		t.Fatalf("imported with %+v, want a version that takes the name to-law", res.Resources)
	}
	y := yamlOf(t, res)
	if err := im.Record(context.Background(), st, res, time.Second); err != nil {
		t.Fatal(err)
	}
	p := planSet(t, c, st, loadYAMLEnv(t, y, importer.EnvValues(res)))
	for _, r := range p.Resources {
		if len(r.Changes) > 0 {
			t.Errorf("plan after import changes %s: %s", r.ID, describeChanges(r.Changes))
		}
	}
}
