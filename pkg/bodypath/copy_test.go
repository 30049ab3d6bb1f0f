package bodypath

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestCopy(t *testing.T) {
	orig := decode(t, `{"a":{"b":[{"c":12345678901234567890},"s",null,true]},"e":{},"l":[]}`)
	c := Copy(orig).(map[string]any)
	if !reflect.DeepEqual(c, orig) {
		t.Fatalf("Copy = %v, want %v", c, orig)
	}
	c["a"].(map[string]any)["b"].([]any)[0].(map[string]any)["c"] = "changed"
	c["e"].(map[string]any)["x"] = 1
	if n := orig["a"].(map[string]any)["b"].([]any)[0].(map[string]any)["c"]; n != json.Number("12345678901234567890") {
		t.Errorf("Copy shares objects with the original: %v", n)
	}
	if len(orig["e"].(map[string]any)) != 0 {
		t.Error("Copy shares an empty object with the original")
	}
	if CopyMap(nil) != nil {
		t.Error("CopyMap(nil) is not nil")
	}
	if m, ok := Copy(map[string]any(nil)).(map[string]any); !ok || m != nil {
		t.Errorf("Copy of a nil map = %#v", m)
	}
	if a, ok := Copy([]any(nil)).([]any); !ok || a != nil {
		t.Errorf("Copy of a nil array = %#v", a)
	}
	if Copy(nil) != nil || Copy("s") != "s" {
		t.Error("Copy of a scalar changed it")
	}
}

func TestMap(t *testing.T) {
	orig := decode(t, `{"a":"x","b":[{"a":"x"},"x",{"env":"E"}],"c":1}`)
	got := Map(orig, func(v any) (any, bool) {
		switch t := v.(type) {
		case string:
			return t + "!", true
		case map[string]any:
			if _, ok := t["env"]; ok {
				return "secret", true // replaced whole, not descended into
			}
		}
		return nil, false
	})
	want := decode(t, `{"a":"x!","b":[{"a":"x!"},"x!","secret"],"c":1}`)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Map = %v, want %v", got, want)
	}
	if orig["a"] != "x" {
		t.Error("Map changed its input")
	}
}

func TestMapStrings(t *testing.T) {
	orig := decode(t, `{"a.b":"x","l":["y",{"z":"w","n":2}],"t":true}`)
	got := MapStrings(orig, func(s string) string { return "<" + s + ">" })
	want := decode(t, `{"a.b":"<x>","l":["<y>",{"z":"<w>","n":2}],"t":true}`)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("MapStrings = %v, want %v", got, want)
	}
	if orig["a.b"] != "x" {
		t.Error("MapStrings changed its input")
	}
}
