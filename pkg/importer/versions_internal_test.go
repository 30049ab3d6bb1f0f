package importer

import (
	"reflect"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// fakeSchemas serves one property set per api-version.
type fakeSchemas map[string][]string

func (f fakeSchemas) Lookup(typ, v string) (*schema.Type, schema.Resolution) {
	props, ok := f[v]
	if !ok {
		return nil, schema.Resolution{}
	}
	t := &schema.Type{Name: typ, APIVersion: v, Properties: map[string]*schema.Property{
		"location":                   {Type: schema.TypeString},
		"properties":                 {Type: schema.TypeObject},
		"properties.state":           {Type: schema.TypeString, ReadOnly: true},
		"properties.settings":        {Type: schema.TypeObject}, // free-form
		"properties.rules":           {Type: schema.TypeArray},
		"properties.rules[]":         {Type: schema.TypeObject},
		"properties.rules[].name":    {Type: schema.TypeString},
		"properties.rules[].comment": {Type: schema.TypeString},
	}}
	for _, p := range props {
		t.Properties[p] = &schema.Property{Type: schema.TypeString}
	}
	return t, schema.Resolution{Found: true, APIVersion: v}
}

func (f fakeSchemas) Versions(string) []string {
	out := make([]string, 0, len(f))
	for v := range f {
		out = append(out, v)
	}
	return out
}

func TestBetterVersionDeclaresEveryProperty(t *testing.T) {
	im := &Importer{Schemas: fakeSchemas{
		"2024-01-01":         {"properties.size"},
		"2023-01-01":         {"properties.size", "properties.legacy"},
		"2022-01-01":         {"properties.size", "properties.legacy", "properties.old"},
		"2024-06-01-preview": {"properties.size", "properties.fresh"},
	}}
	body := func(extra ...string) map[string]any {
		p := map[string]any{"size": "1", "state": "Ready", "settings": map[string]any{"anything": "x"},
			"rules": []any{map[string]any{"name": "r1", "comment": "c"}}}
		for _, e := range extra {
			p[e] = "v"
		}
		return map[string]any{"id": "/x", "name": "n", "location": "westus", "properties": p}
	}
	tests := []struct {
		name  string
		extra []string
		want  string
	}{
		{"newest declares everything", nil, ""},
		{"an older stable one is needed", []string{"legacy"}, "2023-01-01"},
		{"only the oldest declares both", []string{"legacy", "old"}, "2022-01-01"},
		{"only a preview declares it", []string{"fresh"}, "2024-06-01-preview"},
		{"no version declares it", []string{"nowhere"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := im.betterVersion("Microsoft.Test/widgets", "2024-01-01", "w1", body(tt.extra...)); got != tt.want {
				t.Errorf("betterVersion = %q, want %q", got, tt.want)
			}
		})
	}
	s, _ := im.Schemas.Lookup("", "2024-01-01")
	if got := undeclared(s, body("legacy", "fresh")); !reflect.DeepEqual(got, []string{"properties.fresh", "properties.legacy"}) {
		t.Errorf("undeclared = %v", got)
	}
}
