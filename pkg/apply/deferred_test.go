package apply

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

const reader = "acdd72a7-3385-48ef-bd42-f606fba81ae7"

// rgDoc declares the resource group rg1 the other test documents live in.
const rgDoc = `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: rg1}
spec:
  type: Microsoft.Resources/resourceGroups@2021-04-01
  body: {location: westeurope}
`

const refDocs = rgDoc + `---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: id-app}
spec:
  type: Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31
  resourceGroup: rg1
  body: {location: westeurope}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata:
  name: ${guid:${ref:rg1},${ref:id-app.properties.principalId},` + reader + `}
spec:
  type: Microsoft.Authorization/roleAssignments@2022-04-01
  scope: ${ref:rg1}
  body:
    properties:
      roleDefinitionId: /subscriptions/${subscriptionId}/providers/Microsoft.Authorization/roleDefinitions/` + reader + `
      principalId: ${ref:id-app.properties.principalId}
`

// appWithSetting declares the storage account stdemo001 and the web app
// "app" whose one app setting is name: value (a valueFrom over stdemo001).
func appWithSetting(name, value string) string {
	return `
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: stdemo001}
spec:
  type: Microsoft.Storage/storageAccounts@2023-05-01
  resourceGroup: rg1
  body: {location: westeurope, kind: StorageV2, sku: {name: Standard_LRS}}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: app}
spec:
  type: Microsoft.Web/sites@2023-12-01
  resourceGroup: rg1
  body:
    location: westeurope
    properties:
      siteConfig:
        appSettings:
        - name: ` + name + `
          value: ` + value + `
`
}

var actionDocs = appWithSetting("KEY", `{valueFrom: {action: {resource: stdemo001, name: listKeys, path: "keys[0].value"}}}`)

var (
	stdemoID = rgID("rg1") + "/providers/Microsoft.Storage/storageAccounts/stdemo001"
	appID    = rgID("rg1") + "/providers/Microsoft.Web/sites/app"
)

// listKeysARM is a fake ARM whose identities get a principalId when created
// and whose stdemo001 answers listKeys with key.
func listKeysARM(key string) *fakeARM {
	a := newFakeARM()
	principals(a, "11111111-2222-3333-4444-555555555555")
	setListKey(a, key)
	return a
}

// setListKey makes stdemo001's listKeys answer key (a rotation, when set again).
func setListKey(a *fakeARM, key string) {
	a.actions[armid.Key(stdemoID+"/listKeys")] = map[string]any{"keys": []any{map[string]any{"value": key}}}
}

// echoNames makes a's writes answer the resource's name, as ARM does.
func echoNames(a *fakeARM) {
	generate := a.generate
	a.generate = func(id string, b map[string]any) {
		generate(id, b)
		b["name"] = id[strings.LastIndex(id, "/")+1:]
	}
}

// writtenAppSetting is the value of the first app setting ARM holds for app.
func writtenAppSetting(a *fakeARM) any {
	a.mu.Lock()
	written := a.res[armid.Key(appID)]
	a.mu.Unlock()
	settings := written["properties"].(map[string]any)["siteConfig"].(map[string]any)["appSettings"].([]any)
	return settings[0].(map[string]any)["value"]
}

// checkSecretHidden fails t unless e's registry scrubs secret out of the
// value written (written) and app's state record does not hold secret in
// clear; what names the value in the messages.
func checkSecretHidden(t *testing.T, e *Engine, st *memStore, written, secret, what string) {
	t.Helper()
	if strings.Contains(e.Secrets.Scrub("x "+written+" y"), secret) {
		t.Errorf("%s is not registered for scrubbing", what)
	}
	rec, err := st.Get(context.Background(), appID)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(fmtJSON(t, rec), secret) {
		t.Errorf("state holds %s in clear", what)
	}
}

// appliedRefDocs plans and applies refDocs on a fresh fake ARM whose
// identities get a principalId, so the next plan sees everything existing.
func appliedRefDocs(t *testing.T) (*fakeARM, *memStore, *Engine) {
	t.Helper()
	a := newFakeARM()
	principals(a, "11111111-2222-3333-4444-555555555555")
	st := newMemStore()
	e := newEngine(a, st, DefaultOptions())
	p, err := e.Plan(context.Background(), loadDocs(t, refDocs))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Execute(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	return a, st, e
}

func loadDocs(t *testing.T, docs string) *manifest.Set {
	t.Helper()
	return loadSelected(t, docs, "")
}

// loadSelected loads docs (as m.yaml) with the -l selector.
func loadSelected(t *testing.T, docs, selector string) *manifest.Set {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "m.yaml"), []byte(docs), 0o600); err != nil {
		t.Fatal(err)
	}
	o := manifest.NewLoadOptions()
	o.Filenames = []string{dir}
	o.Subscription = sub
	o.Selector = selector
	set, err := manifest.Load(context.Background(), o)
	if err != nil {
		t.Fatalf("loading: %v", err)
	}
	return set
}

