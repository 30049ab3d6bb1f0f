package manifest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

const rgID = "/subscriptions/" + testSub + "/resourceGroups/rg-demo"

func load(t *testing.T, o LoadOptions) *Set {
	t.Helper()
	if o.LookupEnv == nil {
		o.LookupEnv = envOf(map[string]string{"AZURE_SUBSCRIPTION_ID": testSub})
	}
	if o.Stdin == nil {
		o.Stdin = strings.NewReader("")
	}
	s, err := Load(context.Background(), o)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return s
}

func loadErr(t *testing.T, o LoadOptions) *ValidationError {
	t.Helper()
	if o.LookupEnv == nil {
		o.LookupEnv = envOf(map[string]string{"AZURE_SUBSCRIPTION_ID": testSub})
	}
	if o.Stdin == nil {
		o.Stdin = strings.NewReader("")
	}
	s, err := Load(context.Background(), o)
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("want *ValidationError, got set=%v err=%v", s, err)
	}
	return ve
}

func stdin(doc string) LoadOptions {
	return LoadOptions{Filenames: []string{"-"}, Stdin: strings.NewReader(doc)}
}

func byName(t *testing.T, s *Set, name string) *Resource {
	t.Helper()
	for _, r := range s.Resources {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no resource %q in set", name)
	return nil
}

func TestLandingZone(t *testing.T) {
	s := load(t, LoadOptions{Filenames: []string{"../../testdata/landing-zone"}})
	if len(s.Resources) != 8 {
		t.Fatalf("want 8 resources, got %d", len(s.Resources))
	}
	if s.Subscription != testSub {
		t.Errorf("Subscription = %q", s.Subscription)
	}
	wantIDs := map[string]string{
		"rg-demo":      rgID,
		"vnet-demo":    rgID + "/providers/Microsoft.Network/virtualNetworks/vnet-demo",
		"snet-storage": rgID + "/providers/Microsoft.Network/virtualNetworks/vnet-demo/subnets/snet-storage",
		"stdemo001":    rgID + "/providers/Microsoft.Storage/storageAccounts/stdemo001",
		"3f0c8a3e-6d4b-4f7e-9a52-1c2b7d9e0a11": rgID + "/providers/Microsoft.Storage/storageAccounts/stdemo001" +
			"/providers/Microsoft.Authorization/roleAssignments/3f0c8a3e-6d4b-4f7e-9a52-1c2b7d9e0a11",
	}
	for name, want := range wantIDs {
		if got := byName(t, s, name).ID; got != want {
			t.Errorf("%s: ID = %s, want %s", name, got, want)
		}
	}
	st := byName(t, s, "stdemo001")
	wantDeps := []string{
		rgID,
		rgID + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-demo-app",
		rgID + "/providers/Microsoft.Network/virtualNetworks/vnet-demo/subnets/snet-storage",
	}
	if strings.Join(st.DependsOn, ",") != strings.Join(wantDeps, ",") {
		t.Errorf("storage DependsOn = %v, want %v", st.DependsOn, wantDeps)
	}
	uai := st.Body["identity"].(map[string]any)["userAssignedIdentities"].(map[string]any)
	if _, ok := uai[wantDeps[1]]; !ok || len(uai) != 1 {
		t.Errorf("reference as map key not resolved: %v", uai)
	}
	ra := byName(t, s, "3f0c8a3e-6d4b-4f7e-9a52-1c2b7d9e0a11")
	if got := ra.Body["properties"].(map[string]any)["roleDefinitionId"]; got != "/subscriptions/"+testSub+"/providers/Microsoft.Authorization/roleDefinitions/ba92f5b4-2d11-453d-a403-e96b0029c9fe" {
		t.Errorf("roleDefinitionId = %v", got)
	}
	if len(ra.DependsOn) != 2 || ra.DependsOn[1] != st.ID {
		t.Errorf("role assignment DependsOn = %v, want the group and the account", ra.DependsOn)
	}
	vnet := byName(t, s, "vnet-demo")
	if len(vnet.DependsOn) != 2 {
		t.Errorf("vnet DependsOn = %v, want group and NSG", vnet.DependsOn)
	}
	for _, r := range s.Resources {
		b, _ := json.Marshal(r.Body)
		if strings.Contains(string(b), "${") {
			t.Errorf("%s: unresolved placeholder left in body: %s", r.Origin, b)
		}
	}
	order, err := TopoSort(s.Resources)
	if err != nil {
		t.Fatal(err)
	}
	pos := map[string]int{}
	for i, r := range order {
		pos[r.ID] = i
	}
	for _, r := range s.Resources {
		for _, d := range r.DependsOn {
			if pos[d] > pos[r.ID] {
				t.Errorf("TopoSort puts %s before its dependency %s", r.ID, d)
			}
		}
	}
}

// The landing zone must never hard-code a subscription.
func TestLandingZoneHasNoSubscriptionLiteral(t *testing.T) {
	lit := regexp.MustCompile(`(?i)/subscriptions/[0-9a-f]{8}-`)
	for _, dir := range []string{"../../testdata/landing-zone", "../../testdata/overlays/prod"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		if len(files) == 0 {
			t.Fatalf("no manifests in %s", dir)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if lit.Match(b) {
				t.Errorf("%s hard-codes a subscription ID; use ${subscriptionId} or ${ref:...}", f)
			}
		}
	}
}

func TestKustomizeOverlay(t *testing.T) {
	base := load(t, LoadOptions{Filenames: []string{"../../testdata/landing-zone"}})
	dir := filepath.Join("..", "..", "testdata", "overlays", "prod")
	s := load(t, LoadOptions{Kustomize: dir})
	if len(s.Resources) != len(base.Resources) {
		t.Fatalf("overlay has %d resources, base %d", len(s.Resources), len(base.Resources))
	}
	for _, r := range s.Resources {
		b := base.ByID(r.ID)
		if b == nil {
			t.Errorf("overlay resource %s not in base", r.ID)
			continue
		}
		// The overlay enables origin annotations: each resource is traced
		// back to the same file and document -f reports.
		if r.Origin != b.Origin {
			t.Errorf("overlay origin %s, want the source document %s", r.Origin, b.Origin)
		}
		if tags, ok := r.Body["tags"].(map[string]any); ok && tags["env"] != nil && tags["env"] != "prod" {
			t.Errorf("%s: tags.env = %v, want prod", r.Name, tags["env"])
		}
	}
	st := byName(t, s, "stdemo001")
	if got := st.Body["sku"].(map[string]any)["name"]; got != "Standard_ZRS" {
		t.Errorf("overlay sku = %v, want Standard_ZRS", got)
	}
	if got := byName(t, base, "stdemo001").Body["sku"].(map[string]any)["name"]; got != "Standard_LRS" {
		t.Errorf("base sku = %v, want Standard_LRS", got)
	}
	if got := byName(t, s, "rg-demo").Body["tags"].(map[string]any)["env"]; got != "prod" {
		t.Errorf("resource group tags.env = %v, want prod", got)
	}
}

// Without origin annotations kustomize output has no positions: origins
// name the kustomization directory and the index in the built output.
func TestKustomizeWithoutOriginAnnotations(t *testing.T) {
	dir := t.TempDir()
	bad := strings.Replace(rgDoc, "@2021-04-01", "@2021", 1)
	if err := os.WriteFile(filepath.Join(dir, "rg.yaml"), []byte(rgDoc+"---\n"+strings.Replace(bad, "rg-demo", "rg-two", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte("resources: [rg.yaml]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ve := loadErr(t, LoadOptions{Kustomize: dir})
	want := dir + `#1: spec.type: api-version "2021" is malformed; use YYYY-MM-DD or YYYY-MM-DD-preview; did you mean 2021-04-01?`
	if ve.Error() != want {
		t.Errorf("got %s\nwant %s", ve, want)
	}
}

func TestKustomizeErrorNamesDirectory(t *testing.T) {
	dir := t.TempDir()
	ve := loadErr(t, LoadOptions{Kustomize: dir})
	if len(ve.Problems) != 1 || ve.Problems[0].File != dir || !strings.Contains(ve.Problems[0].Message, "kustomize build failed") {
		t.Fatalf("got %v", ve)
	}
}

func TestSelector(t *testing.T) {
	s := load(t, LoadOptions{Filenames: []string{"../../testdata/landing-zone"}, Selector: "tier=network"})
	var names []string
	for _, r := range s.Resources {
		names = append(names, r.Name)
	}
	if strings.Join(names, ",") != "nsg-app,vnet-demo,snet-storage" {
		t.Fatalf("selected %v", names)
	}
	sn := byName(t, s, "snet-storage")
	// The group is not selected, so it is no edge for this run.
	for _, d := range sn.DependsOn {
		if armid.Equal(d, rgID) {
			t.Errorf("DependsOn keeps unselected resource group: %v", sn.DependsOn)
		}
	}
	if len(sn.DependsOn) != 2 {
		t.Errorf("subnet DependsOn = %v, want vnet and NSG", sn.DependsOn)
	}
	ve := loadErr(t, LoadOptions{Filenames: []string{"../../testdata/landing-zone"}, Selector: "tier in (a"})
	if !strings.Contains(ve.Error(), "not a valid label selector") {
		t.Errorf("bad selector: %v", ve)
	}
}

func TestDirectoryRecursionAndGlob(t *testing.T) {
	dir := t.TempDir()
	rg := func(name string) string {
		return "apiVersion: azure.kubectl.io/v1alpha1\nkind: Resource\nmetadata: {name: " + name + "}\nspec: {type: Microsoft.Resources/resourceGroups@2021-04-01, body: {location: westeurope}}\n"
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "a.yaml"), []byte(rg("rg-a")), 0o644))
	must(os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a manifest"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte("resources: [a.yaml]\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "sub", "b.yml"), []byte(rg("rg-b")), 0o644))
	// JSON is YAML; Windows line endings split like any others.
	must(os.WriteFile(filepath.Join(dir, "sub", "c.json"), []byte(`{"apiVersion": "azure.kubectl.io/v1alpha1", "kind": "Resource", "metadata": {"name": "rg-c"}, "spec": {"type": "Microsoft.Resources/resourceGroups@2021-04-01"}}`), 0o644))
	must(os.WriteFile(filepath.Join(dir, "sub", "d.yaml"), []byte(strings.ReplaceAll(rg("rg-d")+"---\n"+rg("rg-e"), "\n", "\r\n")), 0o644))
	if n := len(load(t, LoadOptions{Filenames: []string{dir}}).Resources); n != 1 {
		t.Errorf("without -R: %d resources, want 1", n)
	}
	if n := len(load(t, LoadOptions{Filenames: []string{dir}, Recursive: true}).Resources); n != 5 {
		t.Errorf("with -R: %d resources, want 5", n)
	}
	if n := len(load(t, LoadOptions{Filenames: []string{filepath.Join(dir, "*.yaml")}}).Resources); n != 1 {
		t.Errorf("glob: %d resources, want 1", n)
	}
	ve := loadErr(t, LoadOptions{Filenames: []string{filepath.Join(dir, "missing.yaml")}})
	if !strings.Contains(ve.Error(), "no such file or directory") {
		t.Errorf("missing file: %v", ve)
	}
}

const rgDoc = `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata:
  name: rg-demo
spec:
  type: Microsoft.Resources/resourceGroups@2021-04-01
  body: {location: westeurope}
`

func TestStdinAndDocumentIndex(t *testing.T) {
	doc := "# leading comment only\n---\n" + rgDoc + "---\n---\n" + strings.Replace(rgDoc, "rg-demo", "rg-two", 1)
	s := load(t, stdin(doc))
	if len(s.Resources) != 2 {
		t.Fatalf("got %d resources", len(s.Resources))
	}
	if got := s.Resources[1].Origin.String(); got != "<stdin>#1" {
		t.Errorf("empty documents must not be counted: origin %s, want <stdin>#1", got)
	}
	ve := loadErr(t, LoadOptions{Filenames: []string{"-", "-"}})
	if !strings.Contains(ve.Error(), "only once") {
		t.Errorf("double stdin: %v", ve)
	}
	ve = loadErr(t, LoadOptions{})
	if !strings.Contains(ve.Error(), "no manifests given") {
		t.Errorf("no input: %v", ve)
	}
	ve = loadErr(t, LoadOptions{Filenames: []string{"x"}, Kustomize: "y"})
	if !strings.Contains(ve.Error(), "-f and -k cannot be combined") {
		t.Errorf("-f with -k: %v", ve)
	}
}

func TestAllProblemsReported(t *testing.T) {
	doc := "apiVersion: v2\nkind: Resource\nmetadata: {name: a}\nspec: {type: Microsoft.Resources/resourceGroups@2021-04-01}\n---\n" +
		"a: [unclosed\n---\n" +
		"apiVersion: azure.kubectl.io/v1alpha1\nkind: Resource\nmetadata: {}\nspec: {type: bad}\n"
	ve := loadErr(t, stdin(doc))
	want := []string{
		`<stdin>#0 (line 1): apiVersion: "v2" is not supported; use azure.kubectl.io/v1alpha1`,
		`<stdin>#1 (line 7): malformed YAML: line 7: did not find expected ',' or ']'`,
		`<stdin>#2 (line 10): metadata.name: missing; set metadata.name to the ARM resource name`,
		`<stdin>#2 (line 11): spec.type: "bad" has no api-version; write bad@API-VERSION (` + "`kubectl azure explain bad`" + ` lists the known versions)`,
	}
	if got := ve.Error(); got != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

func TestSubscriptionSources(t *testing.T) {
	cfg := t.TempDir()
	profile := "\xef\xbb\xbf" + `{"subscriptions": [
	  {"id": "11111111-1111-1111-1111-111111111111", "tenantId": "aaaaaaaa-0000-0000-0000-000000000001", "isDefault": false},
	  {"id": "22222222-2222-2222-2222-222222222222", "tenantId": "aaaaaaaa-0000-0000-0000-000000000002", "isDefault": true}]}`
	if err := os.WriteFile(filepath.Join(cfg, "azureProfile.json"), []byte(profile), 0o600); err != nil {
		t.Fatal(err)
	}
	doc := strings.Replace(rgDoc, "body: {location: westeurope}", "body: {location: westeurope, tags: {tenant: '${tenantId}', sub: '${subscriptionId}'}}", 1)
	cases := []struct {
		name, opt string
		env       map[string]string
		want      string
		tenant    string
	}{
		{"profile default, BOM", "", map[string]string{"AZURE_CONFIG_DIR": cfg}, "22222222-2222-2222-2222-222222222222", "aaaaaaaa-0000-0000-0000-000000000002"},
		{"home profile", "", map[string]string{"HOME": filepath.Dir(cfg)}, "", ""},
		{"env beats profile", "", map[string]string{"AZURE_CONFIG_DIR": cfg, "AZURE_SUBSCRIPTION_ID": "11111111-1111-1111-1111-111111111111"}, "11111111-1111-1111-1111-111111111111", "aaaaaaaa-0000-0000-0000-000000000001"},
		{"option beats env", "33333333-3333-3333-3333-333333333333", map[string]string{"AZURE_CONFIG_DIR": cfg, "AZURE_SUBSCRIPTION_ID": "11111111-1111-1111-1111-111111111111", "AZURE_TENANT_ID": "bbbbbbbb-0000-0000-0000-000000000000"}, "33333333-3333-3333-3333-333333333333", "bbbbbbbb-0000-0000-0000-000000000000"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := stdin(doc)
			o.Subscription = c.opt
			o.LookupEnv = envOf(c.env)
			if c.want == "" {
				// HOME/.azure does not exist under a temp dir's parent.
				ve := loadErr(t, o)
				if !strings.Contains(ve.Error(), "no subscription") {
					t.Errorf("got %v", ve)
				}
				return
			}
			s := load(t, o)
			r := s.Resources[0]
			if r.ID != "/subscriptions/"+c.want+"/resourceGroups/rg-demo" || s.Subscription != c.want {
				t.Errorf("ID %s, subscription %s; want subscription %s", r.ID, s.Subscription, c.want)
			}
			if got := r.Body["tags"].(map[string]any)["tenant"]; got != c.tenant {
				t.Errorf("tenant = %v, want %s", got, c.tenant)
			}
		})
	}
	o := stdin(rgDoc)
	o.Subscription = "my-subscription"
	if ve := loadErr(t, o); !strings.Contains(ve.Error(), `subscription "my-subscription" (from --subscription) is not a GUID`) {
		t.Errorf("non-GUID subscription: %v", ve)
	}
}

const kvSecretDoc = `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: db-password}
spec:
  type: Microsoft.KeyVault/vaults/secrets@2023-07-01
  parent: /subscriptions/${subscriptionId}/resourceGroups/rg-demo/providers/Microsoft.KeyVault/vaults/kv-demo
  body:
    properties:
      value: {valueFrom: VALUEFROM}
      attributes: {enabled: true}
    tags:
      second: {valueFrom: {env: SECOND}}
`

func TestSecretFromEnv(t *testing.T) {
	o := stdin(strings.Replace(kvSecretDoc, "VALUEFROM", "{env: DB_PASSWORD}", 1))
	o.LookupEnv = envOf(map[string]string{"AZURE_SUBSCRIPTION_ID": testSub, "DB_PASSWORD": "s3cr3t", "SECOND": "two"})
	s := load(t, o)
	r := s.Resources[0]
	if got := r.Body["properties"].(map[string]any)["value"]; got != "s3cr3t" {
		t.Errorf("value = %v", got)
	}
	if strings.Join(r.SecretPaths, ",") != "properties.value,tags.second" {
		t.Errorf("SecretPaths = %v", r.SecretPaths)
	}
	if !r.IsSecret("properties.value") || r.IsSecret("properties.attributes") {
		t.Errorf("IsSecret wrong")
	}
	if !strings.HasSuffix(r.ID, "/vaults/kv-demo/secrets/db-password") {
		t.Errorf("ID = %s", r.ID)
	}
}

func TestSecretKeyRef(t *testing.T) {
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "team-a"},
		Data:       map[string][]byte{"password": []byte("from-kube")},
	}
	resolver := &KubeSecrets{Client: func() (corev1client.SecretsGetter, string, error) {
		return fake.NewClientset(secret).CoreV1(), "team-a", nil
	}}
	env := envOf(map[string]string{"AZURE_SUBSCRIPTION_ID": testSub, "SECOND": "x"})

	o := stdin(strings.Replace(kvSecretDoc, "VALUEFROM", "{secretKeyRef: {name: db, key: password}}", 1))
	o.LookupEnv, o.Secrets = env, resolver
	r := load(t, o).Resources[0]
	if got := r.Body["properties"].(map[string]any)["value"]; got != "from-kube" {
		t.Errorf("value = %v, want from-kube (default namespace from the client)", got)
	}
	if !r.IsSecret("properties.value") {
		t.Errorf("secretKeyRef path not marked secret: %v", r.SecretPaths)
	}

	o = stdin(strings.Replace(kvSecretDoc, "VALUEFROM", "{secretKeyRef: {name: db, key: nope, namespace: team-a}}", 1))
	o.LookupEnv, o.Secrets = env, resolver
	if ve := loadErr(t, o); !strings.Contains(ve.Error(), `spec.body.properties.value.valueFrom.secretKeyRef: Secret team-a/db has no key "nope"`) {
		t.Errorf("missing key: %v", ve)
	}
	o = stdin(strings.Replace(kvSecretDoc, "VALUEFROM", "{secretKeyRef: {name: other, key: k, namespace: team-b}}", 1))
	o.LookupEnv, o.Secrets = env, resolver
	if ve := loadErr(t, o); !strings.Contains(ve.Error(), "Secret team-b/other not found") {
		t.Errorf("missing secret: %v", ve)
	}
	o = stdin(strings.Replace(kvSecretDoc, "VALUEFROM", "{secretKeyRef: {name: db, key: password}}", 1))
	o.LookupEnv = env
	if ve := loadErr(t, o); !strings.Contains(ve.Error(), "needs a cluster") {
		t.Errorf("no resolver: %v", ve)
	}
}

