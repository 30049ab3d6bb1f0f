package schema

import (
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/schema/internal/format"
)

// pickRegistry: a type whose members appear over time; the preview is
// the only one with "c".
func pickRegistry(t *testing.T) *Registry {
	t.Helper()
	dir := t.TempDir()
	b := &format.Blob{
		Name:  "Contoso.Widgets/widgets",
		Paths: []string{"properties", "properties.a", "properties.b", "properties.c", "properties.state"},
		Props: []format.Prop{{Type: "object"}, {Type: "string"}, {Type: "string", Flags: format.FlagReadOnly}},
		Versions: []format.APIVersion{
			{Version: "2024-01-01", Props: []format.PathProp{{Path: 0, Prop: 0}, {Path: 1, Prop: 1}, {Path: 4, Prop: 2}}},
			{Version: "2024-06-01", Props: []format.PathProp{{Path: 0, Prop: 0}, {Path: 1, Prop: 1}, {Path: 2, Prop: 1}, {Path: 4, Prop: 2}}},
			{Version: "2024-09-01", Props: []format.PathProp{{Path: 0, Prop: 0}, {Path: 1, Prop: 1}, {Path: 4, Prop: 2}}},
			{Version: "2025-01-01-preview", Props: []format.PathProp{{Path: 0, Prop: 0}, {Path: 1, Prop: 1}, {Path: 2, Prop: 1}, {Path: 3, Prop: 1}, {Path: 4, Prop: 2}}},
		},
	}
	if err := format.WriteIndex(dir, []*format.Blob{b}); err != nil {
		t.Fatal(err)
	}
	r, err := openIndex(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestImportVersion(t *testing.T) {
	r := pickRegistry(t)
	cases := []struct {
		props      map[string]any
		want       string
		undeclared []string
	}{
		{map[string]any{"a": "x", "state": "Ready"}, "2024-09-01", nil},
		{map[string]any{"a": "x", "b": "y"}, "2024-06-01", nil},
		{map[string]any{"c": "z"}, "2025-01-01-preview", nil},
		{map[string]any{"a": "x", "d": "?"}, "2024-09-01", []string{"properties.d"}},
	}
	for _, c := range cases {
		v, miss := r.ImportVersion("contoso.widgets/WIDGETS", map[string]any{"properties": c.props})
		if v != c.want || !slices.Equal(miss, c.undeclared) {
			t.Errorf("%v: %s %v, want %s %v", c.props, v, miss, c.want, c.undeclared)
		}
	}
	if v, _ := r.ImportVersion("Contoso.Widgets/nope", nil); v != "" {
		t.Errorf("unknown type picked %q", v)
	}
}

func TestProviderVersions(t *testing.T) {
	body := []byte(`{"namespace":"Microsoft.Storage","resourceTypes":[
		{"resourceType":"storageAccounts","apiVersions":["2025-01-01","2024-01-01"]},
		{"resourceType":"storageAccounts/blobServices","apiVersions":["2023-05-01"]}]}`)
	for typ, want := range map[string][]string{
		"Microsoft.Storage/storageAccounts":              {"2025-01-01", "2024-01-01"},
		"microsoft.storage/storageaccounts/blobservices": {"2023-05-01"},
		"Microsoft.Storage/nope":                         nil,
	} {
		got, err := ProviderVersions(body, typ)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%s: %v %v", typ, got, err)
		}
	}
	if _, err := ProviderVersions([]byte("{"), "x/y"); err == nil {
		t.Error("bad JSON accepted")
	}
	if m := VersionVerdict("A/b", "2025-01-01", []string{"2025-01-01"}); !strings.Contains(m, "ARM lists api-version 2025-01-01") {
		t.Error(m)
	}
	if m := VersionVerdict("A/b", "2025-13-01", []string{"2024-01-01", "2025-01-01"}); !strings.Contains(m, "does not exist") || !strings.Contains(m, "2025-01-01") {
		t.Error(m)
	}
}
