package schema

import (
	"reflect"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
)

// testType is a hand-built type for unit tests that must not depend on the
// embedded index.
func testType() *Type {
	str := &Property{Type: TypeString}
	obj := &Property{Type: TypeObject}
	arr := &Property{Type: TypeArray}
	return &Type{
		Name: "Contoso.Widgets/widgets", APIVersion: "2024-06-01",
		Properties: map[string]*Property{
			"id":                              {Type: TypeString, ReadOnly: true},
			"location":                        {Type: TypeString, CreateOnly: true},
			"tags":                            obj,
			"tags.*":                          str,
			"sku":                             obj,
			"sku.name":                        {Type: TypeString, Enum: []string{"Basic", "Premium"}, EnumClosed: true},
			"sku.family":                      {Type: TypeString, Enum: []string{"A", "B"}},
			"properties":                      obj,
			"properties.count":                {Type: TypeInteger},
			"properties.ratio":                {Type: TypeNumber},
			"properties.enabled":              {Type: TypeBoolean},
			"properties.settings":             obj, // free-form: no members
			"properties.status":               {Type: TypeObject, ReadOnly: true},
			"properties.status.phase":         {Type: TypeString, ReadOnly: true},
			"properties.subnets":              arr,
			"properties.subnets[]":            obj,
			"properties.subnets[].name":       str,
			"properties.subnets[].properties": obj,
			"properties.subnets[].properties.addressPrefix": str,
			"properties.steps":          {Type: TypeArray, Identifiers: []string{}, Positional: true},
			"properties.steps[]":        str,
			"properties.rules":          {Type: TypeArray, Identifiers: []string{"ruleId"}},
			"properties.rules[]":        obj,
			"properties.rules[].ruleId": str,
			"properties.ids":            arr,
			"properties.ids[]":          obj,
			"properties.ids[].id":       str,
			"properties.labels":         arr,
			"properties.labels[]":       str,
			"properties.maps":           obj,
			"properties.maps.*":         obj,
			"properties.maps.*.value":   str,
		},
	}
}

func TestSplitJoinPath(t *testing.T) {
	cases := map[string][]string{
		"properties.subnets[2].name":           {"properties", "subnets", "[2]", "name"},
		"properties.subnets[default].name":     {"properties", "subnets", "[default]", "name"},
		`properties.subnets["my.subnet"].name`: {"properties", "subnets", `["my.subnet"]`, "name"},
		"properties.subnets[name=a].name":      {"properties", "subnets", "[name=a]", "name"},
		"tags.env":                             {"tags", "env"},
		`tags."a.b"`:                           {"tags", "a.b"},
		`tags."hidden-link: x"`:                {"tags", "hidden-link: x"},
		"tags.*":                               {"tags", "*"},
		"properties.subnets[].properties":      {"properties", "subnets", "[]", "properties"},
		"properties.subnets[*].properties":     {"properties", "subnets", "[*]", "properties"},
		"properties.matrix[0][1]":              {"properties", "matrix", "[0]", "[1]"},
		"location":                             {"location"},
	}
	for in, want := range cases {
		got := SplitPath(in)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("SplitPath(%q) = %q, want %q", in, got, want)
		}
		if back := JoinPath(got); back != in {
			t.Errorf("JoinPath(SplitPath(%q)) = %q", in, back)
		}
	}
	// Other spellings read the same and are written canonically.
	for in, want := range map[string]string{
		"properties.subnets[my.subnet].name": `properties.subnets["my.subnet"].name`,
		`tags["a.b"]`:                        `tags["a.b"]`,
		" location ":                         "location",
	} {
		if got := JoinPath(SplitPath(in)); got != want {
			t.Errorf("JoinPath(SplitPath(%q)) = %q, want %q", in, got, want)
		}
	}
	// A malformed path is one segment: it names no property.
	for _, in := range []string{"a..b", "a[0", `a."b`} {
		if got := SplitPath(in); !reflect.DeepEqual(got, []string{in}) {
			t.Errorf("SplitPath(%q) = %q, want it whole", in, got)
		}
	}
}