func TestReferencesAndPlaceholders(t *testing.T) {
	doc := rgDoc + `---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: vnet-demo}
spec:
  type: Microsoft.Network/virtualNetworks@2024-05-01
  resourceGroup: rg-demo
  body:
    location: westeurope
    tags:
      literal: "$${notAPlaceholder}"
      rg: "${ref:Microsoft.Resources/resourceGroups@2021-04-01/RG-DEMO}/x"
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: snet-a}
spec:
  type: Microsoft.Network/virtualNetworks/subnets@2024-05-01
  parent: vnet-demo
  body: {properties: {addressPrefix: 10.0.0.0/24}}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: lock}
spec:
  type: Microsoft.Authorization/locks@2020-05-01
  scope: /subscriptions/${subscriptionId}/resourceGroups/rg-demo
  body: {properties: {level: CanNotDelete}}
`
	s := load(t, stdin(doc))
	tags := byName(t, s, "vnet-demo").Body["tags"].(map[string]any)
	if tags["literal"] != "${notAPlaceholder}" {
		t.Errorf("escape: %v", tags["literal"])
	}
	if tags["rg"] != rgID+"/x" {
		t.Errorf("embedded reference with type and @version: %v", tags["rg"])
	}
	sn := byName(t, s, "snet-a")
	if sn.ID != rgID+"/providers/Microsoft.Network/virtualNetworks/vnet-demo/subnets/snet-a" {
		t.Errorf("parent by NAME: %s", sn.ID)
	}
	lock := byName(t, s, "lock")
	if lock.ID != rgID+"/providers/Microsoft.Authorization/locks/lock" || len(lock.DependsOn) != 1 || lock.DependsOn[0] != rgID {
		t.Errorf("lock at group scope: %s %v", lock.ID, lock.DependsOn)
	}
}

