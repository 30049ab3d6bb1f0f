package plugins

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// schemaGaps are paths a plugin names although no api-version in the schema
// index declares them: properties ARM really accepts or returns that the
// spec leaves out (often the very reason the plugin exists). Each entry
// cites the record or document that shows the path, keyed by
// "lower-cased type path"; a path "" stands for a type the index lacks.
// Keep it short: TestRulePathsExist fails once an entry appears in the
// schema (delete the entry) or no plugin names it any more.
var schemaGaps = map[string]string{}

// ruleRef is one path named by a plugin: a rule, an identifier key (as
// the item path it addresses), or a path a hook reads.
type ruleRef struct {
	rule, path string
	// value is the declared default, checked against the spec's type and
	// enum; nil for other rules.
	value any
}

// rulePaths lists every path the rules name, in a stable order.
func rulePaths(r *diff.Rules) []ruleRef {
	if r == nil {
		return nil
	}
	var out []ruleRef
	add := func(rule string, paths ...schema.Path) {
		for _, p := range paths {
			out = append(out, ruleRef{rule: rule, path: string(p)})
		}
	}
	add("ReadOnly", r.ReadOnly...)
	add("WriteOnly", r.WriteOnly...)
	add("CreateOnly", r.CreateOnly...)
	add("Ordered", r.Ordered...)
	add("ChildCollections", r.ChildCollections...)
	add("MergeCollections", r.MergeCollections...)
	for _, p := range sortedKeys(r.Defaults) {
		out = append(out, ruleRef{rule: "Defaults", path: string(p), value: r.Defaults[p]})
	}
	add("Unset", sortedKeys(r.Unset)...)
	add("Normalizers", sortedKeys(r.Normalizers)...)
	for _, p := range sortedKeys(r.Identifiers) {
		add("Identifiers", p)
		for _, k := range r.Identifiers[p] {
			add("Identifiers key", p.Item().Member(k))
		}
	}
	return out
}