func TestResolveUndeclaredItems(t *testing.T) {
	typ := testType()
	sp, p := typ.Resolve(SplitPath("properties.settings[2].x"))
	if p != nil || sp != "properties.settings[].x" {
		t.Errorf("Resolve = %q %v, want the schema path of the undeclared items", sp, p)
	}
	sp, p = typ.Resolve(SplitPath(`tags."a.b"`))
	if p == nil || sp != "tags.*" {
		t.Errorf("Resolve(tags.\"a.b\") = %q %v, want the map value", sp, p)
	}
}

func TestSchemaPath(t *testing.T) {
	if got := SchemaPath(SplitPath("properties.subnets[2].properties.addressPrefix")); got != "properties.subnets[].properties.addressPrefix" {
		t.Errorf("SchemaPath = %q", got)
	}
	if got := SchemaPath(SplitPath("properties.subnets[default].name")); got != "properties.subnets[].name" {
		t.Errorf("SchemaPath keyed = %q", got)
	}
}

func TestResolve(t *testing.T) {
	ty := testType()
	cases := []struct {
		concrete string
		schema   Path
		found    bool
	}{
		{"properties.subnets[3].properties.addressPrefix", "properties.subnets[].properties.addressPrefix", true},
		{"tags.env", "tags.*", true},
		{"properties.maps.east.value", "properties.maps.*.value", true},
		{"Properties.Count", "properties.count", true}, // ARM echoes some names in other casing
		{"properties.nope.deeper", "properties.nope.deeper", false},
		{"properties.subnets[0].bogus", "properties.subnets[].bogus", false},
	}
	for _, c := range cases {
		sp, p := ty.Resolve(SplitPath(c.concrete))
		if sp != c.schema || (p != nil) != c.found {
			t.Errorf("Resolve(%s) = %q, %v; want %q, found=%v", c.concrete, sp, p, c.schema, c.found)
		}
	}
	var nilType *Type
	if sp, p := nilType.Resolve(SplitPath("a[1].b")); sp != "a[].b" || p != nil {
		t.Errorf("nil type Resolve = %q %v", sp, p)
	}
}

func TestArrayKeysFallback(t *testing.T) {
	ty := testType()
	cases := []struct {
		path                 Path
		keys                 []string
		positional, fromSpec bool
	}{
		{"properties.rules", []string{"ruleId"}, false, true},
		{"properties.steps", []string{}, true, true},
		{"properties.subnets", []string{"name"}, false, false},
		{"properties.ids", []string{"id"}, false, false},
		{"properties.labels", nil, false, false},
	}
	for _, c := range cases {
		keys, pos, from := ty.ArrayKeys(c.path)
		if !reflect.DeepEqual(keys, c.keys) || pos != c.positional || from != c.fromSpec {
			t.Errorf("ArrayKeys(%s) = %v %v %v, want %v %v %v", c.path, keys, pos, from, c.keys, c.positional, c.fromSpec)
		}
	}
}

func TestChildren(t *testing.T) {
	ty := testType()
	if got := ty.Children("sku"); !reflect.DeepEqual(got, []string{"family", "name"}) {
		t.Errorf("Children(sku) = %v", got)
	}
	if got := ty.Children("properties.subnets"); !reflect.DeepEqual(got, []string{"[]"}) {
		t.Errorf("Children(subnets) = %v", got)
	}
	if got := ty.Children("properties.settings"); len(got) != 0 {
		t.Errorf("Children(settings) = %v", got)
	}
	if got := ty.Children(""); !reflect.DeepEqual(got, []string{"id", "location", "properties", "sku", "tags"}) {
		t.Errorf("Children(root) = %v", got)
	}
}

