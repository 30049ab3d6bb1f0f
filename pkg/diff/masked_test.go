package diff

import (
	"testing"
)

// A mask hides a value; a wildcard is one. "*" in a security rule is any
// address or port, compared like any value; "*****" in a live body, or
// "*" where secrets live (a service masking per character), is a secret
// the GET withholds, which a plan cannot verify.
func TestMaskedOrWildcard(t *testing.T) {
	rule := func(v string) string {
		return `{"properties":{"securityRules":[{"name":"r1","properties":{"priority":100,"sourceAddressPrefix":"` + v + `","sourcePortRange":"*"}}]}}`
	}
	for _, tc := range []struct {
		name, desired, live string
		action              Action
		unverifiable        int
	}{
		{"wildcard equal", rule("*"), rule("*"), ActionNoOp, 0},
		{"wildcard changed", rule("10.0.0.0/8"), rule("*"), ActionUpdate, 0},
		{"masked", `{"properties":{"password":"s3cr3t"}}`, `{"properties":{"password":"*****"}}`, ActionUpdate, 1},
		{"mask as the value", `{"properties":{"note":"*****"}}`, `{"properties":{"note":"*****"}}`, ActionNoOp, 0},
		{"per-character mask of a secret", `{"properties":{"secrets":{"x":"y"}}}`, `{"properties":{"secrets":{"x":"*"}}}`, ActionUpdate, 1},
		{"two asterisks", `{"properties":{"pattern":"a"}}`, `{"properties":{"pattern":"**"}}`, ActionUpdate, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Compute(Input{Desired: obj(t, tc.desired), Live: obj(t, tc.live)})
			if r.Action != tc.action || len(r.Unverifiable) != tc.unverifiable {
				t.Fatalf("%s, unverifiable %v, changes %+v; want %s with %d unverifiable", r.Action, r.Unverifiable, r.Changes, tc.action, tc.unverifiable)
			}
			for _, c := range r.Changes {
				if tc.unverifiable == 0 && c.Sensitive {
					t.Errorf("%s marked sensitive: %+v", c.Path, c)
				}
			}
		})
	}
}
