package importer

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// testType is a small schema with one fact of every kind Minimize uses.
func testType() *schema.Type {
	return &schema.Type{Name: "Microsoft.Test/widgets", APIVersion: "2024-01-01", Properties: map[string]*schema.Property{
		"location":                          {Type: schema.TypeString},
		"tags":                              {Type: schema.TypeObject},
		"tags.*":                            {Type: schema.TypeString},
		"identity":                          {Type: schema.TypeObject},
		"identity.principalId":              {Type: schema.TypeString, ReadOnly: true},
		"identity.type":                     {Type: schema.TypeString},
		"identity.userAssignedIdentities":   {Type: schema.TypeObject},
		"identity.userAssignedIdentities.*": {Type: schema.TypeObject},
		"identity.userAssignedIdentities.*.clientId": {Type: schema.TypeString, ReadOnly: true},
		"properties":                           {Type: schema.TypeObject},
		"properties.size":                      {Type: schema.TypeInteger, Default: 4.0},
		"properties.mode":                      {Type: schema.TypeString, Default: "Enabled", Enum: []string{"Enabled", "Disabled"}},
		"properties.endpoint":                  {Type: schema.TypeString, ReadOnly: true},
		"properties.status":                    {Type: schema.TypeObject, ReadOnly: true},
		"properties.status.code":               {Type: schema.TypeString},
		"properties.adminPassword":             {Type: schema.TypeString, Secret: true},
		"properties.items":                     {Type: schema.TypeArray},
		"properties.items[]":                   {Type: schema.TypeObject},
		"properties.items[].name":              {Type: schema.TypeString},
		"properties.items[].properties":        {Type: schema.TypeObject},
		"properties.items[].properties.prefix": {Type: schema.TypeString},
		"properties.items[].properties.usedBy": {Type: schema.TypeArray, ReadOnly: true},
		"properties.labels":                    {Type: schema.TypeObject},
		"properties.labels.*":                  {Type: schema.TypeObject},
	}}
}

func TestMinimizeDropsWhatAPersonWouldNotWrite(t *testing.T) {
	self := "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Test/widgets/w1"
	uai := "/subscriptions/s/resourceGroups/rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id1"
	live := map[string]any{
		"id": self, "name": "w1", "type": "Microsoft.Test/widgets", "etag": "W/\"1\"",
		"systemData": map[string]any{"createdBy": "x"},
		"location":   "westeurope",
		"tags":       map[string]any{"env": "prod"},
		"identity": map[string]any{"type": "UserAssigned", "principalId": "p",
			"userAssignedIdentities": map[string]any{uai: map[string]any{"clientId": "c"}}},
		"properties": map[string]any{
			"provisioningState": "Succeeded",
			"size":              4.0,       // the schema default
			"mode":              "enabled", // the default, other casing
			"endpoint":          "https://w1",
			"status":            map[string]any{"code": "ok"}, // readonly object: whole subtree
			"adminPassword":     nil,
			"nothing":           nil,
			"emptyList":         []any{},
			"emptyObject":       map[string]any{},
			"labels":            map[string]any{"keep": map[string]any{}}, // a map value: {} means something
			"items": []any{map[string]any{
				"name": "a", "id": self + "/items/a", "type": "Microsoft.Test/widgets/items", "etag": "x",
				"properties": map[string]any{"prefix": "10.0.0.0/24", "provisioningState": "Succeeded", "usedBy": []any{"z"}},
			}},
			"other":        map[string]any{"id": self + "/items/a"}, // a reference, not an item: keeps its id
			"clientSecret": "shh",                                   // credential name, schema silent
		},
	}
	got := Minimize(live, testType(), nil, self)
	want := map[string]any{
		"location": "westeurope",
		"tags":     map[string]any{"env": "prod"},
		"identity": map[string]any{"type": "UserAssigned", "userAssignedIdentities": map[string]any{uai: map[string]any{}}},
		"properties": map[string]any{
			"labels": map[string]any{"keep": map[string]any{}},
			"items":  []any{map[string]any{"name": "a", "properties": map[string]any{"prefix": "10.0.0.0/24"}}},
			"other":  map[string]any{"id": self + "/items/a"},
			// a secret GET returned is read from a variable, never written
			"clientSecret": map[string]any{"valueFrom": map[string]any{"env": ""}},
		},
	}
	if !reflect.DeepEqual(got.Body, want) {
		t.Errorf("body:\n got %#v\nwant %#v", got.Body, want)
	}
	if wantS := []string{"properties.adminPassword"}; !reflect.DeepEqual(got.Secrets, wantS) {
		t.Errorf("secrets = %v, want %v", got.Secrets, wantS)
	}
	if len(got.Placeholders) != 1 || got.Placeholders[0].Path != "properties.clientSecret" || got.Placeholders[0].Value != "shh" {
		t.Errorf("placeholders = %+v, want properties.clientSecret", got.Placeholders)
	}
	if live["properties"].(map[string]any)["endpoint"] != "https://w1" {
		t.Error("Minimize changed its input")
	}
}