func TestNearestVersion(t *testing.T) {
	known := []string{"2021-01-01", "2022-01-01", "2023-01-01", "2023-06-01-preview"}
	cases := []struct {
		want, got string
		exact     bool
	}{
		{"2022-01-01", "2022-01-01", true},
		{"2022-01-02", "2022-01-01", false},
		{"2022-07-03", "2023-01-01", false}, // closer to 2023
		{"2022-07-02", "2022-01-01", false}, // 182 days back beats 183 ahead
		{"2030-01-01", "2023-06-01-preview", false},
		{"", "2023-01-01", false}, // newest stable
		{"garbage", "2023-06-01-preview", false},
		{"2023-06-01-PREVIEW", "2023-06-01-preview", true},
	}
	for _, c := range cases {
		got, exact := nearestVersion(known, c.want)
		if got != c.got || exact != c.exact {
			t.Errorf("nearestVersion(%q) = %q %v, want %q %v", c.want, got, exact, c.got, c.exact)
		}
	}
	// A tie goes to the newer version.
	if got, _ := nearestVersion([]string{"2021-01-01", "2021-01-05"}, "2021-01-03"); got != "2021-01-05" {
		t.Errorf("tie resolved to %s", got)
	}
}

func TestPathBuilders(t *testing.T) {
	cases := []struct {
		name string
		got  Path
		want Path
	}{
		{"member of root", Path("").Member("properties"), "properties"},
		{"member", Path("properties").Member("subnets"), "properties.subnets"},
		{"item", Path("properties.subnets").Item(), "properties.subnets[]"},
		{"member of item", Path("properties.subnets").Item().Member("name"), "properties.subnets[].name"},
		{"item of root", Path("").Item(), "[]"},
		{"map value", Path("tags").MapValue(), "tags.*"},
		{"map value of root", Path("").MapValue(), "*"},
		{"child of a map", Path("tags").Child("env", true), "tags.*"},
		{"child of an object", Path("properties").Child("env", false), "properties.env"},
		{"child of a root map", Path("").Child("env", true), "*"},
		{"map in item", Path("properties.rules").Item().MapValue().Member("value"), "properties.rules[].*.value"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, c.got, c.want)
		}
	}
}

func TestPathSplitWithin(t *testing.T) {
	splits := []struct {
		p      Path
		parent Path
		name   string
	}{
		{"properties.subnets[]", "properties.subnets", "[]"},
		{"properties.subnets[].name", "properties.subnets[]", "name"},
		{"tags.*", "tags", "*"},
		{"location", "", "location"},
		{"", "", ""},
	}
	for _, c := range splits {
		if parent, name := c.p.Split(); parent != c.parent || name != c.name {
			t.Errorf("Split(%q) = %q, %q; want %q, %q", c.p, parent, name, c.parent, c.name)
		}
	}
	within := []struct {
		p, q Path
		want bool
	}{
		{"tags", "tags", true},
		{"tags.env", "tags", true},
		{"tagsExtra", "tags", false},
		{"properties.subnets[].name", "properties.subnets", true},
		{"properties.subnetsX", "properties.subnets", false},
		{"properties", "properties.subnets", false},
		{"properties", "", false},
		{"", "", true},
	}
	for _, c := range within {
		if got := c.p.Within(c.q); got != c.want {
			t.Errorf("%q.Within(%q) = %v, want %v", c.p, c.q, got, c.want)
		}
	}
}

func TestPathOf(t *testing.T) {
	maps := map[Path]bool{"tags": true, "properties.rules[]": true}
	isMap := func(p Path) bool { return maps[p] }
	cases := []struct {
		body  string
		isMap func(Path) bool
		want  Path
	}{
		{"properties.subnets[2].properties.addressPrefix", nil, "properties.subnets[].properties.addressPrefix"},
		{"properties.subnets[default].name", nil, "properties.subnets[].name"},
		{"tags.env", nil, "tags.env"},
		{"tags.env", isMap, "tags.*"},
		{`tags."a.b"`, isMap, "tags.*"},
		{"properties.rules[0].east.value", isMap, "properties.rules[].*.value"},
		{"location", isMap, "location"},
	}
	for _, c := range cases {
		bp, err := bodypath.Parse(c.body)
		if err != nil {
			t.Fatal(err)
		}
		if got := PathOf(bp, c.isMap); got != c.want {
			t.Errorf("PathOf(%s) = %q, want %q", c.body, got, c.want)
		}
		// Without maps PathOf and SchemaPath agree: one builder.
		if c.isMap == nil {
			if sp := SchemaPath(SplitPath(c.body)); sp != c.want {
				t.Errorf("SchemaPath(%s) = %q, want %q", c.body, sp, c.want)
			}
		}
	}
}
