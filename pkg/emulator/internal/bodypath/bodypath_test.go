package bodypath

import (
	"encoding/json"
	"sort"
	"testing"
)

func TestWalkGetParents(t *testing.T) {
	var body map[string]any
	_ = json.Unmarshal([]byte(`{"a":{"b":[{"c":1},{"c":2,"d":{"e":true}}],"s":["x","y"]},"tags":{"k.v":"1"}}`), &body)
	var general []string
	Walk(body, func(n Node) { general = append(general, n.Concrete+"="+n.General) })
	sort.Strings(general)
	want := []string{"a.b=a.b", "a.b[0].c=a.b[].c", "a.b[1].c=a.b[].c", "a.b[1].d.e=a.b[].d.e", "a.b[1].d=a.b[].d", "a.s=a.s", "a=a", "tags=tags"}
	sort.Strings(want)
	if len(general) != len(want) {
		t.Fatalf("walk = %v, want %v", general, want)
	}
	for i := range want {
		if general[i] != want[i] {
			t.Fatalf("walk = %v, want %v", general, want)
		}
	}
	if v, ok := Get(body, "a.b[1].d.e"); !ok || v != true {
		t.Errorf("Get = %v %v", v, ok)
	}
	if _, ok := Get(body, "a.b[2].c"); ok {
		t.Error("Get out of range succeeded")
	}
	n := 0
	Parents(body, "a.b[].z", func(obj map[string]any, key string) { obj[key] = "set"; n++ })
	if n != 2 {
		t.Errorf("Parents fanned out to %d items, want 2", n)
	}
	Parents(body, "missing.x", func(map[string]any, string) { t.Error("called for a missing parent") })
	if Parent("a.b[1].c") != "a.b[1]" || Parent("a") != "" {
		t.Error("Parent")
	}
}
