package state

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// countingWrites counts st's full state-file rewrites and journal appends.
func countingWrites(st Store) (snapshots, appends func() int) {
	return func() int { return int(writeStatsOf(st).Snapshots) },
		func() int { return int(writeStatsOf(st).Appends) }
}

// Within a locked run the whole file is written when it does not exist yet
// and at unlock; every other change goes to the journal, and concurrent
// changes share appends. Another reader sees every acknowledged change
// meanwhile (state.json plus the journal).
func TestLocalJournalLimitsFullRewrites(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.json")
	st, err := Open(ctx, path, Options{SnapshotInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	snapshots, appends := countingWrites(st)
	unlock, err := st.Lock(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	const n = 200
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := strings.Replace(testID, "stdemo001", fmt.Sprint("st", i), 1)
			if err := st.BeginIntent(ctx, Intent{ID: id, Op: OpPut, Record: testRecord(id)}); err != nil {
				errs <- err
				return
			}
			if err := st.Put(ctx, testRecord(id)); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := snapshots(); got != 1 {
		t.Errorf("%d full rewrites during the run, want 1 (creating the file)", got)
	}
	if got := appends(); got >= 2*n-1 {
		t.Errorf("%d journal appends for %d changes: concurrent changes did not share them", got, 2*n)
	}
	reader, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	recs, err := reader.List(ctx)
	if err != nil || len(recs) != n {
		t.Fatalf("another reader sees %d records (%v), want %d", len(recs), err, n)
	}
	if in, _ := reader.Intents(ctx); len(in) != 0 {
		t.Errorf("another reader sees %d open intents, want 0", len(in))
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	if got := snapshots(); got != 2 {
		t.Errorf("%d full rewrites in all, want 2 (creation and unlock)", got)
	}
	if _, err := os.Stat(path + ".journal"); !os.IsNotExist(err) {
		t.Errorf("journal left after unlock: %v", err)
	}
	if f := readState(t, path); len(f.Resources) != n || len(f.Intents) != 0 {
		t.Errorf("final file: %d records, %d intents", len(f.Resources), len(f.Intents))
	}
}

// A journal is applied only to the state file it extends: one left beside
// a newer file (a crash between writing the file and dropping the journal)
// or one whose last line is torn changes nothing it should not.
func TestLocalJournalReplayRules(t *testing.T) {
	base := func(serial int) string {
		return fmt.Sprintf(`{"format": %q, "version": 1, "serial": %d, "lineage": "ab", "resources": {}}`, FileFormat, serial)
	}
	header := func(lineage string, b int) string {
		return fmt.Sprintf(`{"format": %q, "lineage": %q, "base": %d}`, JournalFormat, lineage, b)
	}
	put := func(name string) string {
		return fmt.Sprintf(`{"op": "put", "key": "k-%s", "value": {"id": "/subscriptions/s/resourceGroups/%s", "type": "T", "apiVersion": "v", "updated": "2026-01-01T00:00:00Z", "serial": 1}}`, name, name)
	}
	tests := []struct {
		name, state, journal string
		want                 []string
	}{
		{"extends", base(3), header("ab", 3) + "\n" + put("a") + "\n" + put("b") + "\n", []string{"a", "b"}},
		{"torn tail", base(3), header("ab", 3) + "\n" + put("a") + "\n" + put("b")[:40], []string{"a"}},
		{"older base", base(4), header("ab", 3) + "\n" + put("a") + "\n", nil},
		{"other lineage", base(3), header("cd", 3) + "\n" + put("a") + "\n", nil},
		{"delete", base(3), header("ab", 3) + "\n" + put("a") + "\n" + put("b") + "\n" + `{"op": "delete", "key": "k-a"}` + "\n", []string{"b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.json")
			if err := os.WriteFile(path, []byte(tt.state), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path+".journal", []byte(tt.journal), 0o600); err != nil {
				t.Fatal(err)
			}
			st := openLocalT(t, path)
			recs, err := st.List(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range recs {
				got = append(got, r.ID[strings.LastIndex(r.ID, "/")+1:])
			}
			if !equalJSON(got, tt.want) {
				t.Errorf("records %v, want %v", got, tt.want)
			}
		})
	}
}

// BenchmarkLocalPut1010 records 1,010 resources the way apply does (an
// intent before each write, the record after) from 32 workers, in one
// locked run including the final write at unlock.
func BenchmarkLocalPut1010(b *testing.B) {
	ctx := context.Background()
	const n, workers = 1010, 32
	var written, fsyncs int64
	for b.Loop() {
		b.StopTimer()
		path := filepath.Join(b.TempDir(), "state.json")
		st, err := Open(ctx, path, Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		unlock, err := st.Lock(ctx, "", 0)
		if err != nil {
			b.Fatal(err)
		}
		work := make(chan int)
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range work {
					id := fmt.Sprintf("/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet-%04d", i)
					r := testRecord(id)
					if err := st.BeginIntent(ctx, Intent{ID: id, Op: OpPut, Record: r}); err != nil {
						b.Error(err)
					}
					if err := st.Put(ctx, r); err != nil {
						b.Error(err)
					}
				}
			}()
		}
		for i := range n {
			work <- i
		}
		close(work)
		wg.Wait()
		if err := unlock(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		fi, _ := os.Stat(path)
		b.ReportMetric(float64(fi.Size()), "state-bytes")
		ws := writeStatsOf(st)
		written += ws.SnapshotBytes + ws.AppendBytes
		fsyncs += ws.Snapshots + ws.Appends
		st.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(written)/float64(b.N), "written-bytes/op")
	b.ReportMetric(float64(fsyncs)/float64(b.N), "writes/op")
}

// A repair records B from a GET: where L holds a hashed secret, so must B.
func TestRepairBaselineHashesSecretsLikeL(t *testing.T) {
	ctx := context.Background()
	st := openLocalT(t, filepath.Join(t.TempDir(), "state.json"))
	key, err := st.SecretKey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := st.Lock(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	const clear = "repair-secret-value-42"
	rec := testRecord(testID)
	rec.LastApplied = map[string]any{"properties": map[string]any{"value": secret.Hash(key, "properties.value", clear), "mode": "on"}}
	if err := st.BeginIntent(ctx, Intent{ID: testID, Op: OpPut, Record: rec}); err != nil {
		t.Fatal(err)
	}
	get := func(context.Context, string, string) (map[string]any, string, bool, error) {
		return map[string]any{"properties": map[string]any{"value": clear, "mode": "on", "extra": 1}}, `W/"2"`, true, nil
	}
	landed := func(Intent, map[string]any) bool { return true }
	if _, err := Repair(ctx, st, RepairFuncs{Get: get, Landed: landed}); err != nil {
		t.Fatal(err)
	}
	got, err := st.Get(ctx, testID)
	if err != nil {
		t.Fatal(err)
	}
	props := got.Baseline["properties"].(map[string]any)
	if props["value"] != secret.Hash(key, "properties.value", clear) || props["mode"] != "on" {
		t.Errorf("repaired baseline = %v, want the secret hashed as in L and the rest as live", got.Baseline)
	}
	if _, has := props["extra"]; has {
		t.Errorf("repaired baseline holds a path L does not own: %v", props)
	}
}

// TestRunWritesLittleMoreThanTheState: during a run as slow as one at
// ARM's pace (every flush later than SnapshotInterval), the bytes written
// to disk stay within 3 times the final state's size (issue 34).
func TestRunWritesLittleMoreThanTheState(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.json")
	st, err := Open(ctx, path, Options{SnapshotInterval: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	unlock, err := st.Lock(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1010 {
		id := fmt.Sprintf("/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet-%04d", i)
		// A network security group with a few rules: bodies of the size
		// real records have, not only IDs.
		r := testRecord(id)
		var rules []any
		for j := range 4 {
			rules = append(rules, map[string]any{"name": fmt.Sprint("rule-", j), "properties": map[string]any{
				"priority": 100 + j, "direction": "Inbound", "access": "Allow", "protocol": "Tcp",
				"sourceAddressPrefix": "10.0.0.0/8", "sourcePortRange": "*", "destinationAddressPrefix": "*", "destinationPortRange": fmt.Sprint(8000 + j)}})
		}
		r.LastApplied = map[string]any{"location": "westeurope", "tags": map[string]any{"env": "prod", "owner": "platform"}, "properties": map[string]any{"securityRules": rules}}
		r.Baseline = r.LastApplied
		in := *r
		in.Baseline = nil // an intent carries L only
		if err := st.BeginIntent(ctx, Intent{ID: id, Op: OpPut, Record: &in}); err != nil {
			t.Fatal(err)
		}
		if err := st.Put(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	ws := writeStatsOf(st)
	written := ws.SnapshotBytes + ws.AppendBytes
	ratio := float64(written) / float64(fi.Size())
	t.Logf("wrote %d bytes (%d to the journal) for a %d-byte state: %.2fx", written, ws.AppendBytes, fi.Size(), ratio)
	if ratio > 3 {
		t.Errorf("a run wrote %.1f times the final state's size, want at most 3", ratio)
	}
}
