package emulator

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestMergePatch pins the PATCH merge: RFC 7386 (objects merge, null
// deletes, arrays and scalars replace), numbers exact, and an array taken
// whole with the nulls inside its items.
func TestMergePatch(t *testing.T) {
	for _, c := range []struct{ name, target, patch, want string }{
		{"member replaced, sibling kept", `{"a":1,"b":{"c":2,"d":3}}`, `{"b":{"c":5}}`, `{"a":1,"b":{"c":5,"d":3}}`},
		{"null deletes", `{"a":1,"b":{"c":2,"d":3}}`, `{"b":{"c":null}}`, `{"a":1,"b":{"d":3}}`},
		{"null inside a new object is dropped", `{}`, `{"b":{"c":null,"d":1}}`, `{"b":{"d":1}}`},
		{"array replaced whole", `{"a":[1,2,3]}`, `{"a":[4]}`, `{"a":[4]}`},
		{"nulls inside array items stay", `{}`, `{"p":{"rules":[{"n":"x","d":null}]}}`, `{"p":{"rules":[{"d":null,"n":"x"}]}}`},
		{"big numbers stay exact", `{"n":12345678901234567890}`, `{"m":0.10000000000000000001}`, `{"m":0.10000000000000000001,"n":12345678901234567890}`},
		{"keys with dots are data", `{"tags":{"a.b":"1"}}`, `{"tags":{"c.d":"2"}}`, `{"tags":{"a.b":"1","c.d":"2"}}`},
		{"object replaces scalar", `{"a":"s"}`, `{"a":{"b":1}}`, `{"a":{"b":1}}`},
	} {
		var target, patch map[string]any
		for s, v := range map[string]*map[string]any{c.target: &target, c.patch: &patch} {
			if err := decodeNumbers(s, v); err != nil {
				t.Fatal(err)
			}
		}
		got, err := mergePatch(target, patch)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		b, _ := json.Marshal(got)
		if string(b) != c.want {
			t.Errorf("%s: got %s, want %s", c.name, b, c.want)
		}
	}
}

func decodeNumbers(s string, v *map[string]any) error {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	return dec.Decode(v)
}
