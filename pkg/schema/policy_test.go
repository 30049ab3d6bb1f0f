package schema

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// policyType is a hand-made schema exercising each validation rule.
func policyType() *Type {
	i := func(v int64) *int64 { return &v }
	return &Type{
		Name: "Contoso.Widgets/widgets", APIVersion: "2024-06-01",
		Properties: map[string]*Property{
			"location":                 {Type: TypeString, Required: true, CreateOnly: true},
			"kind":                     {Type: TypeString},
			"properties":               {Type: TypeObject, Required: true},
			"properties.size":          {Type: TypeInteger, MinValue: i(1), MaxValue: i(100)},
			"properties.ratio":         {Type: TypeNumber},
			"properties.enabled":       {Type: TypeBoolean},
			"properties.label":         {Type: TypeString, MaxLength: i(5)},
			"properties.mode":          {Type: TypeString, Enum: []string{"Fast", "Slow"}, EnumClosed: true},
			"properties.tier":          {Type: TypeString, Enum: []string{"Basic", "Premium"}},
			"properties.list":          {Type: TypeArray},
			"properties.list[]":        {Type: TypeString},
			"properties.nested":        {Type: TypeObject},
			"properties.nested.key":    {Type: TypeString, Required: true},
			"properties.nested.other":  {Type: TypeString},
			"properties.networkAcls":   {Type: TypeObject},
			"properties.networkAcls.x": {Type: TypeString},
		},
	}
}

func issueAt(issues []Issue, path string) (Issue, bool) {
	for _, is := range issues {
		if is.Path == path {
			return is, true
		}
	}
	return Issue{}, false
}

// Each rule and each coercion: what ARM converts is a warning, what it
// cannot is an error.
func TestValidatePolicy(t *testing.T) {
	cases := []struct {
		name  string
		path  string // under properties
		value any
		sev   Severity
		kind  IssueKind
	}{
		{"quoted integer", "size", "42", Warning, KindCoerced},
		{"quoted big integer", "size", "1073741824", Warning, KindCoerced},
		{"quoted fraction for an integer", "size", "0.5", Warning, KindCoerced},
		{"word for an integer", "size", "abc", Error, KindType},
		{"empty string for an integer", "size", "", Warning, KindCoerced},
		{"object for an integer", "size", map[string]any{"a": 1}, Error, KindType},
		{"fraction for an integer", "size", json.Number("2.5"), Warning, KindCoerced},
		{"boolean for an integer", "size", true, Warning, KindCoerced},
		{"quoted number", "ratio", "1.25", Warning, KindCoerced},
		{"word for a number", "ratio", "much", Error, KindType},
		{"quoted boolean", "enabled", "true", Warning, KindCoerced},
		{"quoted boolean, other case", "enabled", "False", Warning, KindCoerced},
		{"word for a boolean", "enabled", "yes", Error, KindType},
		{"number for a boolean", "enabled", json.Number("1"), Warning, KindCoerced},
		{"number for a string", "label", json.Number("7"), Warning, KindCoerced},
		{"boolean for a string", "label", true, Warning, KindCoerced},
		{"object for a string", "label", map[string]any{}, Error, KindType},
		{"array for a string", "label", []any{"a"}, Error, KindType},
		{"object for an array", "list", map[string]any{"a": "b"}, Warning, KindType},
		{"string for an object", "nested", "x", Warning, KindType},
		{"closed enum", "mode", "Medium", Error, KindEnum},
		{"open enum", "tier", "Gold", Warning, KindEnum},
		{"too long", "label", "abcdefgh", Warning, KindLimit},
		{"too large", "size", json.Number("101"), Warning, KindLimit},
		{"too small", "size", json.Number("0"), Warning, KindLimit},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := map[string]any{"location": "westeurope", "properties": map[string]any{c.path: c.value}}
			issues := policyType().ValidateWith(body, ValidateOptions{Create: true})
			is, ok := issueAt(issues, "properties."+c.path)
			if !ok || is.Severity != c.sev || is.Kind != c.kind || len(issues) != 1 {
				t.Errorf("issues = %v; want one %s %s at properties.%s", issues, c.sev, c.kind, c.path)
			}
		})
	}
}

