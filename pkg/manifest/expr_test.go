package manifest

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// doc renders one Resource document for tests.
func doc(name, typ, placement, body string) string {
	return "apiVersion: azure.kubectl.io/v1alpha1\nkind: Resource\nmetadata: {name: " + name + "}\n" +
		"spec:\n  type: " + typ + "\n  " + placement + "\n  body: " + body + "\n"
}

func docs(ds ...string) LoadOptions { return stdin(strings.Join(ds, "---\n")) }

func TestParseExpr(t *testing.T) {
	tests := []struct {
		in      string
		want    string // parts rendered as lit|fn(arg)[args]
		wantErr string
	}{
		{in: "plain", want: "plain"},
		{in: "$${ref:x}", want: "${ref:x}"},
		{in: "a${subscriptionId}b", want: "a|subscriptionId()|b"},
		{in: "${ref:my.app.properties.x}", want: "ref(my.app.properties.x)"},
		{in: "${ref:Microsoft.Web/sites/app.properties.hostNames[0]}", want: "ref(Microsoft.Web/sites/app.properties.hostNames[0])"},
		{in: "${guid:${ref:rg},reader}", want: "guid()[ref(rg);reader]"},
		{in: "${guid:a,${guid:b,c},d}", want: "guid()[a;guid()[b;c];d]"},
		{in: "${guid:}", wantErr: "has no argument"},
		{in: "${guid:$${x},y}", want: "guid()[${x};y]"},
		{in: "${ref:a", wantErr: "unterminated placeholder"},
		{in: "${guid:${ref:a}", wantErr: "unterminated placeholder"},
		{in: "${user}", wantErr: "unknown placeholder ${user}"},
		{in: "${ref:}", wantErr: "names no resource"},
		{in: "${ref:${subscriptionId}}", wantErr: "names a resource literally"},
		{in: "${uniqueString:a,${ref:rg}}", want: "uniqueString()[a;ref(rg)]"},
		{in: "${resourceGroupId:rg-demo}", want: "resourceGroupId(rg-demo)"},
		{in: "${resourceGroupId:${ref:x}}", wantErr: "write the resource group's name"},
		{in: "${uniquestring:a}", wantErr: "spelt exactly so"},
		{in: "${subscriptionID}", wantErr: "write ${subscriptionId}"},
		{in: "${SubscriptionId}", wantErr: "write ${subscriptionId}"},
		{in: "${tenantid}", wantErr: "write ${tenantId}"},
		{in: "${Ref:x}", wantErr: "spelt exactly so"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			parts, err := parseExpr(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := renderParts(parts); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func renderParts(ps []exprPart) string {
	var out []string
	for _, p := range ps {
		if p.fn == "" {
			out = append(out, p.lit)
			continue
		}
		s := p.fn + "(" + p.arg + ")"
		if p.fn == "guid" || p.fn == "uniqueString" {
			var args []string
			for _, a := range p.args {
				args = append(args, renderParts(a))
			}
			s += "[" + strings.Join(args, ";") + "]"
		}
		out = append(out, s)
	}
	return strings.Join(out, "|")
}

// TestARMGuid checks the encoding against published outputs of ARM's
// guid(): role-assignment names computed by Bicep deployments and
// reproduced with uuidv5 in ARM's namespace over the "-"-joined arguments
// (Python: uuid.uuid5(UUID("11fb06fb-712d-4ddd-98c7-e71bbd588830"), "a-b-c")).
func TestARMGuid(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"a"}, "3703365d-5a9f-59b4-bca7-b9681389e4c1"},
		{[]string{"a", "b", "c"}, "a98fa280-e03f-5afa-8d8e-92d0a9c201e8"},
		{[]string{"a-b-c"}, "a98fa280-e03f-5afa-8d8e-92d0a9c201e8"},
		{[]string{"/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-demo"}, "df19c423-ed61-5c6a-8e1c-0619b8e98385"},
	}
	for _, tt := range tests {
		if got := ARMGuid(tt.args...); got != tt.want {
			t.Errorf("ARMGuid(%q) = %s, want %s", tt.args, got, tt.want)
		}
	}
}

const (
	rgDocT   = "rg-demo"
	rgType   = "Microsoft.Resources/resourceGroups@2021-04-01"
	idType   = "Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31"
	raType   = "Microsoft.Authorization/roleAssignments@2022-04-01"
	stType   = "Microsoft.Storage/storageAccounts@2023-05-01"
	siteType = "Microsoft.Web/sites@2023-12-01"
)

func TestDeferredLiveValues(t *testing.T) {
	s := load(t, docs(
		doc(rgDocT, rgType, "", "{location: westeurope}"),
		doc("id.app", idType, "resourceGroup: rg-demo", "{location: westeurope}"),
		doc("ra-app", raType, "scope: ${ref:rg-demo}", `{properties: {principalId: "${ref:id.app.properties.principalId}", note: "p=${ref:id.app.properties.principalId}!", roleDefinitionId: x}}`),
	))
	ra := byName(t, s, "ra-app")
	idID := rgID + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id.app"
	if got := ra.Body["properties"].(map[string]any)["principalId"]; !plan.IsUnknown(got) {
		t.Errorf("body holds %v, want the known-after-apply marker", got)
	}
	d := ra.Deferred["properties.principalId"]
	if d == nil {
		t.Fatalf("Deferred = %v, want properties.principalId", ra.Deferred)
	}
	// The identity's api-version goes with the reference, to read it when -l leaves it out.
	want := []ValueRef{{Target: idID, Path: "properties.principalId", APIVersion: "2023-01-31"}}
	if !reflect.DeepEqual(d.Refs, want) {
		t.Errorf("Refs = %v, want %v", d.Refs, want)
	}
	if !contains(ra.DependsOn, idID) || !contains(ra.DependsOn, rgID) {
		t.Errorf("DependsOn = %v, want the identity and the group", ra.DependsOn)
	}
	live := map[string]any{"properties": map[string]any{"principalId": "p-1", "n": json.Number("12345678901234567890")}}
	get := func(r ValueRef) (any, bool) { return LookupPath(live, r.Path) }
	if v, known, err := d.Resolve(get); err != nil || !known || v != "p-1" {
		t.Errorf("Resolve = %v, %v, %v", v, known, err)
	}
	if v, known, _ := ra.Deferred["properties.note"].Resolve(get); !known || v != "p=p-1!" {
		t.Errorf("Resolve(note) = %v, %v", v, known)
	}
	if _, known, _ := d.Resolve(func(ValueRef) (any, bool) { return nil, false }); known {
		t.Error("Resolve without the live value claims to know it")
	}
}

func TestDeferredKeepsJSONType(t *testing.T) {
	d := &Deferred{terms: []term{{ref: &ValueRef{Target: "/x", Path: "n"}}}}
	v, known, err := d.Resolve(func(ValueRef) (any, bool) { return json.Number("9007199254740993"), true })
	if err != nil || !known || v != json.Number("9007199254740993") {
		t.Errorf("Resolve = %#v, %v, %v", v, known, err)
	}
}

func TestGuidName(t *testing.T) {
	s := load(t, docs(
		doc(rgDocT, rgType, "", "{location: westeurope}"),
		doc("id-app", idType, "resourceGroup: rg-demo", "{location: westeurope}"),
		doc(`"${guid:${ref:rg-demo},reader}"`, raType, "scope: ${ref:rg-demo}", "{properties: {roleDefinitionId: x}}"),
		doc(`"${guid:${ref:rg-demo},${ref:id-app.properties.principalId}}"`, raType, "scope: ${ref:rg-demo}", "{properties: {roleDefinitionId: y}}"),
	))
	fixed := ARMGuid(rgID, "reader")
	r := byName(t, s, fixed)
	if want := rgID + "/providers/Microsoft.Authorization/roleAssignments/" + fixed; r.ID != want {
		t.Errorf("ID = %s, want %s", r.ID, want)
	}
	late := byName(t, s, nameKnownAfterApply)
	if late.NameDeferred == nil {
		t.Fatal("a name over a live value is not deferred")
	}
	v, known, err := late.NameDeferred.Resolve(func(ValueRef) (any, bool) { return "pid", true })
	if err != nil || !known || v != ARMGuid(rgID, "pid") {
		t.Errorf("Resolve = %v, %v, %v", v, known, err)
	}
	if got, want := late.IDForName("n1"), rgID+"/providers/Microsoft.Authorization/roleAssignments/n1"; got != want {
		t.Errorf("IDForName = %s, want %s", got, want)
	}
}

func TestRefLongestDottedName(t *testing.T) {
	s := load(t, docs(
		doc(rgDocT, rgType, "", "{location: westeurope}"),
		doc("app", idType, "resourceGroup: rg-demo", "{location: westeurope}"),
		doc("app.v2", idType, "resourceGroup: rg-demo", "{location: westeurope}"),
		doc("user", stType, "resourceGroup: rg-demo", `{location: westeurope, tags: {a: "${ref:app.v2.properties.clientId}", b: "${ref:app.v2}"}}`),
	))
	u := byName(t, s, "user")
	want := rgID + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/app.v2"
	if d := u.Deferred["tags.a"]; d == nil || d.Refs[0] != (ValueRef{Target: want, Path: "properties.clientId", APIVersion: "2023-01-31"}) {
		t.Errorf("Deferred[tags.a] = %+v", d)
	}
	if got := u.Body["tags"].(map[string]any)["b"]; got != want {
		t.Errorf("tags.b = %v, want %s", got, want)
	}
}

func TestExactNumbers(t *testing.T) {
	s := load(t, docs(doc(rgDocT, rgType, "",
		`{location: westeurope, properties: {big: 12345678901234567890, safe: 9007199254740993, f: 0.10, hex: 0x1F, neg: -1e400, huge: 123456789012345678901234567890}}`)))
	p := s.Resources[0].Body["properties"].(map[string]any)
	want := map[string]any{
		"big": json.Number("12345678901234567890"), "safe": json.Number("9007199254740993"),
		"f": json.Number("0.10"), "hex": json.Number("31"), "neg": json.Number("-1e400"),
		"huge": json.Number("123456789012345678901234567890"),
	}
	if !reflect.DeepEqual(p, want) {
		for k, v := range p {
			t.Errorf("%s = %T %v", k, v, v)
		}
	}
}

func TestSecretsAnywhere(t *testing.T) {
	o := docs(doc("app", siteType, "resourceGroup: rg-demo",
		`{location: westeurope, tags: {"a.b": {valueFrom: {env: TAG}}}, properties: {siteConfig: {appSettings: [{name: K, value: {valueFrom: {env: KEY}}}]}}}`))
	o.LookupEnv = envOf(map[string]string{"AZURE_SUBSCRIPTION_ID": testSub, "TAG": "tag-secret-1", "KEY": "key-secret-2"})
	set := load(t, o)
	r := set.Resources[0]
	want := []string{`properties.siteConfig.appSettings[0].value`, `tags."a.b"`}
	got := append([]string(nil), r.SecretPaths...)
	if strings.Join(sorted(got), " ") != strings.Join(want, " ") {
		t.Errorf("SecretPaths = %q, want %q", got, want)
	}
	if out := set.Secrets.Scrub("x tag-secret-1 key-secret-2"); strings.Contains(out, "secret-") {
		t.Errorf("resolved secrets are not registered for scrubbing: %s", out)
	}
}

func TestValueFromAction(t *testing.T) {
	s := load(t, docs(
		doc("stdemo001", stType, "resourceGroup: rg-demo", "{location: westeurope}"),
		doc("app", siteType, "resourceGroup: rg-demo",
			`{location: westeurope, properties: {key: {valueFrom: {action: {resource: stdemo001, name: listKeys, path: "keys[0].value"}}}}}`),
	))
	app := byName(t, s, "app")
	stID := rgID + "/providers/Microsoft.Storage/storageAccounts/stdemo001"
	want := &ActionRef{Target: stID, Action: "listKeys", APIVersion: "2023-05-01", Path: "keys[0].value"}
	if got := app.Actions["properties.key"]; !reflect.DeepEqual(got, want) {
		t.Errorf("Actions = %+v, want %+v", got, want)
	}
	if !app.IsSecret("properties.key") || !contains(app.DependsOn, stID) {
		t.Errorf("SecretPaths = %v, DependsOn = %v", app.SecretPaths, app.DependsOn)
	}
	if v := app.Body["properties"].(map[string]any)["key"]; !plan.IsUnknown(v) {
		t.Errorf("body holds %v", v)
	}
}

func TestLiteralIDEdge(t *testing.T) {
	subnetID := rgID + "/providers/Microsoft.Network/virtualNetworks/vnet-demo/subnets/snet-a"
	s := load(t, docs(
		doc(rgDocT, rgType, "", "{location: westeurope}"),
		doc("vnet-demo", "Microsoft.Network/virtualNetworks@2024-05-01", "resourceGroup: rg-demo", "{location: westeurope}"),
		doc("nic-a", "Microsoft.Network/networkInterfaces@2024-05-01", "resourceGroup: rg-demo",
			`{location: westeurope, properties: {ipConfigurations: [{name: c, properties: {subnet: {id: "`+subnetID+`"}}}]}}`),
	))
	vnetID := rgID + "/providers/Microsoft.Network/virtualNetworks/vnet-demo"
	if nic := byName(t, s, "nic-a"); !contains(nic.DependsOn, vnetID) {
		t.Errorf("DependsOn = %v, want the vnet the literal subnet ID is under", nic.DependsOn)
	}
	var found *Problem
	for i, f := range s.Findings {
		if strings.Contains(f.Message, "${ref:vnet-demo}/subnets/snet-a") {
			found = &s.Findings[i]
		}
	}
	if found == nil {
		t.Fatalf("no ${ref:} suggestion in %v", s.Findings)
	}
	if found.Line != 23 || found.Severity != SeverityWarning || found.Path != "spec.body.properties.ipConfigurations[0].properties.subnet.id" {
		t.Errorf("finding = %+v", *found)
	}
}

func TestUnselectedAndEmpty(t *testing.T) {
	rg := "apiVersion: azure.kubectl.io/v1alpha1\nkind: Resource\nmetadata: {name: rg-demo, labels: {tier: base}}\nspec: {type: " + rgType + ", body: {location: westeurope}}\n"
	st := "apiVersion: azure.kubectl.io/v1alpha1\nkind: Resource\nmetadata: {name: stdemo001, labels: {tier: app}}\nspec: {type: " + stType + ", resourceGroup: rg-demo, body: {location: westeurope}}\n"
	o := docs(rg, st)
	o.Selector = "tier=app"
	s := load(t, o)
	if !reflect.DeepEqual(s.Unselected, []string{rgID}) || len(s.Resources[0].DependsOn) != 0 {
		t.Errorf("Unselected = %v, DependsOn = %v", s.Unselected, s.Resources[0].DependsOn)
	}
	o = docs(rg, st)
	o.Selector = "tier=none"
	o.LookupEnv = envOf(map[string]string{"AZURE_SUBSCRIPTION_ID": testSub})
	_, err := Load(context.Background(), o)
	var ee *EmptySetError
	if !errors.Is(err, ErrNoResources) || !errors.As(err, &ee) || !strings.Contains(err.Error(), "no resources loaded from -") || !strings.Contains(err.Error(), "tier=none") {
		t.Errorf("err = %v", err)
	}
	_, err = Load(context.Background(), LoadOptions{Filenames: []string{t.TempDir()}, LookupEnv: envOf(nil)})
	if !errors.Is(err, ErrNoResources) {
		t.Errorf("empty directory: err = %v", err)
	}
}

func TestInputBounds(t *testing.T) {
	big := strings.NewReader(strings.Repeat("#", MaxFileBytes+1))
	ve := loadErr(t, LoadOptions{Filenames: []string{"-"}, Stdin: big})
	if !strings.Contains(ve.Error(), "larger than 16 MiB") {
		t.Errorf("got %v", ve)
	}
}

func TestProblemAnnotation(t *testing.T) {
	p := Problem{File: "a,b.yaml", Index: 0, Line: 7, Path: "spec.type", Message: "bad\nvalue 100%", Severity: SeverityError}
	if got, want := p.Annotation(), `::error file=a%2Cb.yaml,line=7,title=spec.type::bad\u000avalue 100%25`; got != want {
		t.Errorf("Annotation = %s, want %s", got, want)
	}
	if got, want := p.String(), `a,b.yaml#0 (line 7): spec.type: bad\u000avalue 100%`; got != want {
		t.Errorf("String = %s, want %s", got, want)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if armid.Equal(x, s) {
			return true
		}
	}
	return false
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func TestDeferredNamesStayDistinct(t *testing.T) {
	ra := func(role string) string {
		return doc(`"${guid:${ref:rg-demo},${ref:id-app.properties.principalId},`+role+`}"`, raType, "scope: ${ref:rg-demo}", "{properties: {roleDefinitionId: "+role+"}}")
	}
	s := load(t, docs(
		doc(rgDocT, rgType, "", "{location: westeurope}"),
		doc("id-app", idType, "resourceGroup: rg-demo", "{location: westeurope}"),
		ra("reader"), ra("writer"),
	))
	seen := map[string]bool{}
	for _, r := range s.Resources {
		if seen[armid.Key(r.ID)] {
			t.Errorf("two resources share the ID %s", r.ID)
		}
		seen[armid.Key(r.ID)] = true
		if _, err := armid.Parse(r.ID); err != nil {
			t.Errorf("ID %q: %v", r.ID, err)
		}
	}
}

// FuzzParseExpr: the placeholder parser never panics, text without a
// placeholder is one literal equal to the input, and every guid argument
// list is parsed to the same depth it was written.
func FuzzParseExpr(f *testing.F) {
	for _, s := range []string{"plain", "${ref:a.b[0]}", "${guid:${ref:a},b}", "$${x}", "${guid:${guid:${", "}}${", "${ref:a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		parts, err := parseExpr(s)
		if err != nil {
			return
		}
		if !strings.Contains(s, "$") {
			if len(s) == 0 && len(parts) == 0 {
				return
			}
			if len(parts) != 1 || parts[0].lit != s {
				t.Fatalf("parseExpr(%q) = %+v, want one literal", s, parts)
			}
		}
	})
}

// TestLoadsDoNotShareSecrets: two runs in one process, each loading its
// own secret, each get a registry of their own; the second run's registry
// does not hold the first's value (it did with one process-wide registry),
// and a registry the caller passes is the one filled.
func TestLoadsDoNotShareSecrets(t *testing.T) {
	run := func(v string, reg *secret.Registry) *Set {
		o := docs(doc("app", siteType, "resourceGroup: rg-demo",
			`{location: westeurope, properties: {siteConfig: {appSettings: [{name: K, value: {valueFrom: {env: KEY}}}]}}}`))
		o.LookupEnv = envOf(map[string]string{"AZURE_SUBSCRIPTION_ID": testSub, "KEY": v})
		o.SecretValues = reg
		return load(t, o)
	}
	first := run("first-run-key-1", nil)
	second := run("second-run-key-2", nil)
	if first.Secrets == nil || second.Secrets == nil || first.Secrets == second.Secrets {
		t.Fatal("each load without a registry must make its own")
	}
	if second.Secrets.Registered("first-run-key-1") || strings.Contains(second.Secrets.Scrub("x first-run-key-1"), secret.Placeholder) {
		t.Error("the second run's registry holds the first run's secret")
	}
	if !first.Secrets.Registered("first-run-key-1") || !second.Secrets.Registered("second-run-key-2") {
		t.Error("a run's own secret is not registered")
	}
	given := secret.NewRegistry()
	if s := run("given-key-3", given); s.Secrets != given || !given.Registered("given-key-3") {
		t.Error("the registry passed in LoadOptions.SecretValues is not the one filled")
	}
}