// principals gives identities a principalId when created, as Azure does.
func principals(a *fakeARM, value string) {
	a.generate = func(id string, b map[string]any) {
		if strings.EqualFold(armid.TypeOf(id), "Microsoft.ManagedIdentity/userAssignedIdentities") {
			b["properties"] = map[string]any{"principalId": value}
		}
	}
}

// TestDeferredValuesResolvedAtApply: a name and a body value computed from
// a generated principalId are unknown in the first plan, resolved after the
// identity is created, and known from the live identity in the next plan.
func TestDeferredValuesResolvedAtApply(t *testing.T) {
	a := newFakeARM()
	principals(a, "11111111-2222-3333-4444-555555555555")
	st := newMemStore()
	e := newEngine(a, st, DefaultOptions())
	set := loadDocs(t, refDocs)

	p, err := e.Plan(context.Background(), set)
	if err != nil {
		t.Fatal(err)
	}
	var ra plan.Resource
	for _, r := range p.Plan.Resources {
		if strings.Contains(r.Type, "roleAssignments") {
			ra = r
		}
	}
	if ra.Action != plan.ActionCreate || !ra.NameKnownAfterApply {
		t.Fatalf("role assignment planned %s, nameKnownAfterApply=%v", ra.Action, ra.NameKnownAfterApply)
	}
	// The group is read; the identity inside the absent group needs no
	// read; the role assignment's name is not known, so it cannot be read.
	if got := a.Calls("GET"); len(got) != 1 || !strings.HasSuffix(got[0], rgID("rg1")) {
		t.Errorf("plan read %q, want only the resource group (a deferred name cannot be read; nothing inside an absent group is read)", got)
	}
	if _, err := e.Execute(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	want := rgID("rg1") + "/providers/Microsoft.Authorization/roleAssignments/" + manifest.ARMGuid(rgID("rg1"), "11111111-2222-3333-4444-555555555555", reader)
	a.mu.Lock()
	got, ok := a.res[armid.Key(want)]
	a.mu.Unlock()
	if !ok {
		t.Fatalf("no role assignment at %s; calls %v", want, a.calls)
	}
	if pid := got["properties"].(map[string]any)["principalId"]; pid != "11111111-2222-3333-4444-555555555555" {
		t.Errorf("principalId written = %v", pid)
	}
	if !st.has(want) {
		t.Errorf("the role assignment is not recorded under its real ID")
	}

	// Next plan: everything exists; the name resolves from live state.
	p2, err := e.Plan(context.Background(), loadDocs(t, refDocs))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range p2.Plan.Resources {
		if r.Action != plan.ActionNoOp {
			t.Errorf("second plan: %s %s %+v", r.Action, r.ID, r.Changes)
		}
	}
}

// TestReplacedReferenceMakesDependantsUnknown: when the identity is
// replaced, the value the role assignment reads is unknown again and the
// plan says why.
func TestReplacedReferenceMakesDependantsUnknown(t *testing.T) {
	_, _, e := appliedRefDocs(t)
	// Pretend the identity must be replaced; its dependants then read a
	// value the plan cannot know.
	byKey := map[string]*item{}
	p2, err := e.Plan(context.Background(), loadDocs(t, refDocs))
	if err != nil {
		t.Fatal(err)
	}
	var ra *item
	for _, it := range p2.items {
		byKey[armid.Key(it.id)] = it
		if strings.Contains(it.typ, "roleAssignments") {
			ra = it
		}
	}
	for _, it := range p2.items {
		if strings.Contains(it.typ, "userAssignedIdentities") {
			it.planned.Action = plan.ActionReplace
		}
	}
	ra.body, ra.unknown, ra.waitsOn = nil, nil, nil
	if err := e.resolveAtPlan(context.Background(), ra, planScope{byKey: byKey}); err != nil {
		t.Fatal(err)
	}
	e.decide(ra, p2)
	if !reflect.DeepEqual(ra.unknown, []string{"properties.principalId"}) || len(ra.waitsOn) != 1 {
		t.Fatalf("unknown %v waitsOn %v", ra.unknown, ra.waitsOn)
	}
	if !strings.Contains(ra.planned.Reason, "which the plan replaces") {
		t.Errorf("reason %q does not say why", ra.planned.Reason)
	}
	found := false
	for _, c := range ra.planned.Changes {
		if c.Path == "properties.principalId" && c.KnownAfterApply {
			found = true
		}
	}
	if !found {
		t.Errorf("changes %+v lack properties.principalId known after apply", ra.planned.Changes)
	}
}

// TestActionSecretsFetchedAtApply: a listKeys value is fetched only when
// the resource is written, registered for scrubbing, and stored hashed.
func TestActionSecretsFetchedAtApply(t *testing.T) {
	a := listKeysARM("key-from-action-42")
	st := newMemStore()
	e := newEngine(a, st, DefaultOptions())
	p, err := e.Plan(context.Background(), loadDocs(t, refDocs+actionDocs))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(a.Calls("POST")); n != 0 {
		t.Fatalf("the plan called %d actions; secrets are read at apply time only", n)
	}
	if r, err := e.Execute(context.Background(), p); err != nil {
		t.Fatalf("%v: %+v", err, r.Results)
	}
	if n := len(a.Calls("POST")); n != 1 {
		t.Errorf("actions called %d times, want 1", n)
	}
	if v := writtenAppSetting(a); v != "key-from-action-42" {
		t.Errorf("written value = %v", v)
	}
	checkSecretHidden(t, e, st, "key-from-action-42", "key-from-action-42", "the action's secret")
}

func TestSetPath(t *testing.T) {
	for _, tc := range []struct {
		path string
		want string
	}{
		{"properties.a", `{"properties":{"a":"V","b":[1,{"c":2}]},"tags":{"x.y":"1"}}`},
		{"properties.b[1].c", `{"properties":{"a":1,"b":[1,{"c":"V"}]},"tags":{"x.y":"1"}}`},
		{`tags."x.y"`, `{"properties":{"a":1,"b":[1,{"c":2}]},"tags":{"x.y":"V"}}`},
		// The loader's key for a member with a space (an MSDeploy
		// extension's setParameters."Database Server").
		{`properties."Database Server"`, `{"properties":{"Database Server":"V","a":1,"b":[1,{"c":2}]},"tags":{"x.y":"1"}}`},
	} {
		b := map[string]any{"properties": map[string]any{"a": 1, "b": []any{1, map[string]any{"c": 2}}}, "tags": map[string]any{"x.y": "1"}}
		if err := setPath(b, tc.path, "V"); err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		if got := fmtJSON(t, b); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.path, got, tc.want)
		}
	}
	for _, bad := range []string{"", "properties.b[9]", "properties.a.x", "tags[x"} {
		b := map[string]any{"properties": map[string]any{"a": 1, "b": []any{1}}}
		if err := setPath(b, bad, "V"); err == nil {
			t.Errorf("setPath(%q) accepted", bad)
		}
	}
}

