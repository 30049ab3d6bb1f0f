package importer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/importer"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

const storageType = "Microsoft.Storage/storageAccounts"

func storageID(name string) string {
	return "/subscriptions/" + testSub + "/resourceGroups/rg1/providers/" + storageType + "/" + name
}

// rejecting puts a front in front of the emulator that answers ARM's
// "unsupported api-version" error for one version, and counts those answers.
func rejecting(t *testing.T, h http.Handler, version string, count *atomic.Int64) string {
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("api-version") == version {
			count.Add(1)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":{"code":"InvalidApiVersionParameter","message":"The api-version '` + version + `' is invalid."}}`))
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	return front.URL
}

func TestAPIVersionFallsBackWhenARMRejectsTheNewest(t *testing.T) {
	srv := startEmulator(t, false)
	var ids []string
	for _, n := range []string{"sta", "stb", "stc", "std"} {
		id := storageID(n)
		if err := srv.Seed(id, "2023-01-01", map[string]any{"id": id, "name": n, "location": "westus", "kind": "StorageV2"}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	vs := schema.Default().Versions(storageType)
	newest := importer.NewestStable(schema.Default(), storageType)
	if newest == "" || len(vs) < 2 {
		t.Fatalf("the schema should know several versions of %s, got %v", storageType, vs)
	}
	var rejected atomic.Int64
	url := rejecting(t, srv.Handler(), newest, &rejected)
	o := importer.DefaultOptions()
	o.IDs, o.Subscription = ids, testSub
	res, err := newImporter(armClient(t, url, false), o).Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Resources {
		if r.APIVersion == newest || r.APIVersion == "" {
			t.Errorf("%s: api-version %q, want the next one down from %s", r.ID, r.APIVersion, newest)
		}
		if !strings.Contains(string(r.YAML), "type: "+storageType+"@"+r.APIVersion) {
			t.Errorf("manifest does not pin the version that worked:\n%s", r.YAML)
		}
	}
	if got := rejected.Load(); got != 1 {
		t.Errorf("ARM rejected %d requests; the first rejection should settle the version for the whole type", got)
	}

	// A pinned version is never replaced by another one.
	rejected.Store(0)
	o.APIVersions = map[string]string{strings.ToLower(storageType): newest}
	res, err = newImporter(armClient(t, url, false), o).Read(context.Background())
	if err == nil || len(res.Failed) != len(ids) || !strings.Contains(err.Error(), "InvalidApiVersionParameter") {
		t.Errorf("pinned rejected version: err=%v, failed=%d", err, len(res.Failed))
	}
}

func TestSecretsAreNeverEmittedAndStayUnmanaged(t *testing.T) {
	srv := startEmulator(t, false)
	id := "/subscriptions/" + testSub + "/resourceGroups/rg1/providers/Microsoft.Sql/servers/sql1"
	if err := srv.Seed(id, "2021-11-01", map[string]any{"id": id, "name": "sql1", "type": "Microsoft.Sql/servers", "location": "westus",
		"properties": map[string]any{"administratorLogin": "admin1", "version": "12.0", "state": "Ready",
			"fullyQualifiedDomainName": "sql1.database.windows.net", "administratorLoginPassword": "leaked-by-a-bad-RP"}}); err != nil {
		t.Fatal(err)
	}
	o := importer.DefaultOptions()
	o.IDs = []string{id}
	c := armClient(t, srv.URL(), false)
	im := newImporter(c, o)
	var warn bytes.Buffer
	im.Warn = &warn
	res, err := im.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	doc := string(res.Resources[0].YAML)
	t.Logf("manifest:\n%s", doc)
	if strings.Contains(doc, "leaked-by-a-bad-RP") {
		t.Fatalf("a secret value was emitted")
	}
	if !strings.Contains(doc, "administratorLoginPassword:\n                valueFrom:\n                    env: SQL1_ADMINISTRATORLOGINPASSWORD") &&
		!strings.Contains(doc, "administratorLoginPassword:\n        valueFrom:\n          env: SQL1_ADMINISTRATORLOGINPASSWORD") {
		t.Errorf("the manifest should read the secret from valueFrom.env SQL1_ADMINISTRATORLOGINPASSWORD")
	}
	if !strings.Contains(doc, "# spec.body.properties.administratorLoginPassword is secret: it is read from the environment variable SQL1_ADMINISTRATORLOGINPASSWORD") {
		t.Errorf("the manifest should explain where the secret comes from")
	}
	if !strings.Contains(warn.String(), "set SQL1_ADMINISTRATORLOGINPASSWORD") {
		t.Errorf("stderr should name the variable to set:\n%s", warn.String())
	}
	if strings.Contains(doc, "fullyQualifiedDomainName") || strings.Contains(doc, "state: Ready") {
		t.Errorf("readonly properties emitted")
	}
	st := openStore(t)
	if err := im.Record(context.Background(), st, res, 0); err != nil {
		t.Fatal(err)
	}
	// Neither L nor B holds the secret in clear.
	rec, err := st.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(rec); strings.Contains(string(b), "leaked-by-a-bad-RP") {
		t.Errorf("state holds the secret in clear: %s", b)
	}
	// The user exports the variable: the first diff is empty.
	env := map[string]string{"SQL1_ADMINISTRATORLOGINPASSWORD": "leaked-by-a-bad-RP"}
	p := planSet(t, c, st, loadYAMLEnv(t, yamlOf(t, res), env))
	if r := p.Resources[0]; r.Action != plan.ActionNoOp || len(r.Changes) != 0 {
		t.Errorf("first diff after import: %s %s", r.Action, describeChanges(r.Changes))
	}
}

func TestCLIPartialImportReportsFailuresAndKeepsTheRest(t *testing.T) {
	srv := startEmulator(t, false)
	id := storageID("stok")
	if err := srv.Seed(id, "2023-01-01", map[string]any{"id": id, "name": "stok", "location": "westus", "kind": "StorageV2",
		"sku": map[string]any{"name": "Standard_LRS"}}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	common := []string{"--endpoint", srv.URL(), "--state", filepath.Join(dir, "state.json"), "--subscription", testSub}
	stdout, stderr, code := runCLI(t, append([]string{"import", id, storageID("missing")}, common...)...)
	if code == 0 {
		t.Fatalf("import with a missing ID exited 0\n%s", stderr)
	}
	if !strings.Contains(stderr, "missing was not found") || !strings.Contains(stdout, "name: stok") {
		t.Fatalf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	f := filepath.Join(dir, "stok.yaml")
	if err := os.WriteFile(f, []byte(stdout), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := runCLI(t, append([]string{"diff", "-f", f}, common...)...); code != 0 {
		t.Errorf("diff after import: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, errOut, code := runCLI(t, append([]string{"import", id, "-o", "json"}, common...)...); code != 2 || !strings.Contains(errOut, "yaml") {
		t.Errorf("-o json: exit %d, %s", code, errOut)
	}
}

// TestUnknownTypeAsksARMForItsVersions: a type the schema index does not
// know gets its api-version from ARM's provider metadata, and without it
// the error says how to pin one.
func TestUnknownTypeAsksARMForItsVersions(t *testing.T) {
	srv := startEmulator(t, false)
	id := "/subscriptions/" + testSub + "/resourceGroups/rg1/providers/Contoso.Widgets/gadgets/g1"
	if err := srv.Seed(id, "2022-02-02", map[string]any{"id": id, "name": "g1", "location": "westus", "properties": map[string]any{"size": 3.0}}); err != nil {
		t.Fatal(err)
	}
	var listed atomic.Bool
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.EqualFold(r.URL.Path, "/subscriptions/"+testSub+"/providers/Contoso.Widgets") && listed.Load() {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"namespace":"Contoso.Widgets","resourceTypes":[{"resourceType":"gadgets","apiVersions":["2024-01-01-preview","2022-02-02","2021-01-01"]}]}`))
			return
		}
		srv.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	o := importer.DefaultOptions()
	o.IDs = []string{id}

	_, err := newImporter(armClient(t, front.URL, false), o).Read(context.Background())
	if err == nil || !strings.Contains(err.Error(), "--api-version Contoso.Widgets/gadgets=VERSION") {
		t.Errorf("without provider metadata: err = %v, want advice to pin a version", err)
	}
	listed.Store(true)
	res, err := newImporter(armClient(t, front.URL, false), o).Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Resources[0].APIVersion; got != "2022-02-02" {
		t.Errorf("api-version %s, want the newest stable one ARM lists (2022-02-02)", got)
	}
}

// A percent-encoded ID (as copied from a URL) imports as the decoded ID.
func TestPercentEncodedIDImports(t *testing.T) {
	srv := startEmulator(t, false)
	id := storageID("st-enc")
	if err := srv.Seed(id, "2023-01-01", map[string]any{"id": id, "name": "st-enc", "location": "westus", "kind": "StorageV2",
		"sku": map[string]any{"name": "Standard_LRS"}}); err != nil {
		t.Fatal(err)
	}
	o := importer.DefaultOptions()
	o.IDs = []string{strings.Replace(id, "st-enc", "st%2Denc", 1)}
	res, err := newImporter(armClient(t, srv.URL(), false), o).Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Resources) != 1 || res.Resources[0].ID != id || res.Resources[0].Name != "st-enc" {
		t.Fatalf("imported %+v, want %s", res.Resources, id)
	}
}
