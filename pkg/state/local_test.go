package state

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

func openLocalT(t *testing.T, path string) Store {
	t.Helper()
	st, err := Open(context.Background(), path, Options{LockPoll: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestLocalConformance(t *testing.T) {
	conformance(t, func(t *testing.T) Store {
		// Stores opened by one subtest share that subtest's file.
		return openLocalT(t, filepath.Join(dirFor(t), "state.json"))
	})
}

var subtestDirs = map[string]string{}

func dirFor(t *testing.T) string {
	if d, ok := subtestDirs[t.Name()]; ok {
		return d
	}
	d := t.TempDir()
	subtestDirs[t.Name()] = d
	return d
}

func TestLocalDefaultPathAndRefs(t *testing.T) {
	for _, bad := range []string{"s3://bucket/x", "kubernetes://ns", "kubernetes://NS/set", "kubernetes://ns/Set_1", "kubernetes:///set"} {
		if _, err := Open(context.Background(), bad, Options{}); err == nil {
			t.Errorf("Open(%q) should fail", bad)
		}
	}
	if ns, set, err := ParseKubernetesRef("kubernetes://infra/prod-eu"); err != nil || ns != "infra" || set != "prod-eu" {
		t.Errorf("ParseKubernetesRef: %q %q %v", ns, set, err)
	}
	t.Chdir(t.TempDir())
	st, err := Open(context.Background(), "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Put(context.Background(), testRecord(testID)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(DefaultPath); err != nil {
		t.Fatalf("default state file not at %s: %v", DefaultPath, err)
	}
}

func TestLocalFilePermissions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "st")
	path := filepath.Join(dir, "state.json")
	st := openLocalT(t, path)
	ctx := context.Background()
	unlock, err := st.Lock(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		r := testRecord(testID)
		r.LastApplied["secret"] = Secret(fmt.Sprint("s", i))
		if err := st.Put(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(path + ".holder"); err != nil {
		t.Fatalf("holder identity not written beside the lock: %v", err)
	}
	unlock()
	if err := st.Put(ctx, testRecord(testID)); err != nil { // makes a backup outside a session too
		t.Fatal(err)
	}
	for _, f := range []string{path, path + ".backup", path + ".lock", path + ".key"} {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", filepath.Base(f), fi.Mode().Perm())
		}
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("state directory has mode %v, want 0700", fi.Mode().Perm())
	}
	if _, err := os.Stat(path + ".holder"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("holder file must be removed on unlock: %v", err)
	}
}

func readState(t *testing.T, path string) localFile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f localFile
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("%s is not valid JSON: %v", path, err)
	}
	return f
}

func TestLocalBackupIsStateBeforeTheRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	st := openLocalT(t, path)
	ctx := context.Background()
	idN := func(n int) string { return strings.Replace(testID, "stdemo001", fmt.Sprint("st", n), 1) }
	run := func(ids ...int) {
		unlock, err := st.Lock(ctx, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range ids {
			if err := st.Put(ctx, testRecord(idN(n))); err != nil {
				t.Fatal(err)
			}
		}
		if err := unlock(); err != nil {
			t.Fatal(err)
		}
	}
	run(1, 2)
	after1 := readState(t, path)
	run(3, 4, 5)
	backup := readState(t, path+".backup")
	cur := readState(t, path)
	if len(backup.Resources) != 2 || backup.Serial != after1.Serial {
		t.Fatalf("backup should be the state after run 1 (2 records, serial %d), got %d records serial %d",
			after1.Serial, len(backup.Resources), backup.Serial)
	}
	if len(cur.Resources) != 5 || cur.Serial <= after1.Serial || cur.Lineage != after1.Lineage {
		t.Fatalf("state after run 2: %d records serial %d lineage %s (want 5, > %d, %s)",
			len(cur.Resources), cur.Serial, cur.Lineage, after1.Serial, after1.Lineage)
	}
}

func TestLocalCorruptFileIsReportedNotOverwritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(path, []byte(`{"version":1,"resources":{`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), path, Options{})
	if err == nil || !strings.Contains(err.Error(), "corrupt") || !strings.Contains(err.Error(), ".backup") {
		t.Fatalf("want an error pointing at the backup, got %v", err)
	}
}