func TestValidateAcceptsConvertible(t *testing.T) {
	body := map[string]any{"location": "westeurope", "properties": map[string]any{
		"size": json.Number("12"), "ratio": json.Number("9007199254740993"), "enabled": false, "mode": "fast", "tier": "Premium",
		"list": []any{"a"}, "nested": map[string]any{"key": "k"},
	}}
	if issues := policyType().ValidateWith(body, ValidateOptions{Create: true}); len(issues) != 0 {
		t.Errorf("a valid body has issues: %v", issues)
	}
}

func TestValidateRequired(t *testing.T) {
	body := map[string]any{"properties": map[string]any{"nested": map[string]any{"other": "o"}}}
	issues := policyType().ValidateWith(body, ValidateOptions{Create: true})
	if is, ok := issueAt(issues, "location"); !ok || is.Severity != Error || is.Kind != KindRequired {
		t.Errorf("missing location on create: %v", issues)
	}
	// Services fill in nested required members: only a warning.
	if is, ok := issueAt(issues, "properties.nested.key"); !ok || is.Severity != Warning || is.Kind != KindRequired {
		t.Errorf("missing nested key on create: %v", issues)
	}
	if issues := policyType().ValidateWith(body, ValidateOptions{}); len(issues) != 0 {
		t.Errorf("required is a create rule; an update got %v", issues)
	}
}

func TestValidateFallbackNeverErrors(t *testing.T) {
	ty := policyType()
	ty.fallback = true
	body := map[string]any{"properties": map[string]any{"size": "abc", "mode": "Medium", "label": map[string]any{}}}
	issues := ty.ValidateWith(body, ValidateOptions{Create: true})
	if len(issues) != 4 {
		t.Errorf("want 4 findings (size, mode, label, location), got %v", issues)
	}
	for _, is := range issues {
		if is.Severity != Warning || !strings.Contains(is.Message, "nearest") {
			t.Errorf("a finding on a fallback version must be a warning that says so: %v", is)
		}
	}
}

func TestValidateDidYouMean(t *testing.T) {
	body := map[string]any{"location": "x", "properties": map[string]any{"enabeld": true, "Mode": "Slw", "networkAcl": map[string]any{}}}
	issues := policyType().ValidateWith(body, ValidateOptions{})
	want := map[string]string{
		"properties.enabeld":    "enabled",
		"properties.Mode":       "Slow",
		"properties.networkAcl": "networkAcls",
	}
	for path, sug := range want {
		is, ok := issueAt(issues, path)
		if !ok || !slices.Contains(is.Suggestions, sug) || !strings.Contains(is.Message, "did you mean "+sug) {
			t.Errorf("%s: %+v, want suggestion %s", path, is, sug)
		}
	}
}

