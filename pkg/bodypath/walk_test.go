package bodypath

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"
)

func decode(t testing.TB, s string) map[string]any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestWalk(t *testing.T) {
	body := decode(t, `{"a":{"b":[{"c":1},{"c":2,"d":{"e":true}}],"s":["x","y"]},"tags":{"k.v":"1"},"sp ace":{"x":1}}`)
	var got []string
	Walk(body, func(n Node) { got = append(got, n.Concrete+"="+n.General) })
	sort.Strings(got)
	want := []string{`"sp ace"="sp ace"`, `"sp ace".x="sp ace".x`, "a.b=a.b", "a.b[0].c=a.b[].c", "a.b[1].c=a.b[].c", "a.b[1].d.e=a.b[].d.e", "a.b[1].d=a.b[].d", "a.s=a.s", "a=a", "tags=tags"}
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Walk = %q\nwant %q", got, want)
	}
	flat := Flatten(body)
	if flat["a.b[1].c"] != json.Number("2") || len(flat) != len(want) {
		t.Errorf("Flatten = %v", flat)
	}
}

func TestGet(t *testing.T) {
	body := decode(t, `{"a":{"b":[{"c":1},{"c":2,"d":{"e":true}}]},"sp ace":{"x":"y"},"A":{"q":1}}`)
	for _, tc := range []struct {
		path string
		want any
		ok   bool
	}{
		{"a.b[1].d.e", true, true},
		{"a.b[0].c", json.Number("1"), true},
		{`"sp ace".x`, "y", true},
		{"a.b[2].c", nil, false},
		{"a.b[-1]", nil, false},
		{"a.B", nil, false}, // exact members only
		{"a.b[].c", nil, false},
		{"a.b[name=x]", nil, false},
		{"a.b.c", nil, false},
		{"a[0]", nil, false},
		{"a[", nil, false},
	} {
		got, ok := Get(body, tc.path)
		if ok != tc.ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Get(%q) = %v %v, want %v %v", tc.path, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParent(t *testing.T) {
	for in, want := range map[string]string{
		"a.b[1].c":   "a.b[1]",
		"a":          "",
		`tags."a.b"`: "tags",
		"a.b":        "a",
		"a[":         "",
	} {
		if got := Parent(in); got != want {
			t.Errorf("Parent(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParents(t *testing.T) {
	body := decode(t, `{"a":{"b":[{"c":1},{"c":2},"s",[{"c":3}]]},"n":[[{"z":1}],[{"z":2}]]}`)
	for _, tc := range []struct {
		path string
		want int
	}{
		{"a.b[].z", 2},
		{"a.b[*].z", 2},
		{"a.b[1].z", 1},
		{"a.b[9].z", 0},
		{"n[][].z", 2},
		{"missing.x", 0},
		{"a.b", 1},
		{"a.b[]", 0}, // does not end on a member
		{"a.b[x].c", 0},
		{"a.b.c.d", 0},
		{"a[", 0},
	} {
		n := 0
		Parents(body, tc.path, func(obj map[string]any, key string) {
			if key != tc.path[strings.LastIndexByte(tc.path, '.')+1:] {
				t.Errorf("Parents(%q) key %q", tc.path, key)
			}
			n++
		})
		if n != tc.want {
			t.Errorf("Parents(%q) called %d times, want %d", tc.path, n, tc.want)
		}
	}
	Parents(body, "a.b[].z", func(obj map[string]any, key string) { obj[key] = "set" })
	if v, _ := Get(body, "a.b[1].z"); v != "set" {
		t.Errorf("Parents did not reach the item: %v", body)
	}
}

func TestLeaves(t *testing.T) {
	body := map[string]any{
		"a":    map[string]any{"b": []any{"x", map[string]any{"c": nil}, []any{1.0}}},
		"t.k":  "dotted key",
		"none": map[string]any{},
		"list": []any{},
	}
	got := map[string]any{}
	Leaves(body, func(p Path, v any) { got[p.String()] = v })
	want := map[string]any{"a.b[0]": "x", "a.b[1].c": nil, "a.b[2][0]": 1.0, `"t.k"`: "dotted key"}
	if len(got) != len(want) {
		t.Fatalf("Leaves visited %v, want %v", got, want)
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s: %v (%v), want %v", k, g, ok, v)
		}
	}
	n := 0
	Leaves("scalar", func(p Path, v any) {
		if len(p) != 0 || v != "scalar" {
			t.Errorf("a scalar body: %v %v", p, v)
		}
		n++
	})
	if n != 1 {
		t.Errorf("a scalar body is one leaf, got %d", n)
	}
}
