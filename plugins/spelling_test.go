package plugins

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/internal/shareddata"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// bodyRecord is the part of a corpus record the spelling check reads.
type bodyRecord struct {
	Source         string         `json:"source"`
	ResourceType   string         `json:"resourceType"`
	PutBody        map[string]any `json:"putBody"`
	GetBody        map[string]any `json:"getBody"`
	GetExampleBody map[string]any `json:"getExampleBody"`
}

// corpusBodies reads every round-trip and spec-example record of the
// given (lower-cased) types.
func corpusBodies(t *testing.T, types map[string]bool) []bodyRecord {
	t.Helper()
	var out []bodyRecord
	for _, f := range [][]string{
		{"azure-cli-extensions", "roundtrips.jsonl.gz"},
		{"azure-powershell", "roundtrips.jsonl.gz"},
		{"rest-api-specs-examples", "put_examples.jsonl.gz"},
	} {
		fh, err := os.Open(shareddata.Path(t, "corpus", f[0], f[1]))
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(fh)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(zr)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var r bodyRecord
			d := json.NewDecoder(bytes.NewReader(sc.Bytes()))
			d.UseNumber()
			if err := d.Decode(&r); err != nil {
				t.Fatalf("%s: %v", f[0], err)
			}
			if types[strings.ToLower(r.ResourceType)] {
				out = append(out, r)
			}
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			t.Fatalf("%s: %v", f[0], err)
		}
	}
	return out
}

// valuesAt counts the values a schema path reaches in a body ("[]" every
// item, "*" every map value); fold matches member names without case, as
// a differently spelt member would.
func valuesAt(v any, segs []string, fold bool) int {
	if len(segs) == 0 {
		return 1
	}
	n := 0
	switch seg := segs[0]; seg {
	case "[]":
		a, _ := v.([]any)
		for _, x := range a {
			n += valuesAt(x, segs[1:], fold)
		}
	default:
		m, _ := v.(map[string]any)
		for k, x := range m {
			if seg == "*" || k == seg || fold && strings.EqualFold(k, seg) {
				n += valuesAt(x, segs[1:], fold)
			}
		}
	}
	return n
}

// The diff engine matches rule paths against member names as bodies spell
// them, so a path the spec spells one way and ARM another does nothing on
// real bodies. No corpus body of a plugin's type may carry a rule path
// only in another case.
func TestRulePathsMatchCorpusSpelling(t *testing.T) {
	types := map[string]bool{}
	for _, typ := range Types() {
		types[typ] = true
	}
	recs := corpusBodies(t, types)
	if len(recs) == 0 {
		t.Fatal("no corpus record of any plugin type")
	}
	checked := 0
	for _, typ := range Types() {
		refs := rulePaths(For(typ).Rules())
		for _, p := range registry().hookPaths[typ] {
			refs = append(refs, ruleRef{rule: "hook", path: string(p)})
		}
		for _, ref := range refs {
			segs := schema.SplitPath(ref.path)
			var bad []string
			for _, r := range recs {
				if strings.ToLower(r.ResourceType) != typ {
					continue
				}
				for _, b := range []map[string]any{r.PutBody, r.GetBody, r.GetExampleBody} {
					checked++
					if exact, folded := valuesAt(b, segs, false), valuesAt(b, segs, true); folded > exact {
						bad = append(bad, r.Source)
						break
					}
				}
			}
			if len(bad) > 0 {
				t.Errorf("%s: %s %s is spelt in another case in %d corpus records (e.g. %s); use the spelling ARM sends", typ, ref.rule, ref.path, len(bad), bad[0])
			}
		}
	}
	t.Logf("%d corpus records of plugin types, %d (path, body) pairs checked", len(recs), checked)
}

func TestValuesAt(t *testing.T) {
	body := map[string]any{"properties": map[string]any{
		"subnets":  []any{map[string]any{"name": "a"}, map[string]any{"Name": "b"}, map[string]any{"id": "c"}},
		"settings": map[string]any{"x": "1", "y": "2"},
	}}
	for _, c := range []struct {
		path        string
		exact, fold int
	}{
		{"properties.subnets[].name", 1, 2},
		{"properties.subnets", 1, 1},
		{"properties.settings.*", 2, 2},
		{"properties.Settings.*", 0, 2},
		{"properties.subnets.name", 0, 0},
		{"sku.name", 0, 0},
	} {
		segs := schema.SplitPath(c.path)
		if got := valuesAt(body, segs, false); got != c.exact {
			t.Errorf("%s exact: %d, want %d", c.path, got, c.exact)
		}
		if got := valuesAt(body, segs, true); got != c.fold {
			t.Errorf("%s fold: %d, want %d", c.path, got, c.fold)
		}
	}
}