func sortedKeys[K ~string, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// arrayRules name arrays (of objects, except Ordered which names arrays
// of scalars); a path to anything else is a mistake even if it exists.
var arrayRules = map[string]bool{"Ordered": true, "ChildCollections": true, "MergeCollections": true, "Identifiers": true}

// checkPaths checks the paths a type's plugin names against every
// api-version of the type the index knows (plugins are not version-scoped,
// so a path must exist in at least one). It returns one message per
// problem and the schemaGaps keys it relied on.
func checkPaths(typ string, refs []ruleRef, versions []*schema.Type, gaps map[string]string) (problems, used []string) {
	key := strings.ToLower(typ)
	if len(versions) == 0 {
		if _, ok := gaps[key+" "]; ok {
			return nil, []string{key + " "}
		}
		return []string{fmt.Sprintf("%s: the schema index has no such type, so none of its %d rule paths can be checked; fix the type's spelling in register, or add %q to schemaGaps with evidence that ARM serves it", typ, len(refs), key+" ")}, nil
	}
	for _, ref := range refs {
		var in []string // api-versions declaring the path
		for _, s := range versions {
			if s.Prop(ref.path) != nil {
				in = append(in, s.APIVersion)
			}
		}
		gapKey := key + " " + ref.path
		_, isGap := gaps[gapKey]
		switch {
		case isGap && len(in) > 0:
			problems = append(problems, fmt.Sprintf("%s: %s %s is listed in schemaGaps but api-versions %s now declare it; delete the schemaGaps entry", typ, ref.rule, ref.path, span(in)))
			used = append(used, gapKey)
			continue
		case isGap:
			used = append(used, gapKey)
			continue
		case len(in) == 0:
			problems = append(problems, fmt.Sprintf("%s: %s names %s, which none of the %d api-versions in the schema index declares, so the rule does nothing%s; fix the path, or if ARM really uses it add %q to schemaGaps with the record that shows it", typ, ref.rule, ref.path, len(versions), suggestion(ref.path, versions), gapKey))
			continue
		}
		if msg := checkShape(ref, versions); msg != "" {
			problems = append(problems, fmt.Sprintf("%s: %s %s: %s", typ, ref.rule, ref.path, msg))
		}
	}
	return problems, used
}

// checkShape reports a path that exists but cannot be what the rule needs
// in any api-version: a collection rule on a non-array, a default the
// spec's type or closed enum rejects.
func checkShape(ref ruleRef, versions []*schema.Type) string {
	var why string
	for _, s := range versions {
		p := s.Prop(ref.path)
		if p == nil {
			continue
		}
		switch {
		case arrayRules[ref.rule] && p.Type != schema.TypeArray && p.Type != schema.TypeUnknown:
			why = fmt.Sprintf("the spec declares a %s, not an array (api-version %s)", p.Type, s.APIVersion)
		case ref.rule == "Defaults" && !acceptsDefault(p, ref.value):
			why = fmt.Sprintf("the default %v does not fit the spec's %s %v (api-version %s)", ref.value, p.Type, p.Enum, s.APIVersion)
		default:
			return ""
		}
	}
	return why
}

// acceptsDefault reports whether a declared default fits the spec's type
// and, for a closed enum, its values (ARM compares enum values without case).
func acceptsDefault(p *schema.Property, v any) bool {
	switch p.Type {
	case schema.TypeString:
		s, ok := v.(string)
		if !ok {
			return false
		}
		if p.EnumClosed && len(p.Enum) > 0 {
			return slices.ContainsFunc(p.Enum, func(e string) bool { return strings.EqualFold(e, s) })
		}
	case schema.TypeBoolean:
		_, ok := v.(bool)
		return ok
	case schema.TypeInteger, schema.TypeNumber:
		switch v.(type) {
		case json.Number, int, int64, float64:
			return true
		}
		return false
	}
	return true
}

// suggestion names the declared path a misspelt one most likely meant:
// the same path in other case, with other array or map markers, or the
// nearest by edit distance.
func suggestion(path string, versions []*schema.Type) string {
	all := map[string]bool{}
	for _, s := range versions {
		for p := range s.Properties {
			all[p] = true
		}
	}
	bare := func(p string) string {
		var segs []string
		for _, s := range schema.SplitPath(p) {
			if s != "[]" && s != "*" {
				segs = append(segs, strings.ToLower(s))
			}
		}
		return strings.Join(segs, ".")
	}
	want := bare(path)
	keys := sortedKeys(all)
	for _, p := range keys {
		if bare(p) == want {
			return fmt.Sprintf(" (did you mean %s?)", p)
		}
	}
	if s := schema.Suggest(path, keys); len(s) > 0 {
		return fmt.Sprintf(" (did you mean %s?)", s[0])
	}
	return ""
}

// span summarises api-versions for a message.
func span(vs []string) string {
	if len(vs) <= 3 {
		return strings.Join(vs, ", ")
	}
	return fmt.Sprintf("%s … %s (%d)", vs[0], vs[len(vs)-1], len(vs))
}

// indexVersions loads every api-version of a type from the committed
// schema index.
func indexVersions(t *testing.T, typ string) []*schema.Type {
	t.Helper()
	reg := schema.Default()
	var out []*schema.Type
	for _, v := range reg.Versions(typ) {
		s, res := reg.Lookup(typ, v)
		if s == nil || res.APIVersion != v {
			t.Fatalf("%s %s: listed by the index but Lookup answered %+v", typ, v, res)
		}
		out = append(out, s)
	}
	return out
}

// Every path a registered plugin names (rules, identifier keys, the paths
// hooks read) exists in the committed schema index or is an evidenced
// schemaGaps entry: a misspelt path would silently do nothing.
func TestRulePathsExist(t *testing.T) {
	if err := schema.Default().Err(); err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	var nPaths, nVersions int
	for _, typ := range Types() {
		refs := rulePaths(For(typ).Rules())
		for _, p := range registry().hookPaths[typ] {
			refs = append(refs, ruleRef{rule: "hook", path: string(p)})
		}
		if registry().hooked[typ] && len(registry().hookPaths[typ]) == 0 {
			t.Errorf("%s: a hook is declared without the paths it reads; use addHooks", typ)
		}
		versions := indexVersions(t, typ)
		nPaths += len(refs)
		nVersions += len(versions)
		problems, u := checkPaths(typ, refs, versions, schemaGaps)
		for _, p := range problems {
			t.Error(p)
		}
		for _, k := range u {
			used[k] = true
		}
	}
	for _, k := range sortedKeys(schemaGaps) {
		if !used[k] {
			t.Errorf("schemaGaps entry %q is named by no plugin; delete it", k)
		}
	}
	for typ := range registry().hookPaths {
		if registry().plugins[typ] == nil {
			t.Errorf("hook paths declared for %s, which has no plugin", typ)
		}
	}
	t.Logf("%d plugin types, %d paths checked against %d schema api-versions", len(Types()), nPaths, nVersions)
}

// The checker itself: each kind of mistake is reported, and schemaGaps
// entries are honoured only while the schema lacks the path.
func TestCheckPathsCatchesMistakes(t *testing.T) {
	prop := func(jt schema.JSONType) *schema.Property { return &schema.Property{Type: jt} }
	v1 := &schema.Type{Name: "Example.Net/things", APIVersion: "2020-01-01", Properties: map[string]*schema.Property{
		"properties":                 prop(schema.TypeObject),
		"properties.subnets":         prop(schema.TypeArray),
		"properties.subnets[]":       prop(schema.TypeObject),
		"properties.subnets[].name":  prop(schema.TypeString),
		"properties.addressPrefix":   prop(schema.TypeString),
		"properties.mode":            {Type: schema.TypeString, Enum: []string{"On", "Off"}, EnumClosed: true},
		"properties.settings":        prop(schema.TypeObject),
		"properties.settings.*":      prop(schema.TypeString),
		"properties.publicNetworkOn": prop(schema.TypeBoolean),
	}}
	v2 := &schema.Type{Name: v1.Name, APIVersion: "2021-01-01", Properties: map[string]*schema.Property{
		"properties":            prop(schema.TypeObject),
		"properties.newInV2":    prop(schema.TypeString),
		"properties.subnets":    prop(schema.TypeArray),
		"properties.subnets[]":  prop(schema.TypeObject),
		"properties.settings.*": prop(schema.TypeString),
	}}
	versions := []*schema.Type{v1, v2}
	const gap = "example.net/things properties.serverOnly"

	cases := []struct {
		name string
		ref  ruleRef
		gaps map[string]string
		want string // substring of the one problem; "" for none
	}{
		{"declared in one version", ruleRef{rule: "WriteOnly", path: "properties.newInV2"}, nil, ""},
		{"map values", ruleRef{rule: "WriteOnly", path: "properties.settings.*"}, nil, ""},
		{"identifier key", ruleRef{rule: "Identifiers key", path: "properties.subnets[].name"}, nil, ""},
		{"misspelt", ruleRef{rule: "ReadOnly", path: "properties.adressPrefix"}, nil, "did you mean properties.addressPrefix?"},
		{"wrong case", ruleRef{rule: "ReadOnly", path: "properties.AddressPrefix"}, nil, "did you mean properties.addressPrefix?"},
		{"missing array marker", ruleRef{rule: "WriteOnly", path: "properties.subnets.name"}, nil, "did you mean properties.subnets[].name?"},
		{"array marker on an object", ruleRef{rule: "WriteOnly", path: "properties.settings[]"}, nil, "did you mean properties.settings?"},
		{"unknown, no suggestion", ruleRef{rule: "ReadOnly", path: "sku.capacity"}, nil, "none of the 2 api-versions"},
		{"gap absent from schema", ruleRef{rule: "WriteOnly", path: "properties.serverOnly"}, map[string]string{gap: "record"}, ""},
		{"gap now in schema", ruleRef{rule: "WriteOnly", path: "properties.newInV2"}, map[string]string{"example.net/things properties.newInV2": "record"}, "delete the schemaGaps entry"},
		{"collection rule on a scalar", ruleRef{rule: "ChildCollections", path: "properties.addressPrefix"}, nil, "not an array"},
		{"collection rule on an array", ruleRef{rule: "ChildCollections", path: "properties.subnets"}, nil, ""},
		{"default outside a closed enum", ruleRef{rule: "Defaults", path: "properties.mode", value: "Auto"}, nil, "does not fit"},
		{"default in enum, other case", ruleRef{rule: "Defaults", path: "properties.mode", value: "off"}, nil, ""},
		{"default of the wrong type", ruleRef{rule: "Defaults", path: "properties.publicNetworkOn", value: "true"}, nil, "does not fit"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			problems, used := checkPaths(v1.Name, []ruleRef{c.ref}, versions, c.gaps)
			switch {
			case c.want == "" && len(problems) > 0:
				t.Fatalf("unexpected problems: %q", problems)
			case c.want != "" && (len(problems) != 1 || !strings.Contains(problems[0], c.want)):
				t.Fatalf("want one problem containing %q, got %q", c.want, problems)
			}
			if len(c.gaps) > 0 && len(used) != 1 {
				t.Errorf("gap entry not reported as used: %v", used)
			}
		})
	}

	t.Run("type missing from the index", func(t *testing.T) {
		refs := []ruleRef{{rule: "ReadOnly", path: "properties.x"}}
		if p, _ := checkPaths("Example.Net/nothing", refs, nil, nil); len(p) != 1 || !strings.Contains(p[0], "no such type") {
			t.Errorf("got %q", p)
		}
		if p, u := checkPaths("Example.Net/nothing", refs, nil, map[string]string{"example.net/nothing ": "doc"}); len(p) != 0 || len(u) != 1 {
			t.Errorf("type-level gap not honoured: %q %q", p, u)
		}
	})
}

func TestRulePathsListsEveryRule(t *testing.T) {
	r := &diff.Rules{
		ReadOnly: []schema.Path{"a"}, WriteOnly: []schema.Path{"b"}, CreateOnly: []schema.Path{"c"}, Ordered: []schema.Path{"d"},
		ChildCollections: []schema.Path{"e"}, MergeCollections: []schema.Path{"f"},
		Defaults: map[schema.Path]any{"g": "x"}, Unset: map[schema.Path][]any{"h": {""}},
		Normalizers: map[schema.Path]diff.Normalizer{"i": nil}, Identifiers: map[schema.Path][]string{"j": {"name", "properties.key"}},
	}
	var got []string
	for _, ref := range rulePaths(r) {
		got = append(got, ref.rule+":"+ref.path)
	}
	want := []string{"ReadOnly:a", "WriteOnly:b", "CreateOnly:c", "Ordered:d", "ChildCollections:e", "MergeCollections:f",
		"Defaults:g", "Unset:h", "Normalizers:i", "Identifiers:j", "Identifiers key:j[].name", "Identifiers key:j[].properties.key"}
	if !slices.Equal(got, want) {
		t.Errorf("rulePaths:\n got %q\nwant %q", got, want)
	}
}
