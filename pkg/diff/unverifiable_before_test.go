package diff

import "testing"

// A value the service does not return has no before: not live's mask, not
// its null, never the manifest's value.
func TestUnverifiableHasNoBefore(t *testing.T) {
	for name, live := range map[string]string{
		"masked":  `{"properties":{"secrets":{"x":"***"}}}`,
		"omitted": `{"properties":{"level":"a"}}`,
		"null":    `{"properties":{"token":null,"level":"a"}}`,
	} {
		d := obj(t, `{"properties":{"token":"abc","level":"a","secrets":{"x":"y"}}}`)
		r := Compute(Input{Desired: d, Live: obj(t, live), Schema: testSchema})
		n := 0
		for _, c := range r.Changes {
			if c.Cause != CauseUnverifiable {
				continue
			}
			n++
			if c.Before != nil {
				t.Errorf("%s: %s before = %v, want nil", name, c.Path, c.Before)
			}
		}
		if n == 0 {
			t.Errorf("%s: no unverifiable change in %+v", name, r.Changes)
		}
	}
}