func TestMinimizeKeepsNonDefaultsAndUsesPluginRules(t *testing.T) {
	live := map[string]any{"properties": map[string]any{"size": 8.0, "mode": "Disabled", "serverStamp": "abc", "tier": "Hot"}}
	p := &diff.Funcs{R: diff.Rules{ReadOnly: []schema.Path{"properties.serverStamp"}, Defaults: map[schema.Path]any{"properties.tier": "hot"}}}
	got := Minimize(live, testType(), p, "")
	want := map[string]any{"properties": map[string]any{"size": 8.0, "mode": "Disabled"}}
	if !reflect.DeepEqual(got.Body, want) {
		t.Errorf("got %#v, want %#v", got.Body, want)
	}
}

func TestMinimizeWithoutSchemaUsesHeuristicsOnly(t *testing.T) {
	live := map[string]any{"id": "/x", "name": "n", "location": "westus", "properties": map[string]any{
		"provisioningState": "Succeeded", "setting": "on", "nested": map[string]any{"etag": "e", "value": 1.0}, "password": "p"}}
	got := Minimize(live, nil, nil, "")
	want := map[string]any{"location": "westus", "properties": map[string]any{"setting": "on", "nested": map[string]any{"value": 1.0},
		"password": map[string]any{"valueFrom": map[string]any{"env": ""}}}}
	if !reflect.DeepEqual(got.Body, want) {
		t.Errorf("got %#v, want %#v", got.Body, want)
	}
	if len(got.Secrets) != 0 || len(got.Placeholders) != 1 || got.Placeholders[0].Path != "properties.password" {
		t.Errorf("secrets = %v, placeholders = %+v", got.Secrets, got.Placeholders)
	}
	// A masked value is no secret to carry over: it is left out.
	live["properties"].(map[string]any)["password"] = "*****"
	if got := Minimize(live, nil, nil, ""); len(got.Placeholders) != 0 || len(got.Secrets) != 1 {
		t.Errorf("masked: secrets = %v, placeholders = %+v", got.Secrets, got.Placeholders)
	}
}

func TestWithoutChildrenKeepsItemsNotImported(t *testing.T) {
	live := map[string]any{"properties": map[string]any{"addressSpace": "x", "subnets": []any{
		map[string]any{"name": "a"}, map[string]any{"name": "B"}}}}
	out, dropped := withoutChildren(live, map[string]map[string]bool{"properties.subnets": {"b": true}})
	want := map[string]any{"properties": map[string]any{"addressSpace": "x", "subnets": []any{map[string]any{"name": "a"}}}}
	if !reflect.DeepEqual(out, want) || !reflect.DeepEqual(dropped, []string{"properties.subnets"}) {
		t.Errorf("got %#v %v", out, dropped)
	}
	if len(live["properties"].(map[string]any)["subnets"].([]any)) != 2 {
		t.Error("withoutChildren changed its input")
	}
	out, _ = withoutChildren(live, map[string]map[string]bool{"properties.subnets": {"a": true, "b": true}})
	if _, has := out["properties"].(map[string]any)["subnets"]; has {
		t.Errorf("all children imported: the inline list should be gone: %#v", out)
	}
}