// Several processes increment one counter under the lock: any lost update
// (two runs inside the lock at once) leaves the count short.
func TestLocalConcurrentProcessesSerialise(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	const procs, each = 4, 15
	var cmds []*exec.Cmd
	for range procs {
		cmds = append(cmds, startHelper(t, "counter", path, []string{fmt.Sprint("HELPER_N=", each)}, ""))
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("counter helper failed: %v", err)
		}
	}
	st := openLocalT(t, path)
	r, err := st.Get(context.Background(), testID)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := r.LastApplied["count"].(json.Number).Int64(); got != procs*each || r.Serial != procs*each {
		t.Fatalf("count %v serial %d, want %d: concurrent runs overlapped", got, r.Serial, procs*each)
	}
}

// A writer killed with SIGKILL at random moments never leaves a file that
// fails to load, the serial never goes back, and the next run gets the lock
// at once.
func TestLocalKilledWriterNeverCorrupts(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	ctx := context.Background()
	var lastSerial int64
	rng := rand.New(rand.NewPCG(1, 2))
	const kills = 25
	acked := 0
	for i := range kills {
		ackPath := filepath.Join(dir, fmt.Sprint("acks-", i))
		cmd := startHelper(t, "writer", path, []string{"HELPER_ACKS=" + ackPath}, "READY")
		time.Sleep(time.Duration(5+rng.IntN(120)) * time.Millisecond)
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()

		st, err := Open(ctx, path, Options{})
		if err != nil {
			t.Fatalf("kill %d: state unreadable after a crash: %v", i, err)
		}
		f := readState(t, path)
		if f.Serial < lastSerial {
			t.Fatalf("kill %d: serial went back from %d to %d", i, lastSerial, f.Serial)
		}
		lastSerial = f.Serial
		if _, err := st.List(ctx); err != nil {
			t.Fatalf("kill %d: %v", i, err)
		}
		// Every Put the writer was told is durable must be in state.
		if last, ok := lastAck(t, ackPath); ok {
			acked++
			id := strings.Replace(testID, "stdemo001", fmt.Sprintf("st%03d", last%40), 1)
			r, err := st.Get(ctx, id)
			if err != nil {
				t.Fatalf("kill %d: acknowledged write %d lost: %v", i, last, err)
			}
			if got, _ := r.LastApplied["i"].(json.Number).Int64(); got < int64(last) {
				t.Fatalf("kill %d: acknowledged write %d lost: state holds write %d", i, last, got)
			}
		}
		if _, err := os.Stat(path + ".backup"); err == nil {
			readState(t, path+".backup")
		}
		unlock, err := st.Lock(ctx, "after-crash", 2*time.Second)
		if err != nil {
			t.Fatalf("kill %d: the killed writer's lock was not released: %v", i, err)
		}
		if tmps, _ := filepath.Glob(path + ".tmp-*"); len(tmps) != 0 {
			t.Fatalf("kill %d: temp files of the dead writer not cleaned: %v", i, tmps)
		}
		unlock()
		st.Close()
	}
	if acked < kills/2 {
		t.Fatalf("only %d of %d runs acknowledged a write before the kill: the test did not exercise writes", acked, kills)
	}
	t.Logf("%d kills, %d with acknowledged writes all found in state, %d file writes", kills, acked, lastSerial)
}

// lastAck returns the last complete line of a writer's acknowledgements.
func lastAck(t *testing.T, path string) (int, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	lines := strings.Split(string(b), "\n")
	for j := len(lines) - 2; j >= 0; j-- { // the text after the last \n may be torn
		var n int
		if _, err := fmt.Sscan(lines[j], &n); err == nil {
			return n, true
		}
	}
	return 0, false
}

func TestLocalWriteWithoutLockWaitsForHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	a := openLocalT(t, path)
	b, err := Open(context.Background(), path, Options{LockTimeout: 300 * time.Millisecond, LockPoll: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	unlock, err := a.Lock(ctx, "holder-a", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if err := b.Put(ctx, testRecord(testID)); err == nil || !strings.Contains(err.Error(), "holder-a") {
		t.Fatalf("a write from another run must wait for the holder, then fail naming it: %v", err)
	}
	if _, err := b.List(ctx); err != nil {
		t.Fatalf("reads need no lock: %v", err)
	}
}

func TestLocalSecretsNeverStoredInClear(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	reg := secret.NewRegistry()
	st, err := Open(context.Background(), path, Options{LockPoll: 20 * time.Millisecond, Secrets: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	assertNoPlantedSecret(t, st, reg, func() [][]byte {
		var all [][]byte
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, b)
		}
		return all
	})
}

// assertNoPlantedSecret stores secrets through every path a caller could
// use (hashed by the caller, typed Secret in L, in B, in an intent, clear
// under a credential name, a map value under a key with a dot, inside a
// credential container, a value registered as secret in reg, the store's
// registry) and checks that no stored byte contains one.
func assertNoPlantedSecret(t *testing.T, st Store, reg *secret.Registry, stored func() [][]byte) {
	t.Helper()
	ctx := context.Background()
	const planted = "planted-S3cr3t-value-6b1f0c"
	clear := []string{planted, "clear-app-setting-pw-77", "tag-secret-a.b-91", "protected-cmd-secret-12", "registered-conn-part-55"}
	reg.Register(clear[4])
	key, err := st.SecretKey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	h := secret.Hash(key, "", planted)
	if !strings.HasPrefix(h, "hmac-sha256:") || h == secret.Hash([]byte("other"), "", planted) {
		t.Fatalf("a secret's hash must carry its prefix and depend on the key: %s", h)
	}
	unlock, err := st.Lock(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	r := testRecord(testID)
	r.LastApplied["properties"] = map[string]any{
		"adminPassword":     h,
		"list":              []any{Secret(planted)},
		"appSettings":       map[string]any{"DB_PASSWORD": clear[1], "MODE": "prod"},
		"protectedSettings": map[string]any{"commandToExecute": clear[3]},
		"connection":        clear[4],
	}
	r.LastApplied["tags"] = map[string]any{"a.b": Secret(clear[2]), "env": "prod"}
	r.Baseline["properties"] = map[string]any{"token": Secret(planted), "appSettings": map[string]any{"DB_PASSWORD": clear[1]}}
	if err := st.Put(ctx, r); err != nil {
		t.Fatal(err)
	}
	id2 := strings.Replace(testID, "stdemo001", "stdemo002", 1)
	r2 := testRecord(id2)
	r2.LastApplied["properties"] = map[string]any{"adminPassword": Secret(planted), "password": clear[1]}
	if err := st.BeginIntent(ctx, Intent{ID: id2, Op: OpPut, Record: r2}); err != nil {
		t.Fatal(err)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	got, err := st.Get(ctx, testID)
	if err != nil {
		t.Fatal(err)
	}
	props := got.LastApplied["properties"].(map[string]any)
	if list := props["list"].([]any); list[0] != secret.Hash(key, "properties.list[]", planted) || props["adminPassword"] != h {
		t.Fatalf("a Secret must be stored as secret.Hash at its schema path: %v", got.LastApplied)
	}
	if tag := got.LastApplied["tags"].(map[string]any)["a.b"]; tag != secret.Hash(key, "tags.*", clear[2]) {
		t.Errorf("a secret tag must be hashed at tags.*: %v", tag)
	}
	if mode := props["appSettings"].(map[string]any)["MODE"]; mode != "prod" {
		t.Errorf("a plain app setting must stay as it is: %v", mode)
	}
	if _, err := json.Marshal(map[string]any{"x": Secret(planted)}); err == nil {
		t.Fatal("marshalling a clear Secret must fail")
	}
	blobs := stored()
	if len(blobs) == 0 {
		t.Fatal("nothing stored: the check would pass vacuously")
	}
	found := false
	for _, b := range blobs {
		for _, c := range clear {
			if bytes.Contains(b, []byte(c)) {
				t.Fatalf("planted secret %q found in stored bytes", c)
			}
		}
		found = found || bytes.Contains(b, []byte(strings.TrimPrefix(h, "hmac-sha256:")))
	}
	if !found {
		t.Fatal("the HMAC of the secret is not in the stored bytes either: the scan does not see the records")
	}
}

func TestLocalCommands(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	st := openLocalT(t, path)
	ctx := context.Background()
	r := testRecord(testID)
	r.LastApplied["properties"] = map[string]any{"password": Secret("pw")}
	if err := st.Put(ctx, r); err != nil {
		t.Fatal(err)
	}
	id2 := strings.Replace(testID, "stdemo001", "stdemo002", 1)
	if err := st.BeginIntent(ctx, Intent{ID: id2, Op: OpPut, Started: time.Now()}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := List(ctx, &out, st, ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), testID) || !strings.Contains(out.String(), "pending: put of "+id2) {
		t.Fatalf("table list:\n%s", out.String())
	}
	out.Reset()
	if err := List(ctx, &out, st, "json"); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Resources []Record `json:"resources"`
		Pending   []Intent `json:"pending"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil || len(doc.Resources) != 1 || len(doc.Pending) != 1 {
		t.Fatalf("json list: %v\n%s", err, out.String())
	}
	if err := List(ctx, &out, st, "xml"); err == nil {
		t.Fatal("unknown format must fail")
	}
	out.Reset()
	if err := Show(ctx, &out, st, strings.ToLower(testID), ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "minimumTlsVersion: TLS1_2") || !strings.Contains(out.String(), "hmac-sha256:") {
		t.Fatalf("show yaml:\n%s", out.String())
	}
	if err := Show(ctx, &out, st, id2, ""); err == nil || !strings.Contains(err.Error(), "state list") {
		t.Fatalf("show of an unknown ID should point at state list: %v", err)
	}
	// unlock: nobody holds it; then a live holder is reported, not broken.
	out.Reset()
	if err := Unlock(ctx, &out, st); err != nil || !strings.Contains(out.String(), "not locked") {
		t.Fatalf("unlock with no holder: %v %q", err, out.String())
	}
	holder := openLocalT(t, path)
	release, err := holder.Lock(ctx, "ci-job-42", 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := Unlock(ctx, &out, st); err == nil || !strings.Contains(err.Error(), "ci-job-42") {
		t.Fatalf("unlock of a live file lock must name the holder and refuse: %v", err)
	}
	release()
	if err := Remove(ctx, st, strings.ToUpper(testID)); err != nil {
		t.Fatal(err)
	}
	if err := Remove(ctx, st, testID); err == nil {
		t.Fatal("removing an unknown ID must fail")
	}
	if l, _ := st.List(ctx); len(l) != 0 {
		t.Fatalf("rm left %d records", len(l))
	}
}

// A run over 1,000 resources: parallel workers each recording one write,
// then a listing. Logged for the report; bounded so a regression to
// something quadratic-and-slow fails.
func TestLocal1000Records(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	st := openLocalT(t, path)
	ctx := context.Background()
	unlock, err := st.Lock(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	const n = 1000
	start := time.Now()
	writeConcurrently(t, n, 16, func(i int) error {
		id := fmt.Sprintf("/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet-%04d", i)
		r := testRecord(id)
		if err := st.BeginIntent(ctx, Intent{ID: id, Op: OpPut, Record: r}); err != nil {
			return err
		}
		return st.Put(ctx, r)
	})
	wrote := time.Since(start)
	unlock()
	start = time.Now()
	recs, err := st.List(ctx)
	listed := time.Since(start)
	if err != nil || len(recs) != n {
		t.Fatalf("List: %d records, %v", len(recs), err)
	}
	if in, _ := st.Intents(ctx); len(in) != 0 {
		t.Fatalf("%d intents left", len(in))
	}
	if wrote > 60*time.Second {
		t.Fatalf("recording %d writes took %s", n, wrote)
	}
	fmt.Fprintf(os.Stderr, "TIMING local backend: %d intents+records in %s (16 workers), listed in %s\n", n, wrote.Round(time.Millisecond), listed.Round(time.Millisecond))
}

// Group commit: with parallel writers sharing file writes, a write that
// fails must fail exactly the changes it carried, and every Put that
// returned nil must be on disk.
func TestLocalFailedWriteFailsOnlyItsChanges(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	st := openLocalT(t, path)
	ctx := context.Background()
	unlock, err := st.Lock(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	mode, writes := "ok", 0
	st.(*localStore).writeFaults(func() error {
		mu.Lock()
		defer mu.Unlock()
		writes++
		switch mode {
		case "all":
			return errors.New("injected: disk full")
		case "once":
			// Slow to fail, so other writers change the cache meanwhile.
			mode = "ok"
			mu.Unlock()
			time.Sleep(30 * time.Millisecond)
			mu.Lock()
			return errors.New("injected: disk full")
		}
		return nil
	})
	var okIDs, failed []string
	wave := func(name, m string) {
		mu.Lock()
		mode = m
		mu.Unlock()
		var wg sync.WaitGroup
		var rmu sync.Mutex
		for i := range 50 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				id := strings.Replace(testID, "stdemo001", fmt.Sprint(name, i), 1)
				err := st.Put(ctx, testRecord(id))
				rmu.Lock()
				defer rmu.Unlock()
				if err != nil {
					failed = append(failed, id)
				} else {
					okIDs = append(okIDs, id)
				}
			}()
		}
		wg.Wait()
	}
	wave("a", "ok")
	wave("b", "all")
	wave("c", "once")
	wave("d", "ok")
	mu.Lock()
	mode = "ok"
	mu.Unlock()
	unlock()
	if len(failed) < 50 || len(okIDs) < 100 {
		t.Fatalf("want wave b to fail and a, d to succeed: %d ok, %d failed", len(okIDs), len(failed))
	}
	onDisk := readState(t, path).Resources
	for _, id := range okIDs {
		if _, ok := onDisk[armid.Key(id)]; !ok {
			t.Errorf("Put of %s returned nil but it is not on disk", id)
		}
	}
	for _, id := range failed {
		if _, ok := onDisk[armid.Key(id)]; ok {
			t.Errorf("Put of %s failed but it is on disk", id)
		}
	}
	t.Logf("%d file writes for 200 Puts, %d failed", writes, len(failed))
}

// A repair whose GET fails must keep the journal entry for the next run.
func TestRepairKeepsIntentWhenGetFails(t *testing.T) {
	st := openLocalT(t, filepath.Join(t.TempDir(), "state.json"))
	ctx := context.Background()
	if err := st.BeginIntent(ctx, Intent{ID: testID, Op: OpPut, Record: testRecord(testID)}); err != nil {
		t.Fatal(err)
	}
	_, err := Repair(ctx, st, RepairFuncs{Get: func(context.Context, string, string) (map[string]any, string, bool, error) {
		return nil, "", false, errors.New("ARM unreachable")
	}})
	if err == nil || !strings.Contains(err.Error(), "kept for the next run") {
		t.Fatalf("want an error saying the entry is kept, got %v", err)
	}
	if in, _ := st.Intents(ctx); len(in) != 1 {
		t.Fatalf("intent lost after a failed repair: %v", in)
	}
	if _, err := st.Get(ctx, testID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("nothing may be recorded from a failed GET: %v", err)
	}
}

// TestListHeadsThenBodies: heads plus their bodies are exactly List, with
// big numbers exact, read from one reading of the file; a record that
// reading lacks is an error, not a record without bodies (which would read
// as "never applied").
func TestListHeadsThenBodies(t *testing.T) {
	ctx := context.Background()
	st := openLocalT(t, filepath.Join(t.TempDir(), "state.json"))
	big := json.Number("12345678901234567890")
	for _, name := range []string{"a", "B", "c"} {
		id := "/subscriptions/s/resourceGroups/rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/" + name
		r := &Record{ID: id, Type: "Microsoft.ManagedIdentity/userAssignedIdentities", APIVersion: "2023-01-31", Set: "default",
			LastApplied: map[string]any{"location": "westeurope", "tags": map[string]any{"n": big}},
			Baseline:    map[string]any{"location": "westeurope", "properties": map[string]any{"clientId": name}}}
		if err := st.Put(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	bl, ok := st.(BodyLoader)
	if !ok {
		t.Fatal("the local store lists heads")
	}
	want, err := st.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	heads, load, err := bl.ListHeads(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range heads {
		if h.LastApplied != nil || h.Baseline != nil {
			t.Fatalf("head %s carries bodies", h.ID)
		}
		if h.ID != want[i].ID || h.Serial != want[i].Serial || h.Subscription != want[i].Subscription || h.Set != want[i].Set {
			t.Errorf("head %d = %+v, want the metadata of %+v", i, h, want[i])
		}
	}
	// A record removed after the listing still gets the bodies that
	// reading had: never a mix of two states.
	if err := st.Delete(ctx, heads[1].ID); err != nil {
		t.Fatal(err)
	}
	if err := load(ctx, heads); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(heads, want) {
		t.Errorf("heads with bodies differ from List:\n got %+v\nwant %+v", heads[1], want[1])
	}
	again, load2, err := bl.ListHeads(ctx)
	if err != nil || len(again) != 2 {
		t.Fatalf("ListHeads after the removal = %d records, %v", len(again), err)
	}
	if err := load2(ctx, heads[1:2]); err == nil || !strings.Contains(err.Error(), "not listed by this reading") {
		t.Errorf("loading the bodies of a record another reading listed: %v", err)
	}
	if err := load2(ctx, again[:1]); err != nil || again[0].LastApplied == nil {
		t.Errorf("loading the bodies of a record this reading listed: %v", err)
	}
}

// TestForgetUnreadableRecord: a record whose bodies cannot be read stops a
// plan with advice to forget it; `state list` and `state rm` must then
// work, or the advice would be a dead end.
func TestForgetUnreadableRecord(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.json")
	st := openLocalT(t, path)
	id := "/subscriptions/s/resourceGroups/rg"
	if err := st.Put(ctx, &Record{ID: id, Type: "Microsoft.Resources/resourceGroups", APIVersion: "2021-04-01",
		LastApplied: map[string]any{"location": "westeurope"}}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Replace(b, []byte(`"lastApplied":{`), []byte(`"lastApplied":5,"was":{`), 1)
	if bytes.Equal(bad, b) {
		t.Fatal("the test could not corrupt the record")
	}
	if err := os.WriteFile(path, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	heads, load, err := st.(BodyLoader).ListHeads(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := load(ctx, heads); err == nil || !strings.Contains(err.Error(), "state rm") {
		t.Fatalf("loading an unreadable record: %v, want advice naming state rm", err)
	}
	var out bytes.Buffer
	if err := List(ctx, &out, st, ""); err != nil || !strings.Contains(out.String(), id) {
		t.Fatalf("state list of an unreadable record: %v\n%s", err, out.String())
	}
	if err := Remove(ctx, st, id); err != nil {
		t.Fatalf("state rm of an unreadable record: %v", err)
	}
	if recs, err := st.List(ctx); err != nil || len(recs) != 0 {
		t.Fatalf("after state rm: %d records, %v", len(recs), err)
	}
}

// TestRepairForgetsWhatAGroupDeleteTook: a run that deleted a resource
// group in one DELETE and died before forgetting the records inside it
// leaves only the group's intent; the repair forgets those records too.
func TestRepairForgetsWhatAGroupDeleteTook(t *testing.T) {
	st := openLocalT(t, filepath.Join(t.TempDir(), "state.json"))
	ctx := context.Background()
	rg := "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg-demo"
	other := "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg-demo2"
	for _, id := range []string{rg, testID, other} {
		if err := st.Put(ctx, testRecord(id)); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.BeginIntent(ctx, Intent{ID: rg, Op: OpDelete}); err != nil {
		t.Fatal(err)
	}
	if _, err := Repair(ctx, st, RepairFuncs{Get: func(context.Context, string, string) (map[string]any, string, bool, error) {
		return nil, "", false, nil
	}}); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]bool{rg: false, testID: false, other: true} {
		_, err := st.Get(ctx, id)
		if got := err == nil; got != want {
			t.Errorf("%s recorded = %v, want %v", id, got, want)
		}
	}
}
