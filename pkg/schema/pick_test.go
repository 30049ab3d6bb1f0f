package schema

import (
	"slices"
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
