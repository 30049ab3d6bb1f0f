package manifest

import (
	"fmt"
	"strings"
	"testing"
)

func TestConfusable(t *testing.T) {
	for s, want := range map[string]string{
		"stdemo001":   "",
		"stdеmo001":   "U+0435", // Cyrillic е
		"rg-dеmo":     "Cyrillic",
		"ѕt":          "U+0455",
		"ｓtdemo":      "U+FF53",   // fullwidth s
		"café-eu":     "",         // Latin only
		"データ":         "",         // one script, nothing Latin-looking
		"dataデータ":     "Katakana", // mixed scripts
		"rg-ελλάδα-x": "Greek",
	} {
		got := confusable(s)
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("confusable(%q) = %q, want it to mention %q", s, got, want)
		}
	}
}

// A look-alike resource name, group or reference is a warning at its file,
// document and line; the load still succeeds, and free text in a body is
// not judged.
func TestConfusableNamesWarn(t *testing.T) {
	s := load(t, docs(
		doc("rg-dеmo", rgType, "", "{location: westeurope}"),
		doc("id-app", idType, "resourceGroup: rg-dеmo", "{location: westeurope, tags: {about: 'Сервер приложений', peer: '${ref:rg-dеmo}'}}"),
	))
	want := map[string]bool{"#0 metadata.name": false, "#1 spec.resourceGroup": false, "#1 spec.body.tags.peer": false}
	for _, f := range s.Findings {
		key := fmt.Sprintf("#%d %s", f.Index, f.Path)
		if _, ok := want[key]; !ok {
			t.Errorf("unexpected finding %+v", f)
			continue
		}
		if f.Severity != SeverityWarning || f.Line == 0 || !strings.Contains(f.Message, "U+0435") {
			t.Errorf("finding %+v: want a warning with its line naming U+0435", f)
		}
		want[key] = true
	}
	for k, seen := range want {
		if !seen {
			t.Errorf("no warning at %s; findings: %+v", k, s.Findings)
		}
	}
}
