package bodypath

import (
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Path
		owned   string // String(); "" means the input itself
		display string // Display(); "" means the owned form
	}{
		{in: "properties.sku", want: Path{Field("properties"), Field("sku")}},
		{in: "properties.subnets[default].properties.addressPrefix",
			want: Path{Field("properties"), Field("subnets"), ByKeys(nil, []string{"default"}), Field("properties"), Field("addressPrefix")}},
		{in: "a[name=default,kind=x].b",
			want:    Path{Field("a"), ByKeys([]string{"name", "kind"}, []string{"default", "x"}), Field("b")},
			display: "a[default,x].b"},
		{in: `tags."a.b"`, want: Path{Field("tags"), Field("a.b")}},
		{in: `tags["a.b"]`, want: Path{Field("tags"), ByKeys(nil, []string{"a.b"})}},
		{in: "rules[0]", want: Path{Field("rules"), At(0)}},
		{in: "rules[007]", want: Path{Field("rules"), At(7)}, owned: "rules[7]"},
		{in: "a[]", want: Path{Field("a"), {Kind: Item}}},
		{in: "a[*].b", want: Path{Field("a"), {Kind: AnyItem}, Field("b")}},
		{in: "tags.*", want: Path{Field("tags"), Field("*")}},
		{in: `a["0"]`, want: Path{Field("a"), ByKeys(nil, []string{"0"})}, display: "a[0]"},
		{in: `a["*"]`, want: Path{Field("a"), ByKeys(nil, []string{"*"})}, display: "a[*]"},
		{in: `a[""]`, want: Path{Field("a"), ByKeys(nil, []string{""})}},
		{in: `a.""`, want: Path{Field("a"), Field("")}},
		{in: `a[lun=0]`, want: Path{Field("a"), ByKeys([]string{"lun"}, []string{"0"})}, display: "a[0]"},
		{in: `a["x=y"="p,q"]`, want: Path{Field("a"), ByKeys([]string{"x=y"}, []string{"p,q"})}, display: `a["p,q"]`},
		{in: "a[99999999999999999999999]", want: Path{Field("a"), ByKeys(nil, []string{"99999999999999999999999"})},
			owned: `a["99999999999999999999999"]`, display: "a[99999999999999999999999]"},
		{in: "a[default,x]", want: Path{Field("a"), ByKeys(nil, []string{"default", "x"})}},
		{in: "[0].a", want: Path{At(0), Field("a")}},
		{in: "  a.b  ", want: Path{Field("a"), Field("b")}, owned: "a.b"},
		{in: "a.b c", want: Path{Field("a"), Field("b c")}, owned: `a."b c"`},
		{in: `a."\u00e9\t"`, want: Path{Field("a"), Field("é\t")}, owned: `a."é\t"`},
		{in: "x[a][b]", want: Path{Field("x"), ByKeys(nil, []string{"a"}), ByKeys(nil, []string{"b"})}},
	} {
		got, err := Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Parse(%q) = %#v, want %#v", tc.in, got, tc.want)
		}
		owned := tc.owned
		if owned == "" {
			owned = tc.in
		}
		if s := got.String(); s != owned {
			t.Errorf("Parse(%q).String() = %q, want %q", tc.in, s, owned)
		}
		display := tc.display
		if display == "" {
			display = owned
		}
		if s := got.Display(); s != display {
			t.Errorf("Parse(%q).Display() = %q, want %q", tc.in, s, display)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for in, want := range map[string]string{
		"":          "empty path",
		"   ":       "empty path",
		".a":        "starts with a dot",
		"a.":        "empty member name",
		"a..b":      "empty member name",
		"a.[0]":     "empty member name",
		"a[0":       "is not closed",
		"a[x=1":     "is not closed",
		`a."b`:      "quote at offset 2 is not closed",
		`a."b"c`:    `unexpected 'c'`,
		`a["b"c]`:   `unexpected 'c'`,
		"a[x,k=v]":  "mixes forms",
		"a[0]b":     "expected . or [",
		`a."\q"`:    "bad quoted name",
		`a[k="v"=]`: `unexpected '='`,
	} {
		_, err := Parse(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) error = %v, want it to mention %q", in, err, want)
		}
	}
}

func TestJoin(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{JoinMember("", "tags"), "tags"},
		{JoinMember("tags", "a.b"), `tags."a.b"`},
		{JoinMember("tags", ""), `tags.""`},
		{JoinMember("", "a b"), `"a b"`},
		{JoinIndex("rules", 3), "rules[3]"},
		{JoinMember(JoinIndex("rules", 3), "name"), "rules[3].name"},
		{Quote(`say "hi"`), `"say \"hi\""`},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestPathHelpers(t *testing.T) {
	p := mustParse(t, "a[name=x].b[0]")
	if got := p.LastMember(); got != "b" {
		t.Errorf("LastMember = %q", got)
	}
	if (Path{At(1)}).LastMember() != "" {
		t.Error("LastMember of an item-only path is not empty")
	}
	c := p[:2].Clone()
	c = append(c, Field("z"))
	if p[2].Name != "b" || c.String() != "a[name=x].z" {
		t.Errorf("Clone shares its array: %v %v", p, c)
	}
	for _, tc := range []struct {
		s          Seg
		wild, item bool
	}{
		{Field("*"), true, false},
		{Field("a"), false, false},
		{Seg{Kind: AnyItem}, true, true},
		{Seg{Kind: Item}, false, true},
		{At(0), false, true},
		{ByKeys(nil, []string{"*"}), false, true},
	} {
		if tc.s.Wild() != tc.wild || tc.s.IsItem() != tc.item {
			t.Errorf("%#v: Wild=%v IsItem=%v", tc.s, tc.s.Wild(), tc.s.IsItem())
		}
	}
	if _, err := Parse("a["); err == nil {
		t.Error("Parse of a bad path gave no error")
	}
}

func TestParsePattern(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"tags.*", true},
		{"properties.subnets[*].name", true},
		{"properties.subnets[name=a,kind=b].x", true},
		{`tags["a.b"]`, true},
		{"properties.subnets[a,b].x", false}, // which identifier is a, which b?
		{"properties..x", false},
	} {
		_, err := ParsePattern(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("ParsePattern(%q) error = %v, want ok=%v", tc.in, err, tc.ok)
		}
	}
}

func mustParse(t *testing.T, s string) Path {
	t.Helper()
	p, err := Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