// FuzzSetPath: paths come from manifests; setting a value never panics and,
// when it succeeds, the value is found at the path afterwards.
func FuzzSetPath(f *testing.F) {
	for _, s := range []string{"properties.a", "properties.b[1].c", `tags["x.y"]`, "a..b", "[", "b[-1]", "properties.b[99]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		b := map[string]any{"properties": map[string]any{"a": 1, "b": []any{1, map[string]any{"c": 2}}}, "tags": map[string]any{"x.y": "1"}}
		if err := setPath(b, path, "V"); err != nil {
			return
		}
		segs, _ := bodypath.Parse(path)
		var cur any = b
		for _, s := range segs {
			switch c := cur.(type) {
			case map[string]any:
				cur = c[s.Name]
			case []any:
				cur = c[s.Index]
			}
		}
		if cur != "V" {
			t.Fatalf("setPath(%q) succeeded but the value is %v", path, cur)
		}
	})
}

// TestRunDAGCycleFails: items on a cycle (which the loader refuses) fail
// instead of waiting forever.
func TestRunDAGCycleFails(t *testing.T) {
	a := &item{id: "/a", planned: plan.Resource{Action: plan.ActionCreate}}
	b := &item{id: "/b", planned: plan.Resource{Action: plan.ActionCreate}, deps: []*item{a}}
	a.deps = []*item{b}
	free := &item{id: "/c", planned: plan.Resource{Action: plan.ActionCreate}}
	e := &Engine{}
	ran := 0
	errs := e.runDAG(context.Background(), context.Background(), []*item{a, b, free}, func(it *item) []*item { return it.deps },
		func(context.Context, *item) error { ran++; return nil })
	if ran != 1 || errs[free] != nil || errs[a] == nil || errs[b] == nil {
		t.Fatalf("ran %d, errs %v", ran, errs)
	}
}

