package manifest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// splitDocumentsCopying is the straightforward splitter (every document
// copied into a buffer of its own); splitDocuments must agree with it.
func splitDocumentsCopying(data []byte) []rawDocument {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var out []rawDocument
	var cur bytes.Buffer
	start := 1
	for i, l := range bytes.SplitAfter(data, []byte("\n")) {
		trimmed := bytes.TrimRight(l, "\r\n")
		if bytes.Equal(trimmed, []byte("---")) || bytes.HasPrefix(trimmed, []byte("--- ")) || bytes.HasPrefix(trimmed, []byte("---\t")) {
			out = append(out, rawDocument{text: append([]byte(nil), cur.Bytes()...), line: start})
			cur.Reset()
			start = i + 1
			if rest := bytes.TrimSpace(trimmed[3:]); len(rest) > 0 {
				cur.Write(rest)
				cur.WriteByte('\n')
			} else {
				start = i + 2
			}
			continue
		}
		cur.Write(l)
	}
	return append(out, rawDocument{text: cur.Bytes(), line: start})
}

func FuzzSplitDocuments(f *testing.F) {
	for _, s := range []string{
		"",
		"a: 1\n",
		"a: 1",
		"---\na: 1\n---\nb: 2\n",
		"\xef\xbb\xbf---\r\na: 1\r\n--- {b: 2}\r\nc: 3\r\n",
		"--- {a: 1}   \n---\t# comment\nb: 2\n----\n--- \n",
		"a: |\n  ---\n  text\n---",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, want := splitDocuments(data), splitDocumentsCopying(data)
		if len(got) != len(want) {
			t.Fatalf("%d documents, want %d", len(got), len(want))
		}
		for i := range want {
			if !bytes.Equal(got[i].text, want[i].text) || got[i].line != want[i].line {
				t.Errorf("document %d = (line %d) %q, want (line %d) %q", i, got[i].line, got[i].text, want[i].line, want[i].text)
			}
		}
	})
}

// TestSplitDocumentsSharesInput: documents are views of the input, except
// one that starts on its separator line.
func TestSplitDocumentsSharesInput(t *testing.T) {
	data := []byte("a: 1\n---\nb: 2\n--- {c: 3}\nd: 4\n")
	docs := splitDocuments(data)
	if len(docs) != 3 {
		t.Fatalf("%d documents, want 3", len(docs))
	}
	if got := string(docs[2].text); got != "{c: 3}\nd: 4\n" {
		t.Errorf("inline document = %q", got)
	}
	// Writing over the input shows which documents are views of it.
	before := make([]string, len(docs))
	for i, d := range docs {
		before[i] = string(d.text)
	}
	for i := range data {
		data[i] = '#'
	}
	for i, want := range []bool{true, true, false} {
		if got := string(docs[i].text) != before[i]; got != want {
			t.Errorf("document %d (%q) shares the input: %v, want %v", i, before[i], got, want)
		}
	}
}

// TestLinesFoundOnDemand: line tables are built only when a message needs
// one, from the document's text; every phase must still name the right
// line, in every document of a stream, including one that starts on its
// separator line and one after a malformed document.
func TestLinesFoundOnDemand(t *testing.T) {
	stream := rgDoc + // lines 1-7
		"---\n" + // 8
		"apiVersion: azure.kubectl.io/v1alpha1\n" + // 9
		"kind: Resource\n" + // 10
		"metadata: {name: rg-two}\n" + // 11
		"spec:\n" + // 12
		"  type: Microsoft.Resources/resourceGroups@2021-04-01\n" + // 13
		"  body:\n" + // 14
		"    location: westeurope\n" + // 15
		"    colour: red\n" + // 16
		"--- {apiVersion: azure.kubectl.io/v1alpha1, kind: Resource, metadata: {name: rg-three},\n" + // 17
		"  spec: {type: Microsoft.Resources/resourceGroups@2021-04-01,\n" + // 18
		"    body: {colour: blue}}}\n" + // 19
		"---\n" + // 20
		"a: [unclosed\n" + // 21
		"---\n" + // 22
		"apiVersion: azure.kubectl.io/v1alpha1\n" + // 23
		"kind: Resource\n" + // 24
		"metadata: {name: rg-five}\n" + // 25
		"spec:\n" + // 26
		"  type: Microsoft.Resources/resourceGroups@2021-04-01\n" + // 27
		"  body:\n" + // 28
		"    tags:\n" + // 29
		"      - x\n" + // 30
		"      - colour: green\n" // 31
	schema := func(_, _, _ string, body map[string]any) ([]SchemaIssue, string) {
		var out []SchemaIssue
		if _, ok := body["colour"]; ok {
			out = append(out, SchemaIssue{Path: "colour", Severity: SchemaWarning, Message: "unknown property"})
		}
		if _, ok := body["tags"]; ok {
			out = append(out, SchemaIssue{Path: "tags[1].colour", Severity: SchemaWarning, Message: "unknown property"})
		}
		return out, ""
	}
	o := stdin(stream)
	o.Schema, o.Strict = schema, true // the warnings become problems: all of them, with lines
	ve := loadErr(t, o)
	want := []string{
		"<stdin>#1 (line 16): spec.body.colour: unknown property (--strict)",
		"<stdin>#2 (line 19): spec.body.colour: unknown property (--strict)",
		"<stdin>#3 (line 22): malformed YAML: line 22: did not find expected ',' or ']'",
		"<stdin>#4 (line 31): spec.body.tags[1].colour: unknown property (--strict)",
	}
	if got := ve.Error(); got != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	// The same findings as warnings carry the same lines.
	o = stdin(stream[:strings.Index(stream, "---\na: [unclosed")])
	o.Schema = schema
	s := load(t, o)
	var lines []int
	for _, f := range s.Findings {
		lines = append(lines, f.Line)
	}
	if !reflect.DeepEqual(lines, []int{16, 19}) {
		t.Errorf("finding lines = %v, want [16 19] (%v)", lines, s.Findings)
	}
}