func TestPlacementCycle(t *testing.T) {
	doc := `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: a}
spec: {type: Microsoft.Test/things/things@2020-01-01, parent: Microsoft.Test/things/things/b}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: b}
spec: {type: Microsoft.Test/things/things@2020-01-01, parent: Microsoft.Test/things/things/a}
`
	ve := loadErr(t, stdin(doc))
	if len(ve.Problems) != 1 || !strings.Contains(ve.Error(), "<stdin>#0 (line 4): spec.parent: dependency cycle: <stdin>#0 (Microsoft.Test/things/things a) -> <stdin>#1") {
		t.Errorf("got %v", ve)
	}
}

func TestSchemaHook(t *testing.T) {
	validator := func(typ, apiVersion, _ string, body map[string]any) ([]SchemaIssue, string) {
		if typ != armid.ResourceGroupType || apiVersion != "2021-04-01" {
			t.Errorf("validator called with %s@%s", typ, apiVersion)
		}
		return []SchemaIssue{
			{Path: "properties.provisioningState", Severity: SchemaIgnored, Message: "readonly"},
			{Path: "colour", Severity: SchemaWarning, Message: "unknown property"},
		}, "nearest api-version 2021-04-01 used"
	}
	doc := strings.Replace(rgDoc, "body: {location: westeurope}", "body: {location: westeurope, colour: red, properties: {provisioningState: Succeeded}}", 1)
	o := stdin(doc)
	o.Schema = validator
	s := load(t, o)
	props := s.Resources[0].Body["properties"].(map[string]any)
	if _, ok := props["provisioningState"]; ok {
		t.Errorf("ignored readonly property kept in body")
	}
	w := strings.Join(s.Warnings, "\n")
	for _, want := range []string{
		"<stdin>#0: nearest api-version 2021-04-01 used",
		"<stdin>#0: spec.body.colour: unknown property",
		"<stdin>#0: ignored readonly properties (the server sets them; they are never compared or sent): properties.provisioningState",
	} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings lack %q:\n%s", want, w)
		}
	}
	o = stdin(doc)
	o.Schema, o.Strict = validator, true
	if ve := loadErr(t, o); !strings.Contains(ve.Error(), "<stdin>#0 (line 7): spec.body.properties.provisioningState: readonly property set") {
		t.Errorf("strict: %v", ve)
	}
	o = stdin(doc)
	o.Schema = func(string, string, string, map[string]any) ([]SchemaIssue, string) {
		return []SchemaIssue{{Path: "location", Severity: SchemaError, Message: "expected string, got number"}}, ""
	}
	if ve := loadErr(t, o); ve.Error() != "<stdin>#0 (line 7): spec.body.location: expected string, got number" {
		t.Errorf("schema error: %v", ve)
	}
}