// TestPruneKeepsResourceWithComputedName: the record of a resource whose
// name is computed is not pruned once the name resolves to it.
func TestPruneKeepsResourceWithComputedName(t *testing.T) {
	_, _, e := appliedRefDocs(t)
	e.Options.Prune = true
	p2, err := e.Plan(context.Background(), loadDocs(t, refDocs))
	if err != nil {
		t.Fatal(err)
	}
	if len(p2.Plan.Resources) != 3 || p2.Plan.Summary.Delete != 0 || p2.Plan.HasChanges() {
		t.Fatalf("plan = %+v", p2.Plan.Summary)
	}
}

// TestEngineRegistryIsPerRun: an engine given no registry makes one over
// the manifest set's; the action secret it reads goes there and not into
// the set's registry, so a loop planning the same set again and again (the
// controller) does not pile up every key it ever read, and a second run's
// engine does not hold the first's value.
func TestEngineRegistryIsPerRun(t *testing.T) {
	set := loadDocs(t, refDocs+actionDocs)
	run := func(key string) *Engine {
		e := newEngine(listKeysARM(key), newMemStore(), DefaultOptions())
		p, err := e.Plan(context.Background(), set)
		if err != nil {
			t.Fatal(err)
		}
		if r, err := e.Execute(context.Background(), p); err != nil {
			t.Fatalf("%v: %+v", err, r.Results)
		}
		return e
	}
	first := run("first-run-action-key-1")
	second := run("second-run-action-key-2")
	if first.Secrets == second.Secrets || !first.Secrets.Registered("first-run-action-key-1") {
		t.Fatal("each run's engine must have its own registry holding its values")
	}
	if second.Secrets.Registered("first-run-action-key-1") {
		t.Error("the second run's registry holds the first run's action secret")
	}
	if set.Secrets.Registered("first-run-action-key-1") || set.Secrets.Registered("second-run-action-key-2") {
		t.Error("an action secret read at apply time grew the manifest set's registry")
	}
}

// vaultWithSecretDocs declares the vault kv1 and its secret db-password.
const vaultWithSecretDocs = `
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: kv1}
spec:
  type: Microsoft.KeyVault/vaults@2023-07-01
  resourceGroup: rg1
  body:
    location: westeurope
    properties: {tenantId: 00000000-0000-0000-0000-000000000000, sku: {family: A, name: standard}}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: db-password}
spec:
  type: Microsoft.KeyVault/vaults/secrets@2023-07-01
  parent: Microsoft.KeyVault/vaults/kv1
  resourceGroup: rg1
  body:
    properties: {value: not-so-secret}
`

// idCopyingTheSecretDoc declares the identity id-app, tagged with the
// value of vaultWithSecretDocs' secret.
const idCopyingTheSecretDoc = `---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: id-app}
spec:
  type: Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31
  resourceGroup: rg1
  body:
    location: westeurope
    tags: {copy: "${ref:db-password.properties.value}"}
`

// secretsWithheldARM is a fake ARM that, as ARM, accepts a Key Vault
// secret's value and never returns it.
func secretsWithheldARM() *fakeARM {
	a := newFakeARM()
	a.generate = func(id string, b map[string]any) {
		if strings.EqualFold(armid.TypeOf(id), "Microsoft.KeyVault/vaults/secrets") {
			if p, ok := b["properties"].(map[string]any); ok {
				delete(p, "value")
			}
		}
	}
	return a
}

// A reference to a value ARM never returns (a Key Vault secret's value)
// fails at apply saying so, instead of asking the user to check the path.
func TestReferenceToAWriteOnlyValueSaysWhy(t *testing.T) {
	a := secretsWithheldARM()
	e := newEngine(a, newMemStore(), DefaultOptions())
	e.Schemas = schema.Default()
	set := loadDocs(t, vaultWithSecretDocs+idCopyingTheSecretDoc)
	a.seed(rgID("rg1"), body())
	p, err := e.Plan(context.Background(), set)
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.Execute(context.Background(), p)
	if err == nil {
		t.Fatal("the identity was applied with a value Azure never returns")
	}
	var msg string
	for _, rr := range r.Results {
		if strings.HasSuffix(rr.ID, "/id-app") {
			msg = rr.Error
		}
	}
	if !strings.Contains(msg, "write-only") || !strings.Contains(msg, "properties.value") {
		t.Fatalf("the identity's error = %q, want it to name properties.value as write-only", msg)
	}
}
