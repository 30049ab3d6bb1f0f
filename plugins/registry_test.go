package plugins

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// The real providers build without a type declared twice.
func TestRegistryBuilds(t *testing.T) {
	tb, err := build(providers)
	if err != nil {
		t.Fatal(err)
	}
	if len(tb.plugins) == 0 || len(tb.plugins) != len(Types()) {
		t.Errorf("built %d plugins, the registry has %d", len(tb.plugins), len(Types()))
	}
}

// Two providers declaring the same type (in any casing) is an error that
// names the type, not a silent merge or overwrite.
func TestBuildRejectsDuplicateTypes(t *testing.T) {
	one := func(b *builder) {
		b.add("Example.Net/widgets", &diff.Funcs{R: diff.Rules{ReadOnly: []schema.Path{"properties.a"}}})
	}
	other := func(b *builder) {
		b.addHooks("example.net/WIDGETS", &diff.Funcs{AfterGetFn: func(m map[string]any) map[string]any { return m }}, "properties.b")
	}
	_, err := build([]func(*builder){one, other})
	if err == nil || !strings.Contains(err.Error(), "example.net/WIDGETS") {
		t.Fatalf("duplicate type: err = %v, want one naming the type", err)
	}
	if _, err := build([]func(*builder){one}); err != nil {
		t.Errorf("a single declaration: %v", err)
	}
}

// For answers from one table: the same plugin for the same type on every
// call, whatever the casing (the diff caches facts by the Rules pointer).
func TestForIsStable(t *testing.T) {
	for _, typ := range Types() {
		a, b := For(typ), For(strings.ToUpper(typ))
		if a == nil || a != b || a.Rules() != b.Rules() {
			t.Errorf("%s: For returned %p then %p", typ, a, b)
		}
	}
}

// Nothing in this package registers from init: the table is built from
// the providers list alone.
func TestNoInitFunctions(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		af, err := parser.ParseFile(fset, f, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "init" {
				t.Errorf("%s: func init() found; declare plugins in a provider listed in registry.go", fset.Position(fd.Pos()))
			}
		}
	}
}
