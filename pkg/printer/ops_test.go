package printer

import (
	"strings"
	"testing"
)

// TestPointerSegments: JSON operations are built for object members only;
// a plan path with an array item gets none (a pointer cannot name
// [default] without the live array's order).
func TestPointerSegments(t *testing.T) {
	for _, tc := range []struct {
		path string
		want []string
	}{
		{"properties.sku", []string{"properties", "sku"}},
		{`tags."a.b"`, []string{"tags", "a.b"}},
		{`tags."say \"hi\"".x`, []string{"tags", `say "hi"`, "x"}},
		{"properties.subnets[0].name", nil},
		{"properties.subnets[default]", nil},
		{`tags["a.b"]`, nil},
		{`tags."open`, nil},
	} {
		got, ok := pointerSegments(tc.path)
		if ok != (tc.want != nil) || strings.Join(got, "\x00") != strings.Join(tc.want, "\x00") {
			t.Errorf("pointerSegments(%s) = %q %v, want %q", tc.path, got, ok, tc.want)
		}
	}
}
