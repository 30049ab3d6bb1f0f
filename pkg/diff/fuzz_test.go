package diff

import (
	"encoding/json"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
)

// FuzzCompute: no input makes the engine panic, and a resource just
// applied (L = D, B = Project(S, owned), S = D) always plans as no-op.
func FuzzCompute(f *testing.F) {
	for _, s := range []string{
		`{"location":"westus","properties":{"a":1}}`,
		`{"properties":{"subnets":[{"name":"a","properties":{"p":"x"}},{"name":"b"}]}}`,
		`{"tags":{"a.b":"1","x[y]":"2"},"properties":{"list":["b","a"],"n":null,"e":{},"z":[]}}`,
		`{"properties":{"rules":[{"id":"/subscriptions/0/x","v":true},{"id":"/subscriptions/0/y","v":false}]}}`,
		`{"properties":{"mixed":[1,"1",{"name":"n"},[2]],"password":"p","secrets":{"k":"v"}}}`,
		`{"identity":{"type":"None"},"sku":{"name":""},"properties":{"count":0,"flag":false}}`,
	} {
		f.Add([]byte(s), []byte(`{"properties":{"a":2,"subnets":[{"name":"A"}]}}`))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var x, y map[string]any
		if json.Unmarshal(a, &x) != nil {
			return
		}
		_ = json.Unmarshal(b, &y)
		in := Input{Desired: x, Live: y, Schema: testSchema, Explain: true, SecretKey: []byte("k")}
		r := Compute(in)
		_ = Patch(in, r)
		_ = PutBody(in, r)
		_ = WriteMethod(in, r)
		_ = Compute(Input{Desired: x, LastApplied: y, Live: y, Baseline: y})

		owned := Compute(Input{Desired: x, Live: x}).Owned
		again := Input{Desired: x, LastApplied: x, Baseline: Project(x, owned), Live: x, SecretKey: []byte("k")}
		if r := Compute(again); r.Action != ActionNoOp {
			t.Fatalf("Compute(x, x, B(x), x) = %s %v for %s", r.Action, paths(r.Changes), a)
		}
		hashed := again
		hashed.LastApplied = HashSecrets(x, nil, []byte("k"))
		if r := Compute(hashed); r.Action != ActionNoOp {
			t.Fatalf("with hashed L: %s %v for %s", r.Action, paths(r.Changes), a)
		}
	})
}

// FuzzPattern: annotation paths come from users. Parsing never panics,
// validatePath agrees with the parser, and a valid path can be stripped
// from and resolved in any body.
func FuzzPattern(f *testing.F) {
	for _, s := range []string{`tags.costCenter`, `tags.*`, `properties.subnets`, `tags["a.b"]`, `tags."a.b"`, `a[0].b`, `a[*].b`, `a[name=x,type=y]`, `a[`, `"`, `a..b`} {
		f.Add(s)
	}
	body := map[string]any{"tags": map[string]any{"a.b": "1", "costCenter": "2"}, "a": []any{map[string]any{"name": "x", "b": 1}, 3}}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := parsePattern(s)
		if (validatePath(s) == nil) != (err == nil && len(p) > 0) {
			t.Fatalf("validatePath(%q) disagrees with the parser (%v)", s, err)
		}
		if err != nil {
			return
		}
		out := withoutPaths(body, []bodypath.Path{p})
		if len(body["tags"].(map[string]any)) != 2 {
			t.Fatal("withoutPaths modified its input")
		}
		_ = resolve(factsFor(nil, nil), out, p)
		_, _ = getPattern(body, p)
	})
}