func TestRemovePath(t *testing.T) {
	var body map[string]any
	_ = json.Unmarshal([]byte(`{"a":{"b":1,"c":2},"l":[{"x":1,"y":2}],"tags":{"a.b":1,"k":2}}`), &body)
	removePath(body, "a.b")
	removePath(body, "l[0].y")
	removePath(body, "l[5].x")
	removePath(body, "l[0]") // an item is never removed
	removePath(body, "nope.deeper")
	removePath(body, `tags."a.b"`) // a member name with a dot, as schema issues quote it
	got, _ := json.Marshal(body)
	if string(got) != `{"a":{"c":2},"l":[{"x":1}],"tags":{"k":2}}` {
		t.Errorf("got %s", got)
	}
}

// A resource -l leaves out does not need its secrets: a CI job planning
// only the network must not need the database password.
func TestSelectorSkipsUnselectedSecrets(t *testing.T) {
	doc := strings.Replace(kvSecretDoc, "VALUEFROM", "{env: DB_PASSWORD}", 1)
	doc = strings.Replace(doc, "metadata: {name: db-password}", "metadata: {name: db-password, labels: {tier: data}}", 1) +
		"---\n" + strings.Replace(rgDoc, "name: rg-demo", "name: rg-demo\n  labels: {tier: base}", 1)
	o := stdin(doc)
	o.Selector = "tier=base"
	s := load(t, o)
	if len(s.Resources) != 1 || s.Resources[0].Name != "rg-demo" {
		t.Fatalf("selected %v", s.Resources)
	}
	o = stdin(doc)
	if ve := loadErr(t, o); !strings.Contains(ve.Error(), "DB_PASSWORD is not set") {
		t.Errorf("unselected run must still demand the secret: %v", ve)
	}
}

