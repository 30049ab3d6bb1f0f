package expr_test

import (
	"errors"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/convert/expr"
)

// token is a deploy-time value of a given shape, as the converter's
// secure parameters and placeholders are.
type token struct {
	name  string
	shape expr.Shape
}

func (t *token) Access(any) (any, error) { return nil, errors.New("no members") }
func (t *token) Describe() string        { return t.name }
func (t *token) Shape() expr.Shape       { return t.shape }

// TestURIUnknown: uri() resolves the known text by RFC 3986 and keeps a
// deploy-time value where it lands; a value whose place depends on its
// text is refused as known only at deploy time.
func TestURIUnknown(t *testing.T) {
	sas := &token{"sas", expr.ShapeQuery}
	guid := &token{"tenant", expr.ShapeSegment}
	opaque := &token{"ref", expr.ShapeAny}
	base := "https://raw.githubusercontent.com/Azure/azure-quickstart-templates/abc/quickstarts/x/"
	cat := func(parts ...any) any { v, _ := mustFunc(t, "concat")(&expr.Ctx{}, parts); return v }
	tests := []struct {
		name      string
		base, rel any
		want      []any // the Concat's parts; nil: refused
	}{
		{"sas after a script", base, cat("scripts/install.sh", sas), []any{base + "scripts/install.sh", sas}},
		{"dot segments resolved first", base, cat("../y/./run.ps1", sas), []any{"https://raw.githubusercontent.com/Azure/azure-quickstart-templates/abc/quickstarts/y/run.ps1", sas}},
		{"base without a slash: its last segment goes", "https://example.org/a/b", cat("c.sh", sas), []any{"https://example.org/a/c.sh", sas}},
		{"a query already there", base, cat("s.sh?x=1&", sas), []any{base + "s.sh?x=1&", sas}},
		{"guid in the path", "https://login.microsoftonline.com/", guid, []any{"https://login.microsoftonline.com/", guid}},
		{"guid then more path", "https://login.microsoftonline.com/", cat(guid, "/v2.0"), []any{"https://login.microsoftonline.com/", guid, "/v2.0"}},
		{"only the sas, base without query", base, sas, []any{base, sas}},
		{"only the sas, base with a query", "https://example.org/a?b=1", sas, nil},
		{"a path after the sas", base, cat("a", sas, "/b"), nil},
		{"a value of unknown text", base, cat("a/", opaque), nil},
	}
	for _, tt := range tests {
		got, err := mustFunc(t, "uri")(&expr.Ctx{Func: "uri"}, []any{tt.base, tt.rel})
		if tt.want == nil {
			var de *expr.DeferredError
			if !errors.As(err, &de) {
				t.Errorf("%s: got %v, %v; want it known only at deploy time", tt.name, got, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		c, ok := got.(*expr.Concat)
		if !ok || len(c.Parts) != len(tt.want) {
			t.Errorf("%s: got %#v, want parts %v", tt.name, got, tt.want)
			continue
		}
		for i := range c.Parts {
			if c.Parts[i] != tt.want[i] {
				t.Errorf("%s: part %d = %v, want %v", tt.name, i, c.Parts[i], tt.want[i])
			}
		}
	}
}

func mustFunc(t *testing.T, name string) expr.Func {
	f, ok := expr.Builtin(name)
	if !ok {
		t.Fatalf("no built-in %s", name)
	}
	return f
}

// TestReplaceAbsentQuery: replacing a query-shaped deploy-time value in a
// known string without '?' is the string itself; anything else still
// needs the value.
func TestReplaceAbsentQuery(t *testing.T) {
	sas := &token{"sas", expr.ShapeQuery}
	replace := mustFunc(t, "replace")
	got, err := replace(&expr.Ctx{Func: "replace"}, []any{"https://example.org/qs/", sas, ""})
	if err != nil || got != "https://example.org/qs/" {
		t.Errorf("got %v, %v", got, err)
	}
	for _, args := range [][]any{
		{"https://example.org/qs/?a=1", sas, ""},
		{"https://example.org/qs/", &token{"ref", expr.ShapeAny}, ""},
	} {
		if _, err := replace(&expr.Ctx{Func: "replace"}, args); err == nil {
			t.Errorf("replace(%v) converted", args)
		}
	}
}