func TestOrderVersionsPrefersNewestStable(t *testing.T) {
	got := orderVersions([]string{"2021-01-01", "2024-01-01-preview", "2023-05-01", "2022-01-01-preview"})
	want := []string{"2023-05-01", "2021-01-01", "2024-01-01-preview", "2022-01-01-preview"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestDropInvalidLeavesOutWhatTheLoaderWouldRefuse(t *testing.T) {
	validate := func(_, _, _ string, body map[string]any) ([]manifest.SchemaIssue, string) {
		var out []manifest.SchemaIssue
		p, _ := body["properties"].(map[string]any)
		if _, ok := p["mode"]; ok {
			out = append(out, manifest.SchemaIssue{Path: "properties.mode", Severity: manifest.SchemaError, Message: `"Odd" is not one of A, B`})
		}
		if _, ok := p["stamp"]; ok {
			out = append(out, manifest.SchemaIssue{Path: "properties.stamp", Severity: manifest.SchemaWarning, Kind: string(schema.KindUnknown), Message: "not declared"})
		}
		if _, ok := p["tier"]; ok {
			out = append(out, manifest.SchemaIssue{Path: "properties.tier", Severity: manifest.SchemaWarning, Message: `"Gold" is not a known value (A); the service may still accept it`})
		}
		if _, ok := p["list"]; ok {
			out = append(out, manifest.SchemaIssue{Path: "properties.list[1]", Severity: manifest.SchemaError, Message: "wrong type: want string, got number"})
		}
		if id, ok := body["identity"].(map[string]any); ok && id["type"] != nil {
			out = append(out, manifest.SchemaIssue{Path: "identity.type", Severity: manifest.SchemaError, Message: `"None" is not one of SystemAssigned`})
		}
		return out, ""
	}
	live := func() map[string]any {
		return map[string]any{"location": "westus", "identity": map[string]any{"type": "None"},
			"properties": map[string]any{"mode": "Odd", "stamp": "s1", "tier": "Gold", "list": []any{"a", 1.0}, "size": 2.0}}
	}
	im := &Importer{Validator: validate}
	r := newResource("/subscriptions/s/resourceGroups/rg/providers/Microsoft.Test/widgets/w", "Microsoft.Test/widgets", "2024-01-01", live(), "")
	im.minimize(r)
	want := map[string]any{"location": "westus", "properties": map[string]any{"tier": "Gold", "size": 2.0}}
	if !reflect.DeepEqual(r.Body, want) {
		t.Errorf("body = %#v, want %#v", r.Body, want)
	}
	if !reflect.DeepEqual(r.Unknown, []string{"properties.stamp"}) || len(r.Invalid) != 3 {
		t.Errorf("unknown = %v, invalid = %v", r.Unknown, r.Invalid)
	}
	doc, err := renderDoc(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Left out (unmanaged), not declared by the schema of 2024-01-01: properties.stamp.", `# Left out (unmanaged): identity.type: "None" is not one of SystemAssigned.`} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("manifest lacks %q:\n%s", want, doc)
		}
	}

	im.Options.KeepUnknown = true
	r = newResource(r.ID, r.Type, r.APIVersion, live(), "")
	im.minimize(r)
	if r.Body["properties"].(map[string]any)["stamp"] != "s1" {
		t.Errorf("KeepUnknown: stamp left out: %#v", r.Body)
	}
}

func TestAPIVersionFlag(t *testing.T) {
	var o Options
	for _, v := range []string{"2023-01-01", "Microsoft.Network/virtualNetworks=2022-05-01"} {
		if err := o.ParseAPIVersionFlag(v); err != nil {
			t.Fatalf("%s: %v", v, err)
		}
	}
	if got := o.pinned("microsoft.network/VIRTUALNETWORKS"); got != "2022-05-01" {
		t.Errorf("per-type pin = %q", got)
	}
	if got := o.pinned("Microsoft.Storage/storageAccounts"); got != "2023-01-01" {
		t.Errorf("global pin = %q", got)
	}
	if got := o.pinned("Microsoft.Resources/resourceGroups"); got != "" {
		t.Errorf("a global pin must not apply to resource groups, got %q", got)
	}
	for _, bad := range []string{"=2023-01-01", "virtualNetworks=2023-01-01", "Microsoft.Network/virtualNetworks=", "2024-01-01", " "} {
		if err := o.ParseAPIVersionFlag(bad); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}