func TestSecretNotEchoedBySchemaErrors(t *testing.T) {
	doc := strings.Replace(kvSecretDoc, "VALUEFROM", "{env: DB_PASSWORD}", 1)
	o := stdin(doc)
	o.LookupEnv = envOf(map[string]string{"AZURE_SUBSCRIPTION_ID": testSub, "DB_PASSWORD": "hunter2", "SECOND": "x"})
	o.Schema = func(_, _, _ string, body map[string]any) ([]SchemaIssue, string) {
		v := body["properties"].(map[string]any)["value"]
		return []SchemaIssue{{Path: "properties.value", Severity: SchemaError, Message: fmt.Sprintf("%q is not one of a, b", v)}}, ""
	}
	ve := loadErr(t, o)
	if strings.Contains(ve.Error(), "hunter2") || !strings.Contains(ve.Error(), "spec.body.properties.value: the value from valueFrom does not fit the schema") {
		t.Errorf("got %v", ve)
	}
}

func TestSecretPathInArray(t *testing.T) {
	doc := `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: app}
spec:
  type: Microsoft.Test/widgets@2020-01-01
  resourceGroup: rg-demo
  body:
    properties:
      env:
        - {name: A, value: plain}
        - {name: B, value: {valueFrom: {env: B_VALUE}}}
`
	o := stdin(doc)
	o.LookupEnv = envOf(map[string]string{"AZURE_SUBSCRIPTION_ID": testSub, "B_VALUE": "hidden"})
	o.Schema = func(string, string, string, map[string]any) ([]SchemaIssue, string) { return nil, "" }
	r := load(t, o).Resources[0]
	if strings.Join(r.SecretPaths, ",") != "properties.env[1].value" {
		t.Errorf("SecretPaths = %v", r.SecretPaths)
	}
	item := r.Body["properties"].(map[string]any)["env"].([]any)[1].(map[string]any)
	if item["value"] != "hidden" {
		t.Errorf("value = %v", item["value"])
	}
}