func TestSuggest(t *testing.T) {
	cases := []struct {
		in   string
		cand []string
		want []string
	}{
		{"locaton", []string{"location", "tags"}, []string{"location"}},
		{"TAGS", []string{"location", "tags"}, []string{"tags"}},
		{"xyz", []string{"location", "tags"}, nil},
		{"sku", []string{"skus", "kind", "sku2"}, []string{"sku2", "skus"}},
	}
	for _, c := range cases {
		if got := Suggest(c.in, c.cand); !slices.Equal(got, c.want) {
			t.Errorf("Suggest(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

// Microsoft.Web/sites/config: the resource name selects the body.
func TestValidateByName(t *testing.T) {
	ty := lookup(t, "Microsoft.Web/sites/config", "2024-04-01")
	if ty.Discriminator != "name" {
		t.Fatalf("sites/config discriminator = %q", ty.Discriminator)
	}
	conn := map[string]any{"properties": map[string]any{"db": map[string]any{"value": "Server=x", "type": "SQLAzure"}}}
	if issues := ty.ValidateWith(conn, ValidateOptions{Name: "connectionstrings", Create: true}); len(issues) != 0 {
		t.Errorf("connectionstrings body: %v", issues)
	}
	app := map[string]any{"properties": map[string]any{"WEBSITE_RUN_FROM_PACKAGE": "1"}}
	if issues := ty.ValidateWith(app, ValidateOptions{Name: "appsettings", Create: true}); len(issues) != 0 {
		t.Errorf("appsettings body: %v", issues)
	}
	web := map[string]any{"properties": map[string]any{"alwaysOn": true, "numberOfWorkers": json.Number("2")}}
	if issues := ty.ValidateWith(web, ValidateOptions{Name: "web", Create: true}); len(issues) != 0 {
		t.Errorf("web body: %v", issues)
	}
	// A web member in the logs body is unknown there.
	issues := ty.ValidateWith(map[string]any{"properties": map[string]any{"alwaysOn": true}}, ValidateOptions{Name: "logs"})
	if is, ok := issueAt(issues, "properties.alwaysOn"); !ok || is.Severity != Warning || is.Kind != KindUnknown || !strings.Contains(is.Message, "logs body") {
		t.Errorf("a web member in a logs body: %v", issues)
	}
	// In the app settings body the same name is just a setting.
	if issues := ty.ValidateWith(map[string]any{"properties": map[string]any{"alwaysOn": "1"}}, ValidateOptions{Name: "appsettings"}); len(issues) != 0 {
		t.Errorf("an app setting named like a web member: %v", issues)
	}
	missingValue := map[string]any{"properties": map[string]any{"db": map[string]any{"type": "SQLAzure"}}}
	issues = ty.ValidateWith(missingValue, ValidateOptions{Name: "connectionstrings", Create: true})
	if is, ok := issueAt(issues, "properties.db.value"); !ok || is.Kind != KindRequired {
		t.Errorf("connection string without value: %v", issues)
	}
}

// Microsoft.Resources/deploymentScripts: kind selects the body.
func TestValidateByKind(t *testing.T) {
	ty := lookup(t, "Microsoft.Resources/deploymentScripts", "2023-08-01")
	base := func(kind string, props map[string]any) map[string]any {
		props["retentionInterval"] = "P1D"
		return map[string]any{"location": "westeurope", "kind": kind, "properties": props}
	}
	cli := base("AzureCLI", map[string]any{"azCliVersion": "2.52.0", "scriptContent": "echo hi"})
	if issues := ty.ValidateWith(cli, ValidateOptions{Create: true}); len(issues) != 0 {
		t.Errorf("AzureCLI body: %v", issues)
	}
	ps := base("AzurePowerShell", map[string]any{"azCliVersion": "2.52.0"})
	issues := ty.ValidateWith(ps, ValidateOptions{Create: true})
	if is, ok := issueAt(issues, "properties.azCliVersion"); !ok || is.Kind != KindUnknown || is.Severity != Warning || !strings.Contains(is.Message, "AzurePowerShell body") {
		t.Errorf("CLI member in a PowerShell body: %v", issues)
	}
	if is, ok := issueAt(issues, "properties.azPowerShellVersion"); !ok || is.Kind != KindRequired {
		t.Errorf("PowerShell body without its version: %v", issues)
	}
}

// Compute from 2022-08-01 on: the VM's NIC references are declared (they
// come from an inherited model the Swagger-only index lost).
func TestComputeInheritedFields(t *testing.T) {
	r := Default()
	n := 0
	for _, v := range r.Versions("Microsoft.Compute/virtualMachines") {
		if v < "2022-08-01" {
			continue
		}
		n++
		ty, res := r.Lookup("Microsoft.Compute/virtualMachines", v)
		if res.Nearest {
			t.Fatalf("%s resolved to %s", v, res.APIVersion)
		}
		p := ty.Prop("properties.networkProfile.networkInterfaces[].id")
		if p == nil || p.ReadOnly || p.Type != TypeString {
			t.Errorf("%s: networkInterfaces[].id = %+v", v, p)
		}
		body := map[string]any{"location": "westeurope", "properties": map[string]any{"networkProfile": map[string]any{
			"networkInterfaces": []any{map[string]any{"id": "/subscriptions/s/resourceGroups/g/providers/Microsoft.Network/networkInterfaces/n"}}}}}
		for _, is := range ty.Validate(body) {
			t.Errorf("%s: %v", v, is)
		}
	}
	if n < 5 {
		t.Errorf("only %d VM versions from 2022-08-01 on", n)
	}
}

// location is create-only for tracked resources of every provider, and
// for resource groups.
func TestLocationCreateOnly(t *testing.T) {
	r := Default()
	for _, typ := range []string{
		"Microsoft.Resources/resourceGroups",
		"Microsoft.KeyVault/vaults",
		"Microsoft.Storage/storageAccounts",
		"Microsoft.Network/virtualNetworks",
		"Microsoft.Compute/virtualMachines",
		"Microsoft.Web/sites",
		"Microsoft.Sql/servers",
		"Microsoft.DocumentDB/databaseAccounts",
		"Microsoft.ContainerService/managedClusters",
		"Microsoft.App/containerApps",
		"Microsoft.Insights/components",
	} {
		vs := r.Versions(typ)
		if len(vs) == 0 {
			t.Errorf("%s unknown", typ)
			continue
		}
		for _, v := range []string{vs[0], vs[len(vs)/2], vs[len(vs)-1]} {
			ty, _ := r.Lookup(typ, v)
			if p := ty.Prop("location"); p == nil || !p.CreateOnly || p.ReadOnly {
				t.Errorf("%s@%s location = %+v, want create-only", typ, v, p)
			}
		}
	}
}

func TestRegistryListings(t *testing.T) {
	r := Default()
	if !r.HasVersion("microsoft.storage/storageaccounts", "2025-01-01") || r.HasVersion("Microsoft.Storage/storageAccounts", "2025-01-02") || r.HasVersion("Nope/nope", "2025-01-01") {
		t.Error("HasVersion is exact and case-insensitive on the type")
	}
	provs := r.Providers()
	if !slices.Contains(provs, "Microsoft.Storage") || len(provs) < 200 {
		t.Errorf("providers: %d", len(provs))
	}
	types := r.TypesOf("microsoft.keyvault")
	if !slices.Contains(types, "Microsoft.KeyVault/vaults") || slices.ContainsFunc(types, func(s string) bool { return !strings.HasPrefix(s, "Microsoft.KeyVault/") }) {
		t.Errorf("TypesOf: %v", types)
	}
	if r.TypesOf("Microsoft.Nope") != nil {
		t.Error("unknown namespace has types")
	}
}

func TestStatusCodes(t *testing.T) {
	ty := lookup(t, "Microsoft.Storage/storageAccounts", "2023-05-01")
	if !slices.Equal(ty.PutStatus, []int{200, 202}) {
		t.Errorf("storage PUT status = %v, want [200 202]", ty.PutStatus)
	}
	ty = lookup(t, "Microsoft.KeyVault/vaults", "2023-07-01")
	if !slices.Equal(ty.PutStatus, []int{200, 201}) {
		t.Errorf("key vault PUT status = %v", ty.PutStatus)
	}
}

func TestDescriptionLazy(t *testing.T) {
	r := freshEmbedded(t)
	ty, _ := r.Lookup("Microsoft.Storage/storageAccounts", "2025-01-01")
	if d := ty.Description("properties.minimumTlsVersion"); !strings.Contains(d, "minimum TLS version") {
		t.Errorf("description = %q", d)
	}
	if ty.Prop("properties.minimumTlsVersion").Description != "" {
		t.Error("Lookup must not fill descriptions in")
	}
}
