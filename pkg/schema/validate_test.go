package schema

import (
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	ty := testType()
	body := map[string]any{
		"id":       "/subscriptions/x/resourceGroups/rg/providers/Contoso.Widgets/widgets/w", // pasted from the portal
		"location": "westeurope",
		"tags":     map[string]any{"env": "prod", "n": 3},
		"sku":      map[string]any{"name": "Gold", "family": "C"},
		"bogus":    true,
		"properties": map[string]any{
			"count":    "three",
			"ratio":    2, // an integer is a number
			"enabled":  true,
			"settings": []any{"a memberless object accepts any JSON"},
			"status":   map[string]any{"phase": "Running"},
			"subnets": []any{
				map[string]any{"name": "a", "properties": map[string]any{"addressPrefix": "10.0.0.0/24"}},
				map[string]any{"name": 7, "extra": "x"},
			},
			"maps":  map[string]any{"east": map[string]any{"value": "v", "other": 1}},
			"steps": nil, // null removes in a merge patch
		},
	}
	got := map[string]Issue{}
	for _, is := range ty.Validate(body) {
		if _, dup := got[is.Path]; dup {
			t.Errorf("path %s reported twice", is.Path)
		}
		got[is.Path] = is
	}
	want := map[string]Severity{
		"id":                          Ignored,
		"tags.n":                      Warning, // ARM converts a number to a string
		"sku.name":                    Error,   // closed enum
		"sku.family":                  Warning, // open enum
		"bogus":                       Warning,
		"properties.count":            Error,
		"properties.status":           Ignored, // reported once, not per member
		"properties.subnets[1].name":  Warning,
		"properties.subnets[1].extra": Warning,
		"properties.maps.east.other":  Warning,
	}
	for path, sev := range want {
		is, ok := got[path]
		if !ok {
			t.Errorf("no issue at %s (want %s)", path, sev)
			continue
		}
		if is.Severity != sev {
			t.Errorf("%s: %s, want %s (%s)", path, is.Severity, sev, is.Message)
		}
	}
	for path, is := range got {
		if _, ok := want[path]; !ok {
			t.Errorf("unexpected issue %s", is)
		}
	}
	if m := got["sku.name"].Message; !strings.Contains(m, "Gold") || !strings.Contains(m, "Basic") {
		t.Errorf("enum message should name the value and the choices: %q", m)
	}
	if m := got["properties.count"].Message; !strings.Contains(m, "integer") || !strings.Contains(m, "string") {
		t.Errorf("type message should name both types: %q", m)
	}
}

func TestValidateEnumCaseInsensitive(t *testing.T) {
	issues := testType().Validate(map[string]any{"sku": map[string]any{"name": "premium"}})
	if len(issues) != 0 {
		t.Errorf("ARM enum values are case-insensitive; got %v", issues)
	}
}

func TestValidateNumbers(t *testing.T) {
	ty := testType()
	// YAML and JSON decoders produce different Go number types.
	for _, v := range []any{3, int64(3), 3.0, uint8(3)} {
		if issues := ty.Validate(map[string]any{"properties": map[string]any{"count": v}}); len(issues) != 0 {
			t.Errorf("count=%T(%v): %v", v, v, issues)
		}
	}
	if issues := ty.Validate(map[string]any{"properties": map[string]any{"count": 3.5}}); len(issues) != 1 || issues[0].Severity != Warning || issues[0].Kind != KindCoerced {
		t.Errorf("count=3.5: %v", issues)
	}
}

func TestValidateNilType(t *testing.T) {
	var ty *Type
	if issues := ty.Validate(map[string]any{"anything": 1}); issues != nil {
		t.Errorf("unknown type must not produce issues: %v", issues)
	}
}

// TestValidateRealSpec runs the validator on a real body against the
// embedded storage schema.
func TestValidateRealSpec(t *testing.T) {
	ty := lookup(t, "Microsoft.Storage/storageAccounts", "2023-05-01")
	body := map[string]any{
		"location": "westeurope",
		"sku":      map[string]any{"name": "Standard_LRS"},
		"kind":     "StorageV2",
		"properties": map[string]any{
			"minimumTlsVersion":        "TLS1_2",
			"accessTier":               "Lukewarm",
			"primaryEndpoints":         map[string]any{"blob": "https://x.blob.core.windows.net/"},
			"supportsHttpsTrafficOnly": "yes",
		},
	}
	got := map[string]Severity{}
	for _, is := range ty.Validate(body) {
		got[is.Path] = is.Severity
	}
	want := map[string]Severity{
		"properties.accessTier":               Error,
		"properties.primaryEndpoints":         Ignored,
		"properties.supportsHttpsTrafficOnly": Error,
	}
	if len(got) != len(want) {
		t.Errorf("issues = %v, want %v", got, want)
	}
	for p, s := range want {
		if g, ok := got[p]; !ok || g != s {
			t.Errorf("%s = %v (reported: %v), want %v", p, g, ok, s)
		}
	}
}

// TestMissingLocationRefusedOnlyForTrackedTypes: ARM asks a tracked
// resource for a location; Microsoft.Web 2015-08-01's spec marks one
// required on sites/config too (a proxy child whose later specs have
// none), and ARM creates that without it.
func TestMissingLocationRefusedOnlyForTrackedTypes(t *testing.T) {
	for _, c := range []struct {
		typ, version string
		want         Severity
	}{
		{"Microsoft.Web/sites/config", "2015-08-01", Warning},
		{"Microsoft.Storage/storageAccounts", "2023-05-01", Error},
		{"Microsoft.Web/sites", "2015-08-01", Error},
	} {
		ty, res := Default().Lookup(c.typ, c.version)
		if !res.Found || ty == nil {
			t.Fatalf("%s@%s is not in the index", c.typ, c.version)
		}
		got := Severity(-1)
		for _, is := range ty.ValidateWith(map[string]any{"properties": map[string]any{}}, ValidateOptions{Create: true, Name: "appsettings"}) {
			if is.Path == "location" {
				got = is.Severity
			}
		}
		if got != c.want {
			t.Errorf("%s@%s without location: severity %v, want %v", c.typ, c.version, got, c.want)
		}
	}
}