// A load balancer's rules point at its own frontend configuration: a
// reference to the resource itself resolves and is no dependency.
func TestSelfReference(t *testing.T) {
	doc := `apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: lb-demo}
spec:
  type: Microsoft.Network/loadBalancers@2024-01-01
  resourceGroup: rg-demo
  body:
    location: westeurope
    properties:
      loadBalancingRules:
        - name: http
          properties:
            frontendIPConfiguration: {id: "${ref:lb-demo}/frontendIPConfigurations/fe"}
`
	r := load(t, stdin(doc)).Resources[0]
	rule := r.Body["properties"].(map[string]any)["loadBalancingRules"].([]any)[0].(map[string]any)
	fe := rule["properties"].(map[string]any)["frontendIPConfiguration"].(map[string]any)["id"]
	if fe != r.ID+"/frontendIPConfigurations/fe" {
		t.Errorf("self reference = %v", fe)
	}
	if len(r.DependsOn) != 0 {
		t.Errorf("self reference became a dependency: %v", r.DependsOn)
	}
}

func TestParentTypeChecks(t *testing.T) {
	doc := rgDoc + `---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: nsg-a}
spec: {type: Microsoft.Network/networkSecurityGroups@2024-01-01, resourceGroup: rg-demo, body: {location: westeurope}}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: snet-a}
spec: {type: Microsoft.Network/virtualNetworks/subnets@2024-01-01, parent: nsg-a}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: st}
spec: {type: Microsoft.Storage/storageAccounts@2023-05-01, parent: rg-demo}
`
	ve := loadErr(t, stdin(doc))
	want := "<stdin>#2 (line 17): spec.parent: the parent is a Microsoft.Network/networkSecurityGroups, but a Microsoft.Network/virtualNetworks/subnets needs a parent of type Microsoft.Network/virtualNetworks\n" +
		"<stdin>#3 (line 22): spec.parent: Microsoft.Storage/storageAccounts is a top-level type and has no parent; place it with spec.resourceGroup (or spec.scope for an extension resource)"
	if ve.Error() != want {
		t.Errorf("got:\n%s\nwant:\n%s", ve, want)
	}
}

