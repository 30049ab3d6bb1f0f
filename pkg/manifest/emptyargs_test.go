package manifest

import (
	"strings"
	"testing"
)

// ${uniqueString:} and ${guid:} hash nothing: refused, with file, document,
// line and field, wherever they are written.
func TestHashPlaceholdersNeedAnArgument(t *testing.T) {
	for _, c := range []struct{ text, path string }{
		{"${uniqueString:}", "spec.name"},
		{"${guid: }", "spec.name"},
		{"${uniqueString:}", "spec.body.tags.u"},
		{"x-${guid:}", "spec.body.tags.u"},
	} {
		spec, body := "resourceGroup: rg-demo\n  name: 'st"+strings.TrimPrefix(c.text, "x-")+"a'", "{location: westeurope}"
		if c.path != "spec.name" {
			spec, body = "resourceGroup: rg-demo", "{location: westeurope, tags: {u: '"+c.text+"'}}"
		}
		ve := loadErr(t, docs(doc(rgDocT, rgType, "", "{location: westeurope}"), doc("st", stType, spec, body)))
		if len(ve.Problems) != 1 {
			t.Fatalf("%s at %s: %d problems, want 1:\n%v", c.text, c.path, len(ve.Problems), ve)
		}
		p := ve.Problems[0]
		if p.Index != 1 || p.Line == 0 || p.Path != c.path || !strings.Contains(p.Message, "has no argument") {
			t.Errorf("%s at %s: got %+v", c.text, c.path, p)
		}
	}
}
