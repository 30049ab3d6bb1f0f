package bodypath

import (
	"reflect"
	"testing"
)

// FuzzParse: any input either fails with an error or parses to a path
// whose owned form reads back to the same path, and whose display form
// reads back too (it drops identifier names and may turn [007] into [7],
// so only the second rendering must be stable).
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"properties.subnets[default].properties.addressPrefix",
		"a[name=default,kind=x]", `tags."a.b"`, `tags["a.b"]`, "a[0]", "a[]", "a[*].b", "tags.*",
		`a["0"]`, `a[""]`, `a.""`, `a."\u00e9\t"`, "[0]", "a[k=\"v,w\"]", "a[", `"`, `a."\`, "a[99999999999999999999]",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(s)
		if err != nil {
			return
		}
		if len(p) == 0 {
			t.Fatalf("Parse(%q) gave an empty path without error", s)
		}
		q, err := Parse(p.String())
		if err != nil {
			t.Fatalf("Parse(%q).String() = %q does not parse: %v", s, p.String(), err)
		}
		if !reflect.DeepEqual(p, q) {
			t.Fatalf("round trip of %q via %q: %#v != %#v", s, p.String(), q, p)
		}
		d, err := Parse(p.Display())
		if err != nil {
			t.Fatalf("Parse(%q).Display() = %q does not parse: %v", s, p.Display(), err)
		}
		d2, err := Parse(d.Display())
		if err != nil || d2.Display() != d.Display() {
			t.Fatalf("display of %q not stable: %q then %q (%v)", s, d.Display(), d2.Display(), err)
		}
	})
}