// TestSkipLeavesOutStateInADirectory: a state file kept among the
// manifests is not read as one when the directory is walked, but a file
// named explicitly still is.
func TestSkipLeavesOutStateInADirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "rg.yaml"), []byte(rgDoc), 0o600); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(dir, "state.json")
	if err := os.WriteFile(state, []byte(`{"format": "kubectl-azure/state", "version": 2, "resources": {}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	o := NewLoadOptions()
	o.Subscription = "00000000-0000-0000-0000-000000000001"
	o.Filenames = []string{dir}
	if _, err := Load(context.Background(), o); err == nil {
		t.Fatal("without Skip the state file is read as a manifest and refused")
	}
	o.Skip = []string{state}
	s, err := Load(context.Background(), o)
	if err != nil || len(s.Resources) != 1 {
		t.Fatalf("with Skip: %v (%d resources)", err, len(s.Resources))
	}
	o.Filenames = []string{dir, state}
	if _, err := Load(context.Background(), o); err == nil {
		t.Fatal("a state file named explicitly must still be read (and refused)")
	}
}

// A plan saved (--out) or printed (-o json) into the manifests' directory
// is the tool's own output: a directory walk skips it with a warning; named
// explicitly, it is read and refused.
func TestSavedPlanInADirectoryIsSkipped(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "rg.yaml"), []byte(rgDoc), 0o600); err != nil {
		t.Fatal(err)
	}
	plan := filepath.Join(dir, "plan.json")
	if err := os.WriteFile(plan, []byte(`{"formatVersion": "1", "plan": {"resources": []}, "manifests": {"filenames": ["."]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	o := NewLoadOptions()
	o.Subscription = "00000000-0000-0000-0000-000000000001"
	o.Filenames = []string{dir}
	s, err := Load(context.Background(), o)
	if err != nil || len(s.Resources) != 1 {
		t.Fatalf("%v (%d resources)", err, len(s.Resources))
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "plan.json") || !strings.Contains(s.Warnings[0], "skipped") {
		t.Fatalf("warnings %q: want one naming plan.json as skipped", s.Warnings)
	}
	o.Filenames = []string{plan}
	if _, err := Load(context.Background(), o); err == nil {
		t.Fatal("a saved plan named explicitly must still be read (and refused)")
	}
}

// A live value written at a readonly path is removed with it: nothing is
// left to fill in there (the engine once failed setting it below a parent
// the loader had removed), and the resource it read stays a dependency.
func TestIgnoredReadonlyDropsItsLiveValues(t *testing.T) {
	validator := func(typ, _, _ string, body map[string]any) ([]SchemaIssue, string) {
		if typ == armid.ResourceGroupType {
			return []SchemaIssue{{Path: "properties.readOnlyThing", Severity: SchemaIgnored, Message: "readonly"}}, ""
		}
		return nil, ""
	}
	doc := strings.Replace(rgDoc, "body: {location: westeurope}", "body: {location: westeurope, properties: {readOnlyThing: {id: \"${ref:other.properties.x}\"}}}", 1) + `---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: other}
spec: {type: Microsoft.Resources/resourceGroups@2021-04-01, body: {location: westeurope}}
`
	o := stdin(doc)
	o.Schema = validator
	s := load(t, o)
	var r *Resource
	for _, x := range s.Resources {
		if x.Name != "other" {
			r = x
		}
	}
	if len(r.Deferred) != 0 {
		t.Errorf("deferred values kept below a removed path: %v", r.Deferred)
	}
	if !slices.ContainsFunc(r.DependsOn, func(id string) bool { return strings.HasSuffix(id, "/resourceGroups/other") }) {
		t.Errorf("the reference is no longer a dependency: %v", r.DependsOn)
	}
}

// A readonly back-reference the loader removes (a template's NSG listing
// the NIC that names it in networkInterfaces) does not make a cycle of the
// reference that is sent: the NIC still waits for the NSG.
func TestIgnoredReadonlyBackReferenceClosesNoCycle(t *testing.T) {
	validator := func(_, _, name string, body map[string]any) ([]SchemaIssue, string) {
		if name == "nsg" {
			return []SchemaIssue{{Path: "properties.networkInterfaces", Severity: SchemaIgnored, Message: "readonly"}}, ""
		}
		return nil, ""
	}
	doc := rgDoc + `---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: nic}
spec:
  type: Microsoft.Network/networkInterfaces@2023-09-01
  resourceGroup: rg-demo
  body: {location: westeurope, properties: {networkSecurityGroup: {id: "${ref:nsg}"}}}
---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata: {name: nsg}
spec:
  type: Microsoft.Network/networkSecurityGroups@2023-09-01
  resourceGroup: rg-demo
  body: {location: westeurope, properties: {networkInterfaces: [{id: "${ref:nic}"}]}}
`
	o := stdin(doc)
	o.Schema = validator
	s := load(t, o)
	for _, r := range s.Resources {
		switch r.Name {
		case "nic":
			if !slices.ContainsFunc(r.DependsOn, func(id string) bool { return strings.HasSuffix(id, "/nsg") }) {
				t.Errorf("the NIC no longer waits for its NSG: %v", r.DependsOn)
			}
		case "nsg":
			if slices.ContainsFunc(r.DependsOn, func(id string) bool { return strings.HasSuffix(id, "/nic") }) {
				t.Errorf("the NSG waits for the NIC through a value never sent: %v", r.DependsOn)
			}
		}
	}
}
