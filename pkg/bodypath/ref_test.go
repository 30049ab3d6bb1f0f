package bodypath

import (
	"reflect"
	"testing"
)

func TestParseRefLookup(t *testing.T) {
	body := map[string]any{
		"properties": map[string]any{"keys": []any{map[string]any{"value": "k0"}, map[string]any{"value": "k1"}}},
		"tags":       map[string]any{"a.b": "dotted", "0": "zero", "007": "bond", "env": "prod"},
	}
	for _, c := range []struct {
		path string
		want any
		ok   bool
	}{
		{"properties.keys[1].value", "k1", true},
		{"tags[env]", "prod", true},
		{"tags.env", "prod", true},
		{`tags["a.b"]`, "dotted", true},
		{"tags[a.b]", "dotted", true},
		{"tags[0]", "zero", true},   // a position on an object names a member
		{"tags[007]", "bond", true}, // by its text as written
		{"properties.keys[2].value", nil, false},
		{"properties.keys[-1]", nil, false},
		{"properties.keys.value", nil, false},
		{"tags.env.deeper", nil, false},
	} {
		p, err := ParseRef(c.path)
		if err != nil {
			t.Errorf("%s: %v", c.path, err)
			continue
		}
		got, ok := p.LookupRef(body)
		if ok != c.ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, %v; want %v, %v", c.path, got, ok, c.want, c.ok)
		}
	}
	for path, msg := range map[string]string{
		"":      "empty path",
		"a..b":  `empty segment in path "a..b"`,
		"a.":    `empty segment in path "a."`,
		"a[0":   `unclosed [ in path "a[0"`,
		"a[]":   `empty [] in path "a[]"`,
		`a[""]`: `empty [] in path "a[\"\"]"`,
	} {
		if _, err := ParseRef(path); err == nil || err.Error() != msg {
			t.Errorf("ParseRef(%q) = %v, want %q", path, err, msg)
		}
	}
}

// A reference reads a member whatever its case, as a template's
// reference() does, unless two members match it only in case.
func TestLookupRefIgnoresCase(t *testing.T) {
	body := map[string]any{
		"properties": map[string]any{
			"dnsSettings":      map[string]any{"fqdn": "pip.westeurope.cloudapp.azure.com"},
			"primaryEndpoints": map[string]any{"blob": "https://st.blob.core.windows.net/"},
			"Both":             1, "both": 2,
		},
	}
	for _, c := range []struct {
		path string
		want any
		ok   bool
	}{
		{"properties.dnsSettings.FQDN", "pip.westeurope.cloudapp.azure.com", true},
		{"properties.PrimaryEndpoints.Blob", "https://st.blob.core.windows.net/", true},
		{"properties.both", 2, true},
		{"properties.BOTH", nil, false},
		{"properties.missing", nil, false},
	} {
		p, err := ParseRef(c.path)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := p.LookupRef(body)
		if ok != c.ok || got != c.want {
			t.Errorf("%s: %v %v, want %v %v", c.path, got, ok, c.want, c.ok)
		}
	}
}
