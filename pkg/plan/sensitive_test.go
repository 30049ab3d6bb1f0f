package plan

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestSensitiveJSON: a withheld value renders exactly as the contract
// (docs/plan-format.md) has it, on its own and nested in a value, so plans
// made with the marker are byte-identical to those that held the string.
func TestSensitiveJSON(t *testing.T) {
	got, err := json.Marshal(Change{Path: "properties.keys", Before: Sensitive{}, After: []any{map[string]any{"keyData": Sensitive{}, "path": "/p"}}, Sensitive: true})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(Change{Path: "properties.keys", Before: "(sensitive)", After: []any{map[string]any{"keyData": "(sensitive)", "path": "/p"}}, Sensitive: true})
	if string(got) != string(want) {
		t.Errorf("marker JSON = %s, want %s", got, want)
	}
	if s := fmt.Sprint(Sensitive{}); s != SensitiveText {
		t.Errorf("marker prints as %q, want %q", s, SensitiveText)
	}
}
