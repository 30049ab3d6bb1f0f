package schema

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

const fixtureSpecs = "internal/specgen/testdata/specs"

// TestOpen runs --schema-dir's path end to end on the generator's fixture:
// generate into the cache, look up, then reuse the cache.
func TestOpen(t *testing.T) {
	cache := t.TempDir()
	t.Setenv(CacheDirEnv, cache)
	r, err := Open(fixtureSpecs)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Types(); len(got) != 2 || got[0] != "Contoso.Widgets/widgets" {
		t.Fatalf("types = %v", got)
	}
	ty, res := r.Lookup("contoso.widgets/WIDGETS", "2024-03-01")
	if ty == nil || !res.Nearest || res.APIVersion != "2024-01-01" {
		t.Fatalf("lookup = %+v", res)
	}
	ty, _ = r.Lookup("Contoso.Widgets/widgets", "2024-06-01")
	if p := ty.Prop("properties.seed"); p == nil || !p.Secret || !p.WriteOnly {
		t.Errorf("seed = %+v", p)
	}
	if !ty.PatchSupported || len(ty.PatchPaths) != 2 {
		t.Errorf("patch = %v %v", ty.PatchSupported, ty.PatchPaths)
	}
	ents, err := os.ReadDir(cache)
	if err != nil || len(ents) != 1 {
		t.Fatalf("cache holds %v (%v), want one index", ents, err)
	}
	idx := filepath.Join(cache, ents[0].Name(), "index.tsv")
	before, err := os.Stat(idx)
	if err != nil {
		t.Fatal(err)
	}
	// A second Open reuses the cached index instead of regenerating.
	time.Sleep(10 * time.Millisecond)
	if _, err := Open(fixtureSpecs); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(idx)
	if err != nil || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("cache was rewritten (%v -> %v, %v)", before.ModTime(), after.ModTime(), err)
	}
}

func TestOpenErrors(t *testing.T) {
	t.Setenv(CacheDirEnv, t.TempDir())
	if _, err := Open(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("missing dir accepted")
	}
	if _, err := Open(t.TempDir()); err == nil {
		t.Error("a dir that is not a specs checkout was accepted")
	}
}
