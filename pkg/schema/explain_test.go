package schema

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestParseQuery(t *testing.T) {
	cases := map[string]Query{
		"Microsoft.Storage/storageAccounts":                                       {Type: "Microsoft.Storage/storageAccounts"},
		"Microsoft.Storage/storageAccounts@2023-05-01":                            {Type: "Microsoft.Storage/storageAccounts", APIVersion: "2023-05-01"},
		"Microsoft.Storage/storageAccounts.properties.encryption":                 {Type: "Microsoft.Storage/storageAccounts", Path: "properties.encryption"},
		"Microsoft.Storage/storageAccounts@2023-05-01.properties.encryption":      {Type: "Microsoft.Storage/storageAccounts", APIVersion: "2023-05-01", Path: "properties.encryption"},
		"Microsoft.Network/virtualNetworks/subnets@2023-11-01-preview.properties": {Type: "Microsoft.Network/virtualNetworks/subnets", APIVersion: "2023-11-01-preview", Path: "properties"},
	}
	for in, want := range cases {
		got, err := ParseQuery(in)
		if err != nil || got != want {
			t.Errorf("ParseQuery(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	if _, err := ParseQuery("storageAccounts"); err == nil {
		t.Error("a query without namespace was accepted")
	}
}

func explain(t *testing.T, q string, opts ExplainOptions) string {
	t.Helper()
	var b bytes.Buffer
	if err := Explain(&b, Default(), q, opts); err != nil {
		t.Fatalf("Explain(%s): %v", q, err)
	}
	return b.String()
}

func TestExplainText(t *testing.T) {
	out := explain(t, "Microsoft.Storage/storageAccounts@2023-05-01.properties.encryption", ExplainOptions{})
	for _, want := range []string{
		"TYPE:", "Microsoft.Storage/storageAccounts",
		"VERSION:", "2023-05-01",
		"FIELD:", "properties.encryption <object>",
		"keySource", `default "Microsoft.Storage"`, "enum (open): Microsoft.Storage, Microsoft.Keyvault",
		"DESCRIPTION:",
		"services", "<object>",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("explain output lacks %q:\n%s", want, out)
		}
	}
	out = explain(t, "microsoft.storage/STORAGEACCOUNTS@2023-05-01", ExplainOptions{})
	for _, want := range []string{"location", "CREATE-ONLY", "PATCH:", "ETAG:", "no", "LONG-RUNNING:"} {
		if !strings.Contains(out, want) {
			t.Errorf("top-level explain lacks %q:\n%s", want, out)
		}
	}
	out = explain(t, "Microsoft.Network/virtualNetworks@2023-11-01.properties.subnets", ExplainOptions{})
	for _, want := range []string{"keyed by name (assumed)", "[].name", "PATCH:", "tags only"} {
		if !strings.Contains(out, want) {
			t.Errorf("subnets explain lacks %q:\n%s", want, out)
		}
	}
	out = explain(t, "Microsoft.DBforMySQL/flexibleServers@2023-12-30.properties.administratorLoginPassword", ExplainOptions{})
	if !strings.Contains(out, "SECRET") || !strings.Contains(out, "WRITE-ONLY") {
		t.Errorf("password flags missing:\n%s", out)
	}
}

func TestExplainNearestWarns(t *testing.T) {
	out := explain(t, "Microsoft.Storage/storageAccounts@2099-01-01", ExplainOptions{})
	if !strings.Contains(out, "WARNING:") || !strings.Contains(out, "2099-01-01") {
		t.Errorf("no nearest-version warning:\n%s", out)
	}
}

func TestExplainRecursive(t *testing.T) {
	flat := explain(t, "Microsoft.Storage/storageAccounts@2023-05-01.properties.encryption", ExplainOptions{})
	deep := explain(t, "Microsoft.Storage/storageAccounts@2023-05-01.properties.encryption", ExplainOptions{Recursive: true})
	if !strings.Contains(deep, "services.blob.keyType") || strings.Contains(flat, "services.blob.keyType") {
		t.Errorf("recursive should list nested fields, flat should not:\nflat:\n%s\ndeep:\n%s", flat, deep)
	}
}

func TestExplainJSON(t *testing.T) {
	out := explain(t, "Microsoft.KeyVault/vaults@2023-07-01.properties.createMode", ExplainOptions{Output: "json"})
	var doc struct {
		Type       string `json:"type"`
		APIVersion string `json:"apiVersion"`
		Resolution struct {
			Found bool `json:"found"`
		} `json:"resolution"`
		Field struct {
			Path       string   `json:"path"`
			Type       string   `json:"type"`
			WriteOnly  bool     `json:"writeOnly"`
			EnumClosed bool     `json:"enumClosed"`
			Enum       []string `json:"enum"`
		} `json:"field"`
		Fields []json.RawMessage `json:"fields"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if doc.Type != "Microsoft.KeyVault/vaults" || doc.APIVersion != "2023-07-01" || !doc.Resolution.Found ||
		doc.Field.Path != "properties.createMode" || doc.Field.Type != "string" || !doc.Field.WriteOnly || !doc.Field.EnumClosed || len(doc.Field.Enum) != 2 {
		t.Errorf("json = %+v", doc)
	}
	if doc.Fields == nil {
		t.Error("fields must be an array, even when empty")
	}
}

func TestExplainErrors(t *testing.T) {
	var b bytes.Buffer
	err := Explain(&b, Default(), "Microsoft.Storage/storageAcounts", ExplainOptions{})
	if err == nil || !strings.Contains(err.Error(), "not in the schema index") {
		t.Errorf("unknown type: %v", err)
	}
	err = Explain(&b, Default(), "Microsoft.Storage/storageAccounts.properties.nope", ExplainOptions{})
	if err == nil || !strings.Contains(err.Error(), "properties.nope") || !strings.Contains(err.Error(), "properties has: accessTier") {
		t.Errorf("unknown path: %v", err)
	}
	err = Explain(&b, Default(), "Microsoft.Storage/storageAccounts", ExplainOptions{Output: "xml"})
	if err == nil {
		t.Error("unknown output format accepted")
	}
}

// The outside check: required markers and the description of
// properties.minimumTlsVersion on a version only the Bicep index has, and
// the VERSION line names the exact version.
func TestExplainStorage20250101(t *testing.T) {
	out := explain(t, "Microsoft.Storage/storageAccounts@2025-01-01", ExplainOptions{})
	for _, want := range []string{"VERSION:       2025-01-01\n", "kind  <string>  REQUIRED", "location  <string>  REQUIRED, CREATE-ONLY", "sku  <object>  REQUIRED", "Swagger 2023-05-01"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "WARNING:") {
		t.Errorf("an exact version must not warn:\n%s", out)
	}
	out = explain(t, "Microsoft.Storage/storageAccounts@2025-01-01.properties", ExplainOptions{})
	if !strings.Contains(out, "minimumTlsVersion  <string>") || !strings.Contains(out, "Set the minimum TLS version to be permitted on requests to storage") {
		t.Errorf("minimumTlsVersion description missing:\n%s", out)
	}
	out = explain(t, "Microsoft.Storage/storageAccounts@2025-01-01.properties.minimumTlsVersion", ExplainOptions{Output: "json"})
	var doc struct {
		Field struct {
			Description string `json:"description"`
		} `json:"field"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || !strings.Contains(doc.Field.Description, "minimum TLS version") {
		t.Errorf("json description = %q (%v)", doc.Field.Description, err)
	}
}

func TestExplainListings(t *testing.T) {
	out := explain(t, "", ExplainOptions{})
	if !strings.Contains(out, "PROVIDER") || !strings.Contains(out, "Microsoft.Storage ") {
		t.Errorf("provider listing:\n%.500s", out)
	}
	out = explain(t, "microsoft.storage", ExplainOptions{})
	if !strings.Contains(out, "Microsoft.Storage/storageAccounts\n") || !strings.Contains(out, "2025-01-01") || strings.Contains(out, "Microsoft.Network") {
		t.Errorf("type listing:\n%.500s", out)
	}
	out = explain(t, "Microsoft.Storage", ExplainOptions{Output: "json"})
	var doc struct {
		Types []struct {
			Type     string   `json:"type"`
			Versions []string `json:"versions"`
		} `json:"types"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Types) < 10 {
		t.Errorf("json listing: %v %d", err, len(doc.Types))
	}
}

func TestExplainDidYouMean(t *testing.T) {
	cases := []struct{ query, want string }{
		{"Microsoft.Storage/storageAcounts", "did you mean Microsoft.Storage/storageAccounts"},
		{"Microsoft.Storag", "did you mean Microsoft.Storage"},
		{"Microsoft.Storage/storageAccounts@2025-01-01.properties.minimumTlsVersio", "did you mean properties.minimumTlsVersion"},
		{"Microsoft.Storage/storageAccounts@2025-01-01.propertes", "did you mean properties"},
	}
	for _, c := range cases {
		var b bytes.Buffer
		err := Explain(&b, Default(), c.query, ExplainOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.query, err, c.want)
		}
	}
}

// PATCH support taken from another api-version's Swagger is labelled as
// such; a Swagger that only describes a resource of a fixed name
// (diagnosticSettings/service, 2016-09-01) lends none.
func TestExplainBorrowedPatch(t *testing.T) {
	out := explain(t, "Microsoft.Insights/diagnosticSettings@2021-05-01-preview", ExplainOptions{})
	if !strings.Contains(out, "PATCH:") || !strings.Contains(out, "no (updates use GET-modify-PUT)") {
		t.Errorf("diagnosticSettings 2021-05-01-preview has no PATCH:\n%s", out)
	}
	ty := lookup(t, "Microsoft.Storage/storageAccounts", "2025-01-01")
	if ty.FactsFrom == ty.APIVersion || !ty.PatchSupported {
		t.Skipf("storage 2025-01-01 facts from %q: not a borrowed PATCH any more", ty.FactsFrom)
	}
	out = explain(t, "Microsoft.Storage/storageAccounts@2025-01-01", ExplainOptions{})
	if !strings.Contains(out, "from Swagger "+ty.FactsFrom+", not verified for 2025-01-01") {
		t.Errorf("borrowed PATCH not labelled:\n%s", out)
	}
}

// The FACTS line names the Swagger version only for what was taken from
// it: a neighbour that lent no PATCH and no field facts lends only ETag,
// long-running and status codes.
func TestExplainFactsSource(t *testing.T) {
	borrowed := &Type{APIVersion: "2025-01-01", FactsFrom: "2023-05-01", PatchSupported: true,
		Properties: map[string]*Property{"location": {CreateOnly: true, FromNearestSwagger: true}, "tags": {}}}
	none := &Type{APIVersion: "2021-05-01-preview", FactsFrom: "2016-09-01",
		Properties: map[string]*Property{"location": {}, "properties.logs": {Type: TypeArray}}}
	fieldsOnly := &Type{APIVersion: "2017-05-01-preview", FactsFrom: "2016-09-01",
		Properties: map[string]*Property{"location": {CreateOnly: true, FromNearestSwagger: true}}}
	cases := []struct {
		name string
		t    *Type
		want string
	}{
		{"own Swagger", &Type{APIVersion: "2023-05-01", FactsFrom: "2023-05-01"}, "Swagger 2023-05-01"},
		{"no Swagger", &Type{APIVersion: "2023-05-01"}, "no Swagger spec of this resource: array identifiers, create-only, PATCH and defaults are unknown"},
		{"PATCH and field facts borrowed", borrowed,
			`PATCH, field facts (marked "from the nearest Swagger version") and ETag, long-running and status codes from Swagger 2023-05-01 (the nearest version that has a Swagger spec)`},
		{"nothing but the version facts borrowed", none,
			"ETag, long-running and status codes from Swagger 2016-09-01 (the nearest version that has a Swagger spec); no PATCH, array identifiers, create-only or defaults taken from it"},
		{"field facts without PATCH", fieldsOnly,
			`field facts (marked "from the nearest Swagger version") and ETag, long-running and status codes from Swagger 2016-09-01 (the nearest version that has a Swagger spec); no PATCH taken from it`},
	}
	for _, tc := range cases {
		if got := factsSource(tc.t); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

// Microsoft.Insights 2015-07-01 and 2016-09-01 describe
// diagnosticSettings/service only: the diagnostic settings the user names
// (2017-05-01-preview to 2021-05-01-preview) take nothing from them, so no
// field is marked as borrowed, no status codes are claimed, and explain
// says no Swagger describes them. location stays create-only by the
// location rule, which holds for every type. The service resource keeps
// its own facts.
func TestExplainDiagnosticSettingsFacts(t *testing.T) {
	const want = "no Swagger spec of this resource: array identifiers, create-only, PATCH and defaults are unknown"
	for _, v := range []string{"2017-05-01-preview", "2020-01-01-preview", "2021-05-01-preview"} {
		ty := lookup(t, "Microsoft.Insights/diagnosticSettings", v)
		if ty.FactsFrom != "" || ty.PatchSupported || ty.HasEtag || ty.PutLRO || ty.PutStatus != nil || ty.DeleteStatus != nil {
			t.Errorf("%s: facts from %q (PATCH %v, ETag %v, PUT long-running %v, status codes %v %v), want none: the only Swagger is diagnosticSettings/service's",
				v, ty.FactsFrom, ty.PatchSupported, ty.HasEtag, ty.PutLRO, ty.PutStatus, ty.DeleteStatus)
		}
		for path, p := range ty.Properties {
			if p.FromNearestSwagger {
				t.Errorf("%s: %s marked as taken from a Swagger (%+v)", v, path, *p)
			}
		}
		if l := ty.Properties["location"]; l != nil && !l.CreateOnly {
			t.Errorf("%s: location is not create-only; the location rule makes it so for every type", v)
		}
		out := explain(t, "Microsoft.Insights/diagnosticSettings@"+v, ExplainOptions{})
		var facts string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "FACTS:") {
				facts = strings.TrimSpace(strings.TrimPrefix(l, "FACTS:"))
			}
		}
		if facts != want {
			t.Errorf("%s: FACTS line %q, want %q\n%s", v, facts, want, out)
		}
		if strings.Contains(out, "some facts from the nearest Swagger version") {
			t.Errorf("%s: a field is marked as borrowed:\n%s", v, out)
		}
	}
	if l := lookup(t, "Microsoft.Insights/diagnosticSettings", "2020-01-01-preview").Properties["location"]; l == nil {
		t.Error("2020-01-01-preview has no location: the check above checked nothing")
	}
	svc := lookup(t, "Microsoft.Insights/diagnosticSettings", "2016-09-01")
	if svc.FactsFrom != "2016-09-01" || !svc.PatchSupported || !slices.Equal(svc.PutStatus, []int{200}) {
		t.Errorf("diagnosticSettings/service 2016-09-01: facts from %q, PATCH %v, PUT status %v; want its own Swagger's", svc.FactsFrom, svc.PatchSupported, svc.PutStatus)
	}
}
