package diff

import "testing"

// Every rule is named and judged, and each table ends with a rule that
// applies to every pair, so no pair of values is left undecided.
func TestRuleTablesComplete(t *testing.T) {
	for name, rs := range map[string]*ruleSet{"compareRules": compareRules, "absentRules": absentRules} {
		for in := scope(0); in < 16; in++ {
			for xi := 0; xi < kindCount; xi++ {
				for yi := 0; yi < kindCount; yi++ {
					sel := rs.sel[in][xi][yi]
					if len(sel) == 0 {
						t.Fatalf("%s: no rule for scope %b, kinds %d/%d", name, in, xi, yi)
					}
					for _, r := range sel {
						if r.name == "" || r.judge == nil {
							t.Errorf("%s: rule %+v lacks a name or a judge", name, r)
						}
					}
					if last := sel[len(sel)-1]; last.in != 0 || last.x != 0 || last.y != 0 || last.family != "" {
						t.Errorf("%s: last rule %q has conditions", name, last.name)
					}
				}
			}
		}
	}
}
