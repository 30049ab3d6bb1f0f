package plan

import (
	"encoding/json"
	"testing"
)

// TestUnknownJSON: a change whose After is the marker renders exactly as
// the JSON contract has it, so plans and saved plans keep their bytes.
func TestUnknownJSON(t *testing.T) {
	marker, err := json.Marshal(Change{Path: "properties.principalId", After: Unknown{}, KnownAfterApply: true})
	if err != nil {
		t.Fatal(err)
	}
	text, _ := json.Marshal(Change{Path: "properties.principalId", After: KnownAfterApply, KnownAfterApply: true})
	if string(marker) != string(text) {
		t.Errorf("marker renders %s, want %s", marker, text)
	}
}

func TestFindUnknown(t *testing.T) {
	tests := []struct {
		name string
		body any
		want string
		ok   bool
	}{
		{"none", map[string]any{"a": "(known after apply)", "b": []any{1.0}}, "", false},
		{"member", map[string]any{"z": Unknown{}, "properties": map[string]any{"id": Unknown{}}}, "properties.id", true},
		{"item", map[string]any{"properties": map[string]any{"rules": []any{"x", map[string]any{"id": Unknown{}}}}}, "properties.rules[1].id", true},
		{"dotted member", map[string]any{"tags": map[string]any{"a.b": Unknown{}}}, `tags."a.b"`, true},
		{"root", Unknown{}, "", true},
	}
	for _, tt := range tests {
		got, ok := FindUnknown(tt.body)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: FindUnknown = %q, %v; want %q, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}
