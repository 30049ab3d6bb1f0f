package importer

import (
	"encoding/json"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestExactNumbersRenderAsNumbers: numbers the ARM client keeps exact
// (json.Number) are written as YAML numbers, not quoted strings, so the
// imported manifest loads without "a quoted number" warnings.
func TestExactNumbersRenderAsNumbers(t *testing.T) {
	n, err := bodyNode(map[string]any{"properties": map[string]any{
		"priority": json.Number("4096"), "ratio": json.Number("0.25"), "big": json.Number("12345678901234567890"), "name": "4096",
	}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	if err := enc.Encode(n); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"priority: 4096\n", "ratio: 0.25\n", "big: 12345678901234567890\n", `name: "4096"`} {
		if !strings.Contains(out, want) {
			t.Errorf("rendered body lacks %q:\n%s", want, out)
		}
	}
}
