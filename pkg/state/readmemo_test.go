package state

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

func groupRecord(i int) *Record {
	return &Record{ID: fmt.Sprintf("/subscriptions/s/resourceGroups/rg-%d", i), Type: "Microsoft.Resources/resourceGroups",
		APIVersion: "2021-04-01", LastApplied: map[string]any{"location": "westeurope", "tags": map[string]any{"n": fmt.Sprint(i)}}}
}

// TestListSerialsFollowsOtherWriters: the serials read without the lock
// match ListHeads' and follow every write, this store's, another store's
// on the same file (another process), under the lock (the journal) or
// not, and a delete; a reading that is reused never hides one.
func TestListSerialsFollowsOtherWriters(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.json")
	reader, writer := openLocalT(t, path), openLocalT(t, path)
	sl := reader.(SerialLister)
	check := func(step string) {
		t.Helper()
		got, err := sl.ListSerials(ctx)
		if err != nil {
			t.Fatal(err)
		}
		heads, _, err := writer.(BodyLoader).ListHeads(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(heads) {
			t.Fatalf("%s: %d serials, %d records", step, len(got), len(heads))
		}
		for _, h := range heads {
			s, ok := got[armid.Key(h.ID)]
			if !ok || s.Serial != h.Serial || !s.Updated.Equal(h.Updated) {
				t.Fatalf("%s: %s is %+v, the record says serial %d at %s", step, h.ID, s, h.Serial, h.Updated)
			}
		}
	}
	for i := range 3 {
		if err := writer.Put(ctx, groupRecord(i)); err != nil {
			t.Fatal(err)
		}
	}
	check("three written by another store")
	check("read again, nothing changed")
	if err := writer.Put(ctx, groupRecord(1)); err != nil {
		t.Fatal(err)
	}
	check("one written again")
	unlock, err := writer.Lock(ctx, "other", 0)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := writer.Put(ctx, groupRecord(2)); err != nil { // the journal, same size each time
			t.Fatal(err)
		}
		check("written under the other's lock")
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	check("after the other's unlock")
	if err := writer.Delete(ctx, groupRecord(0).ID); err != nil {
		t.Fatal(err)
	}
	check("one deleted")
	if err := reader.Put(ctx, groupRecord(5)); err != nil {
		t.Fatal(err)
	}
	check("written by the reader")
}

// BenchmarkListSerials10000 is what the loop pays per sweep part on a
// state of 10,000 records, against ListHeads, which it used before.
func BenchmarkListSerials10000(b *testing.B) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(b.TempDir(), "state.json"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	unlock, err := st.Lock(ctx, "bench", 0)
	if err != nil {
		b.Fatal(err)
	}
	for i := range 10000 {
		if err := st.Put(ctx, groupRecord(i)); err != nil {
			b.Fatal(err)
		}
	}
	if err := unlock(); err != nil {
		b.Fatal(err)
	}
	b.Run("ListHeads", func(b *testing.B) {
		for range b.N {
			if _, _, err := st.(BodyLoader).ListHeads(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ListSerials", func(b *testing.B) {
		for range b.N {
			if _, err := st.(SerialLister).ListSerials(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}
