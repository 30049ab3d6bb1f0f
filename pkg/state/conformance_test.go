package state

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// Behaviour every backend must share; run by local_test.go and kube_test.go
// with a function that opens a fresh, empty store (open may be called more
// than once and must then return stores on the same state).

const testID = "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg-demo/providers/Microsoft.Storage/storageAccounts/stdemo001"

func testRecord(id string) *Record {
	return &Record{
		ID: id, Type: "Microsoft.Storage/storageAccounts", APIVersion: "2023-05-01",
		Origin: "infra/st.yaml#0", Set: "demo",
		LastApplied: map[string]any{"location": "westeurope", "properties": map[string]any{"minimumTlsVersion": "TLS1_2"}},
		Baseline:    map[string]any{"location": "westeurope", "properties": map[string]any{"minimumTlsVersion": "TLS1_2"}},
		Etag:        `W/"1"`,
	}
}

func conformance(t *testing.T, open func(t *testing.T) Store) {
	ctx := context.Background()

	// A moved record keeps the ID its secret hashes were salted with, and
	// loses it when written afresh (issue 45 item 16).
	t.Run("HashedAsRoundTrips", func(t *testing.T) {
		st := open(t)
		r := testRecord(testID)
		r.HashedAs = strings.Replace(testID, "rg-demo", "rg-old", 1)
		if err := st.Put(ctx, r); err != nil {
			t.Fatal(err)
		}
		got, err := st.Get(ctx, testID)
		if err != nil || got.HashedAs != r.HashedAs {
			t.Fatalf("Get: HashedAs %q, %v; want %q", got.HashedAs, err, r.HashedAs)
		}
		if k := SecretKeyFor([]byte("0123456789abcdef"), got); string(k) == "0123456789abcdef" {
			t.Errorf("SecretKeyFor a moved record is the state key")
		}
		if err := st.Put(ctx, testRecord(testID)); err != nil {
			t.Fatal(err)
		}
		if got, _ := st.Get(ctx, testID); got.HashedAs != "" {
			t.Errorf("a record written afresh kept HashedAs %q", got.HashedAs)
		}
	})

	t.Run("PreventDestroyIsKeptUntilCleared", func(t *testing.T) {
		st := open(t)
		r := testRecord(testID)
		r.PreventDestroy = true
		if err := st.Put(ctx, r); err != nil {
			t.Fatal(err)
		}
		for _, get := range []func() (*Record, error){
			func() (*Record, error) { return st.Get(ctx, testID) },
			func() (*Record, error) {
				l, err := st.List(ctx)
				if err != nil || len(l) != 1 {
					return nil, errors.Join(err, errors.New("want one record"))
				}
				return l[0], nil
			},
		} {
			got, err := get()
			if err != nil {
				t.Fatal(err)
			}
			if !got.PreventDestroy {
				t.Fatalf("prevent-destroy was not kept: %+v", got)
			}
		}
		r = testRecord(testID)
		if err := st.Put(ctx, r); err != nil {
			t.Fatal(err)
		}
		if got, err := st.Get(ctx, testID); err != nil || got.PreventDestroy {
			t.Fatalf("a record applied without the annotation still protects: %+v %v", got, err)
		}
	})

	t.Run("AcceptedPathsAreKeptUntilCleared", func(t *testing.T) {
		st := open(t)
		r := testRecord(testID)
		r.Accepted = []string{"properties.minimumTlsVersion", `tags."a.b"`}
		if err := st.Put(ctx, r); err != nil {
			t.Fatal(err)
		}
		got, err := st.Get(ctx, testID)
		if err != nil || len(got.Accepted) != 2 || got.Accepted[1] != `tags."a.b"` {
			t.Fatalf("accepted paths after Put: %v %v", got, err)
		}
		if err := st.Put(ctx, testRecord(testID)); err != nil {
			t.Fatal(err)
		}
		if got, err := st.Get(ctx, testID); err != nil || len(got.Accepted) != 0 {
			t.Fatalf("a record written without accepted paths still lists %v (%v)", got.Accepted, err)
		}
	})

	t.Run("RecordsRoundTripCaseInsensitive", func(t *testing.T) {
		st := open(t)
		if _, err := st.Get(ctx, testID); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Get on empty store: want ErrNotFound, got %v", err)
		}
		r := testRecord(testID)
		if err := st.Put(ctx, r); err != nil {
			t.Fatal(err)
		}
		if r.Serial != 1 || r.Updated.IsZero() {
			t.Fatalf("Put did not set serial/updated: %d %v", r.Serial, r.Updated)
		}
		got, err := st.Get(ctx, strings.ToUpper(testID))
		if err != nil {
			t.Fatalf("Get with other casing: %v", err)
		}
		if got.ID != testID || got.Origin != r.Origin || got.Etag != r.Etag || got.Set != "demo" {
			t.Fatalf("round trip lost fields: %+v", got)
		}
		if got.LastApplied["properties"].(map[string]any)["minimumTlsVersion"] != "TLS1_2" {
			t.Fatalf("LastApplied not round-tripped: %v", got.LastApplied)
		}
		r2 := testRecord(strings.ToLower(testID))
		r2.Etag = `W/"2"`
		if err := st.Put(ctx, r2); err != nil {
			t.Fatal(err)
		}
		got, _ = st.Get(ctx, testID)
		if got.Serial != 2 || got.Etag != `W/"2"` {
			t.Fatalf("second Put under other casing should replace, serial 2: %+v", got)
		}
		other := testRecord(strings.Replace(testID, "stdemo001", "stdemo000", 1))
		if err := st.Put(ctx, other); err != nil {
			t.Fatal(err)
		}
		list, err := st.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 2 || !strings.HasSuffix(list[0].ID, "stdemo000") {
			t.Fatalf("List: want 2 records sorted by ID, got %d (%v)", len(list), ids(list))
		}
		if err := st.Delete(ctx, strings.ToUpper(testID)); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Get(ctx, testID); !errors.Is(err, ErrNotFound) {
			t.Fatalf("after Delete: want ErrNotFound, got %v", err)
		}
		if err := st.Delete(ctx, testID); err != nil {
			t.Fatalf("deleting a missing record must not fail: %v", err)
		}
	})

	t.Run("JournalAndRepair", func(t *testing.T) {
		st := open(t)
		unlock, err := st.Lock(ctx, "repair-test", 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer unlock()
		idOf := func(n string) string { return strings.Replace(testID, "stdemo001", n, 1) }
		// a: create landed; b: patch of an existing record, cannot tell;
		// c: create never landed; d: delete landed; e: delete did not land.
		prevB := testRecord(idOf("b"))
		prevB.LastApplied = map[string]any{"location": "westeurope", "tags": map[string]any{"v": "old"}}
		for _, r := range []*Record{prevB, testRecord(idOf("d")), testRecord(idOf("e"))} {
			if err := st.Put(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		want := map[string]any{"location": "westeurope", "tags": map[string]any{"v": "new"}}
		begin := func(n, op string) {
			t.Helper()
			rec := testRecord(idOf(n))
			rec.LastApplied = want
			if err := st.BeginIntent(ctx, Intent{ID: idOf(n), Op: op, Type: rec.Type, APIVersion: rec.APIVersion, Record: rec}); err != nil {
				t.Fatal(err)
			}
		}
		begin("a", OpPut)
		begin("b", OpPatch)
		begin("c", OpPut)
		begin("d", OpDelete)
		begin("e", OpDelete)
		begin("f", OpPut)
		if err := st.CommitIntent(ctx, idOf("f")); err != nil {
			t.Fatal(err)
		}
		in, err := st.Intents(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(in) != 5 || in[0].Record == nil || in[0].Record.LastApplied["tags"] == nil {
			t.Fatalf("Intents: want 5 with their records, got %d: %+v", len(in), in)
		}
		live := map[string]any{"location": "westeurope", "tags": map[string]any{"v": "new"}, "properties": map[string]any{"provisioningState": "Succeeded"}}
		get := func(_ context.Context, id, apiVersion string) (map[string]any, string, bool, error) {
			if apiVersion != "2023-05-01" {
				t.Errorf("Repair passed api-version %q", apiVersion)
			}
			switch {
			case strings.HasSuffix(id, "/a"), strings.HasSuffix(id, "/b"), strings.HasSuffix(id, "/e"):
				return live, `W/"9"`, true, nil
			}
			return nil, "", false, nil
		}
		landed := func(in Intent, _ map[string]any) bool { return strings.HasSuffix(in.ID, "/a") }
		acts, err := Repair(ctx, st, RepairFuncs{Get: get, Landed: landed})
		if err != nil {
			t.Fatal(err)
		}
		outcome := map[string]string{}
		for _, a := range acts {
			outcome[a.Intent.ID[len(a.Intent.ID)-1:]] = a.Outcome
		}
		wantOut := map[string]string{"a": "recorded", "b": "refreshed", "c": "cleared", "d": "forgotten", "e": "cleared"}
		if !equalJSON(outcome, wantOut) {
			t.Fatalf("repair outcomes: got %v want %v", outcome, wantOut)
		}
		if in, _ := st.Intents(ctx); len(in) != 0 {
			t.Fatalf("intents left after repair: %+v", in)
		}
		a, err := st.Get(ctx, idOf("a"))
		if err != nil || !equalJSON(a.LastApplied, want) || a.Etag != `W/"9"` {
			t.Fatalf("a: want L = intended and etag from GET: %+v %v", a, err)
		}
		if _, ok := a.Baseline["properties"]; ok {
			t.Fatalf("a: baseline must hold only owned paths, got %v", a.Baseline)
		}
		// b's write may not have landed: L and B stay those of the last
		// known write. A B re-read from live would take a drift the write
		// was correcting as the new baseline, and hide it for good.
		b, _ := st.Get(ctx, idOf("b"))
		if !equalJSON(b.LastApplied, prevB.LastApplied) || !equalJSON(b.Baseline, prevB.Baseline) || b.Etag != prevB.Etag {
			t.Fatalf("b: want previous L, B and etag kept: L=%v B=%v etag=%s", b.LastApplied, b.Baseline, b.Etag)
		}
		if _, err := st.Get(ctx, idOf("c")); !errors.Is(err, ErrNotFound) {
			t.Fatalf("c: a create that never landed must not be recorded: %v", err)
		}
		if _, err := st.Get(ctx, idOf("d")); !errors.Is(err, ErrNotFound) {
			t.Fatalf("d: a landed delete must drop the record: %v", err)
		}
		if _, err := st.Get(ctx, idOf("e")); err != nil {
			t.Fatalf("e: a delete that did not land must keep the record: %v", err)
		}
		// Put clears an open intent in the same write.
		begin("g", OpPut)
		if err := st.Put(ctx, testRecord(idOf("G"))); err != nil {
			t.Fatal(err)
		}
		if in, _ := st.Intents(ctx); len(in) != 0 {
			t.Fatalf("Put must clear the intent for the same ID: %+v", in)
		}
		if _, err := st.Get(ctx, idOf("f")); !errors.Is(err, ErrNotFound) {
			t.Fatalf("an intent alone must not read as a record: %v", err)
		}
	})

	t.Run("SecretKeyStable", func(t *testing.T) {
		st := open(t)
		k1, err := st.SecretKey(ctx)
		if err != nil || len(k1) != secretKeyLen {
			t.Fatalf("SecretKey: %v (len %d)", err, len(k1))
		}
		k2, err := st.SecretKey(ctx)
		if err != nil || !bytes.Equal(k1, k2) {
			t.Fatalf("SecretKey changed within a store")
		}
	})

	t.Run("LockWaitsThenFailsNamingHolder", func(t *testing.T) {
		a, b := open(t), open(t)
		unlockA, err := a.Lock(ctx, "alice-run-1", 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, err = b.Lock(ctx, "bob-run-2", 700*time.Millisecond)
		var le *LockedError
		if !errors.As(err, &le) || !strings.Contains(err.Error(), "alice-run-1") {
			t.Fatalf("second Lock: want LockedError naming alice-run-1, got %v", err)
		}
		if w := time.Since(start); w < 700*time.Millisecond {
			t.Fatalf("second Lock gave up after %s, before its timeout", w)
		}
		if h, err := a.(LockInspector).LockHolder(ctx); err != nil || h == nil || h.Holder != "alice-run-1" && !strings.HasPrefix(h.Holder, "alice-run-1") {
			t.Fatalf("LockHolder: %v %v", h, err)
		}
		// Now a waiter that outlasts the holder gets the lock.
		var wg sync.WaitGroup
		var gotErr error
		var waited time.Duration
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := time.Now()
			unlockB, err := b.Lock(ctx, "bob-run-3", 20*time.Second)
			waited, gotErr = time.Since(s), err
			if err == nil {
				unlockB()
			}
		}()
		time.Sleep(800 * time.Millisecond)
		if err := unlockA(); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		if gotErr != nil {
			t.Fatalf("waiter did not get the lock after release: %v", gotErr)
		}
		if waited < 700*time.Millisecond {
			t.Fatalf("waiter got the lock after %s while it was still held", waited)
		}
		t.Logf("second applier waited %s for the first", waited.Round(time.Millisecond))
	})
}

func ids(rs []*Record) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
