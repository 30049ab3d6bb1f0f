package schema

import (
	"io/fs"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/schema/internal/format"
)

// TestMain checks, before any test touches the package, that importing
// it did no schema work: `kubectl azure version` must stay free of it.
func TestMain(m *testing.M) {
	if defaultReg != nil {
		println("schema: Default registry was built during package init")
		os.Exit(2)
	}
	os.Exit(m.Run())
}

func freshEmbedded(t testing.TB) *Registry {
	t.Helper()
	sub, err := fs.Sub(embedded, "data")
	if err != nil {
		t.Fatal(err)
	}
	return newRegistry(sub, "embedded")
}

// TestEmbeddedSize holds the index to its budgets: every committed file
// under 4 MB, at most 15 MB in total in the binary.
func TestEmbeddedSize(t *testing.T) {
	var total int64
	err := fs.WalkDir(embedded, "data", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if info.Size() >= 4<<20 {
			t.Errorf("%s is %d bytes; every committed file must stay under 4 MB (lower format.MaxShardBytes)", p, info.Size())
		}
		total += info.Size()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if total > 15<<20 {
		t.Errorf("embedded index is %d bytes, over the 15 MB budget", total)
	}
	if total < 100<<10 {
		t.Errorf("embedded index is only %d bytes: is it the real index?", total)
	}
	t.Logf("embedded index: %.2f MB", float64(total)/(1<<20))
}

// largestTypes returns the n types with the biggest encoded blobs: the
// worst cases for first-lookup time.
func largestTypes(t testing.TB, n int) []string {
	t.Helper()
	data, err := fs.ReadFile(embedded, "data/"+format.IndexFile)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := format.ParseIndex(data)
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Length > entries[j].Length })
	var out []string
	for _, e := range entries[:n] {
		out = append(out, e.Name)
	}
	return out
}

// BenchmarkFirstLookup measures a cold registry's first lookup of the
// largest type (index parse + one blob decode).
func BenchmarkFirstLookup(b *testing.B) {
	typ := largestTypes(b, 1)[0]
	for b.Loop() {
		r := freshEmbedded(b)
		if ty, _ := r.Lookup(typ, ""); ty == nil {
			b.Fatal("not found")
		}
	}
}

// BenchmarkFirstLookupStorage is the common case: a mid-sized type.
func BenchmarkFirstLookupStorage(b *testing.B) {
	for b.Loop() {
		r := freshEmbedded(b)
		if ty, _ := r.Lookup("Microsoft.Storage/storageAccounts", "2023-05-01"); ty == nil {
			b.Fatal("not found")
		}
	}
}

// BenchmarkWarmLookup is every lookup after the first.
func BenchmarkWarmLookup(b *testing.B) {
	r := Default()
	r.Lookup("Microsoft.Storage/storageAccounts", "2023-05-01")
	for b.Loop() {
		if ty, _ := r.Lookup("microsoft.storage/storageaccounts", "2023-05-01"); ty == nil {
			b.Fatal("not found")
		}
	}
}

func TestLookupUnknownType(t *testing.T) {
	ty, res := Default().Lookup("Contoso.Nothing/here", "2024-01-01")
	if ty != nil || res.Found || !strings.Contains(res.Warning, "Contoso.Nothing/here") {
		t.Fatalf("unknown type: %v %+v", ty, res)
	}
	if Default().Versions("Contoso.Nothing/here") != nil {
		t.Error("versions of an unknown type")
	}
}

// TestConcurrentLookups: the registry is shared by parallel workers.
func TestConcurrentLookups(t *testing.T) {
	r := freshEmbedded(t)
	types := largestTypes(t, 8)
	done := make(chan *Type, 4*len(types))
	for i := 0; i < 4; i++ {
		for _, typ := range types {
			go func() {
				ty, _ := r.Lookup(typ, "")
				// Descriptions decode beside lookups of other versions
				// of the same blob.
				vs := r.Versions(typ)
				other, _ := r.Lookup(typ, vs[len(vs)/2])
				_ = other.Description("properties")
				_ = ty.Description("location")
				done <- ty
			}()
		}
	}
	seen := map[string]*Type{}
	for i := 0; i < 4*len(types); i++ {
		ty := <-done
		if ty == nil {
			t.Fatal("lookup failed")
		}
		if prev, ok := seen[ty.Name]; ok && prev != ty {
			t.Errorf("%s decoded twice: lookups must share one *Type", ty.Name)
		}
		seen[ty.Name] = ty
	}
}