// TestResolvedBodies: bodies are resolved in place, copied only where a
// placeholder changes them; literal siblings before and after a change,
// lists and expanded keys must all come out as written.
func TestResolvedBodies(t *testing.T) {
	rg := doc("rg-demo", rgType, "", "{location: westeurope}")
	cases := []struct {
		name, body, want string
	}{
		{"literal", `{location: westeurope, tags: {a: "1", b: 1, c: 1.50, d: [x, {e: null}]}}`,
			`{"location":"westeurope","tags":{"a":"1","b":1,"c":1.50,"d":["x",{"e":null}]}}`},
		{"deep value", `{a: 1, m: {b: [x, {c: "${subscriptionId}"}, y], z: 2}, n: last}`,
			`{"a":1,"m":{"b":["x",{"c":"` + testSub + `"},"y"],"z":2},"n":"last"}`},
		{"first item", `{l: ["${ref:rg-demo}", b, c]}`,
			`{"l":["` + rgID + `","b","c"]}`},
		{"expanded key", `{tags: {a: 1, "k-${subscriptionId}": 2, z: 3}}`,
			`{"tags":{"a":1,"k-` + testSub + `":2,"z":3}}`},
		// A key that expands to a literal sibling: the later key in sorted
		// order wins, as it always has.
		{"key collision", `{tags: {"${subscriptionId}": from-placeholder, "` + testSub + `": literal}}`,
			`{"tags":{"` + testSub + `":"literal"}}`},
		{"escaped", `{a: "$${literal}", b: [1, "$${x}"]}`,
			`{"a":"${literal}","b":[1,"${x}"]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := load(t, docs(rg, doc("thing", "Microsoft.Test/things@2020-01-01", "resourceGroup: rg-demo", c.body)))
			got, err := json.Marshal(byName(t, s, "thing").Body)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("body = %s\nwant   %s", got, c.want)
			}
		})
	}
}

// TestSharedMetadataMaps: resources with equal labels (or annotations)
// share one map; different ones do not, and every value is intact.
func TestSharedMetadataMaps(t *testing.T) {
	meta := func(name, labels, ann string) string {
		return "apiVersion: azure.kubectl.io/v1alpha1\nkind: Resource\nmetadata:\n  name: " + name +
			"\n  labels: " + labels + "\n  annotations: " + ann +
			"\nspec: {type: Microsoft.Resources/resourceGroups@2021-04-01, body: {location: westeurope}}\n"
	}
	const protect = `{azure.kubectl.io/prevent-destroy: "true"}`
	s := load(t, docs(
		meta("rg-a", "{app: demo, tier: web}", protect),
		meta("rg-b", "{tier: web, app: demo}", protect),
		meta("rg-c", "{app: demo, tier: db}", `{azure.kubectl.io/prevent-destroy: "false"}`),
		// Length-prefixed entries: "ab"="c" is not "a"="bc".
		meta("rg-d", `{ab: c}`, `{}`),
		meta("rg-e", `{a: bc}`, `{}`),
	))
	a, b, c := byName(t, s, "rg-a"), byName(t, s, "rg-b"), byName(t, s, "rg-c")
	d, e := byName(t, s, "rg-d"), byName(t, s, "rg-e")
	same := func(x, y map[string]string) bool {
		return reflect.ValueOf(x).UnsafePointer() == reflect.ValueOf(y).UnsafePointer()
	}
	if !same(a.Labels, b.Labels) || !same(a.Annotations, b.Annotations) {
		t.Error("equal labels and annotations are not shared")
	}
	if same(a.Labels, c.Labels) || same(a.Annotations, c.Annotations) || same(d.Labels, e.Labels) {
		t.Error("different maps are shared")
	}
	if !reflect.DeepEqual(c.Labels, map[string]string{"app": "demo", "tier": "db"}) ||
		!reflect.DeepEqual(b.Labels, map[string]string{"app": "demo", "tier": "web"}) ||
		c.Annotations[AnnotationPreventDestroy] != "false" ||
		!reflect.DeepEqual(d.Labels, map[string]string{"ab": "c"}) || !reflect.DeepEqual(e.Labels, map[string]string{"a": "bc"}) {
		t.Errorf("values changed: %v %v %v %v %v", b.Labels, c.Labels, c.Annotations, d.Labels, e.Labels)
	}
}

// TestSharedValuesKeepTypes: the same text as a string and as a number in
// many documents keeps each value's JSON type.
func TestSharedValuesKeepTypes(t *testing.T) {
	rg := doc("rg-demo", rgType, "", "{location: westeurope}")
	body := `{s: "1", n: 1, f: 1.0, q: '1.0', b: true, t: "true"}`
	s := load(t, docs(rg,
		doc("t1", "Microsoft.Test/things@2020-01-01", "resourceGroup: rg-demo", body),
		doc("t2", "Microsoft.Test/things@2020-01-01", "resourceGroup: rg-demo", body)))
	want := map[string]any{"s": "1", "n": json.Number("1"), "f": json.Number("1.0"), "q": "1.0", "b": true, "t": "true"}
	for _, name := range []string{"t1", "t2"} {
		if got := byName(t, s, name).Body; !reflect.DeepEqual(got, want) {
			t.Errorf("%s body = %#v, want %#v", name, got, want)
		}
	}
}

// TestInternerBounded: a set of unique values fills the tables only up to
// their bound, and every value still comes back right, shared or not.
func TestInternerBounded(t *testing.T) {
	in := newInterner()
	for i := range maxInterned + 10 {
		s := strconv.Itoa(i)
		if got := in.str(s); got != s {
			t.Fatalf("str(%q) = %#v", s, got)
		}
		if got := in.number(s); got != json.Number(s) {
			t.Fatalf("number(%q) = %#v", s, got)
		}
		if got := in.key("k" + s); got != "k"+s {
			t.Fatalf("key(%q) = %q", "k"+s, got)
		}
	}
	if len(in.strs) != maxInterned || len(in.numbers) != maxInterned || len(in.keys) != maxInterned {
		t.Errorf("tables hold %d, %d, %d entries, want %d each", len(in.strs), len(in.numbers), len(in.keys), maxInterned)
	}
	long := strings.Repeat("x", maxInternLen+1)
	in = newInterner()
	in.str(long)
	if _, kept := in.strs[long]; kept || len(in.strs) != 0 {
		t.Error("a string longer than maxInternLen was kept")
	}
	var none *interner
	if none.str("a") != "a" || none.number("1") != json.Number("1") || none.key("k") != "k" {
		t.Error("a nil interner must pass values through")
	}
}

// TestKustomizeOriginLines: with origin annotations, a problem in
// kustomize output names the source file, document and line; the line
// table comes from the source file's text.
func TestKustomizeOriginLines(t *testing.T) {
	dir := t.TempDir()
	bad := strings.Replace(strings.Replace(rgDoc, "@2021-04-01", "@2021", 1), "rg-demo", "rg-two", 1)
	if err := os.WriteFile(filepath.Join(dir, "rg.yaml"), []byte("# groups\n"+rgDoc+"---\n"+bad), 0o644); err != nil {
		t.Fatal(err)
	}
	kust := "resources: [rg.yaml]\nbuildMetadata: [originAnnotations]\n"
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(kust), 0o644); err != nil {
		t.Fatal(err)
	}
	ve := loadErr(t, LoadOptions{Kustomize: dir})
	want := filepath.Join(dir, "rg.yaml") + `#1 (line 15): spec.type: api-version "2021" is malformed; use YYYY-MM-DD or YYYY-MM-DD-preview; did you mean 2021-04-01?`
	if ve.Error() != want {
		t.Errorf("got  %s\nwant %s", ve, want)
	}
}

// TestIDIndex: lookups compare IDs as ARM does, and entries whose hashes
// collide are all found.
func TestIDIndex(t *testing.T) {
	ent := func(id string) *entry { return &entry{res: &Resource{ID: id}} }
	a := ent("/subscriptions/s/resourceGroups/RG-A")
	b := ent("/subscriptions/s/resourceGroups/rg-b")
	c := ent("/subscriptions/s/resourceGroups/rg-c")
	for name, x := range map[string]*idIndex{
		"hashed":      newIDIndex(),
		"all collide": {sum: func(string) uint64 { return 7 }, one: map[uint64]*entry{}},
	} {
		for _, e := range []*entry{a, b, c} {
			x.add(e)
		}
		for id, want := range map[string]*entry{
			"/subscriptions/s/resourcegroups/rg-a":  a,
			"/SUBSCRIPTIONS/S/RESOURCEGROUPS/RG-B/": b,
			"/subscriptions/s/resourceGroups/rg-c":  c,
			"/subscriptions/s/resourceGroups/rg-d":  nil,
		} {
			if got := x.get(id); got != want {
				t.Errorf("%s: get(%s) = %v, want %v", name, id, got, want)
			}
		}
	}
	var none *idIndex
	if none.get("/subscriptions/s") != nil {
		t.Error("a nil index found something")
	}
}
