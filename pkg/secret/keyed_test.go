package secret

import (
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
)

// A caller's pattern naming one keyed item covers that item only: before,
// a pattern [a] covered every keyed item ([b] too), while apply's own
// marking kept them apart, so the plan and the record disagreed. An index
// and a key may name the same item and still meet.
func TestRuleKeyedItemsMatchOnlyTheirOwn(t *testing.T) {
	r := For("X.Y/z", "n", nil, "properties.rules[a].value", "properties.env[0].value")
	for path, want := range map[string]bool{
		"properties.rules[a].value":      true,
		"properties.rules[name=a].value": true,
		"properties.rules[A].value":      true, // ARM names ignore case
		"properties.rules[b].value":      false,
		"properties.rules[0].value":      true, // may be item a
		"properties.env[0].value":        true,
		"properties.env[1].value":        false,
		"properties.env[x].value":        true, // may be item 0
	} {
		p, err := bodypath.Parse(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Covered(p); got != want {
			t.Errorf("Covered(%s) = %v, want %v", path, got, want)
		}
	}
}
