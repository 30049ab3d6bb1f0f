package diff

import (
	"reflect"
	"testing"
)

// TestPatchSendsWholeTagSet: ARM replaces the tag set on PATCH, so removing
// one tag must send every remaining tag, including ones the user does not
// own (here "policy", added by the service).
func TestPatchSendsWholeTagSet(t *testing.T) {
	cases := []struct {
		name        string
		patch, live map[string]any
		want        map[string]any
	}{
		{"remove one", map[string]any{"tags": map[string]any{"app": nil}},
			map[string]any{"tags": map[string]any{"app": "a", "env": "dev", "policy": "p"}},
			map[string]any{"env": "dev", "policy": "p"}},
		{"change one", map[string]any{"tags": map[string]any{"env": "prod"}},
			map[string]any{"tags": map[string]any{"env": "dev", "owner": "x"}},
			map[string]any{"env": "prod", "owner": "x"}},
		{"first tag", map[string]any{"tags": map[string]any{"env": "dev"}},
			map[string]any{}, map[string]any{"env": "dev"}},
		{"remove all", map[string]any{"tags": nil},
			map[string]any{"tags": map[string]any{"env": "dev"}}, map[string]any{}},
	}
	for _, c := range cases {
		wholeTags(c.patch, c.live)
		if got := c.patch["tags"]; !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: tags = %v, want %v", c.name, got, c.want)
		}
	}
	p := map[string]any{"properties": map[string]any{"x": 1}}
	wholeTags(p, map[string]any{"tags": map[string]any{"a": "b"}})
	if _, ok := p["tags"]; ok {
		t.Error("a patch without tags must not gain them")
	}
}
