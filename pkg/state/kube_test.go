package state

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

func TestKubeConformance(t *testing.T) {
	e := requireEnv(t)
	nsFor := map[string]string{}
	conformance(t, func(t *testing.T) Store {
		ns, ok := nsFor[t.Name()]
		if !ok {
			ns = newNamespace(t, e)
			nsFor[t.Name()] = ns
		}
		return openKubeT(t, e, ns, "demo", Options{})
	})
}

func TestKubeObjectsLayout(t *testing.T) {
	e := requireEnv(t)
	ns := newNamespace(t, e)
	ctx := context.Background()
	st := openKubeT(t, e, ns, "prod", Options{})
	other := openKubeT(t, e, ns, "staging", Options{})
	if err := st.Put(ctx, testRecord(testID)); err != nil {
		t.Fatal(err)
	}
	if err := other.Put(ctx, testRecord(testID)); err != nil {
		t.Fatal(err)
	}
	cm, err := e.Clientset.CoreV1().ConfigMaps(ns).Get(ctx, ConfigMapName("prod", strings.ToUpper(testID)), metav1.GetOptions{})
	if err != nil {
		t.Fatalf("ConfigMap name must derive from the lower-cased ID: %v", err)
	}
	if cm.Labels[LabelSet] != "prod" || cm.Annotations[AnnID] != testID || cm.Annotations[AnnLastApplied] == "" || cm.Annotations[AnnBaseline] == "" {
		t.Fatalf("ConfigMap labels/annotations: %v %v", cm.Labels, cm.Annotations)
	}
	// Sets sharing a namespace stay apart.
	if l, _ := st.List(ctx); len(l) != 1 {
		t.Fatalf("set prod sees %d records, want 1", len(l))
	}
	if err := st.Delete(ctx, testID); err != nil {
		t.Fatal(err)
	}
	if l, _ := other.List(ctx); len(l) != 1 {
		t.Fatalf("deleting from prod touched staging: %d records left", len(l))
	}
	if _, err := Open(ctx, KubernetesScheme+"no-such-ns/x", Options{KubeConfig: kubeConfigFlags(e.Kubeconfig)}); err != nil {
		t.Fatalf("Open on an absent namespace should succeed (it only lists): %v", err)
	}
	missing := openKubeT(t, e, "no-such-ns", "x", Options{})
	if err := missing.Put(ctx, testRecord(testID)); err == nil || !strings.Contains(err.Error(), "kubectl create namespace no-such-ns") {
		t.Fatalf("writing to a missing namespace should say how to create it: %v", err)
	}
}

func TestKubeLargeRecordsStayWithinAnnotationLimits(t *testing.T) {
	e := requireEnv(t)
	ns := newNamespace(t, e)
	ctx := context.Background()
	st := openKubeT(t, e, ns, "big", Options{})
	compressible := strings.Repeat("10.0.0.0/24,", 30000) // ~360 KB, compresses well
	noise := make([]byte, 150<<10)                        // ~300 KB hex, compresses to ~150 KB
	_, _ = rand.Read(noise)
	cases := map[string]string{"compressible": compressible, "incompressible": hex.EncodeToString(noise)}
	for name, v := range cases {
		id := strings.Replace(testID, "stdemo001", name, 1)
		r := testRecord(id)
		r.LastApplied["properties"] = map[string]any{"blob": v}
		r.Baseline["properties"] = map[string]any{"blob": v}
		if err := st.Put(ctx, r); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := st.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if got.LastApplied["properties"].(map[string]any)["blob"] != v || got.Baseline["properties"].(map[string]any)["blob"] != v {
			t.Fatalf("%s: large value not round-tripped", name)
		}
		cm, _ := e.Clientset.CoreV1().ConfigMaps(ns).Get(ctx, ConfigMapName("big", id), metav1.GetOptions{})
		total := 0
		for k, a := range cm.Annotations {
			total += len(k) + len(a)
		}
		if total > 256<<10 {
			t.Fatalf("%s: annotations total %d bytes", name, total)
		}
		t.Logf("%s: %d KB of JSON stored as %d KB of annotations + %d binaryData entries", name, 2*len(v)>>10, total>>10, len(cm.BinaryData))
	}
}

// Two appliers on one set: the second waits for the first, and fails naming
// it when the first holds on longer than the timeout (in conformance). Here
// the holder is a real process killed with SIGKILL: its Lease is neither
// released nor renewed, and the next run takes over once it expires, but
// never while the holder is alive.
func TestKubeKilledHolderLeaseTakenOver(t *testing.T) {
	e := requireEnv(t)
	ns := newNamespace(t, e)
	ctx := context.Background()
	const lease = 2 * time.Second
	ref := KubernetesScheme + ns + "/ci"
	holder := startHelper(t, "holder", ref, []string{"HELPER_KUBECONFIG=" + e.Kubeconfig, "HELPER_LEASE=" + lease.String()}, "LOCKED")

	st := openKubeT(t, e, ns, "ci", Options{LeaseDuration: lease})
	// Alive and renewing: three lease durations are not enough to take it.
	_, err := st.Lock(ctx, "second-run", 3*lease)
	var le *LockedError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "holder-helper") {
		t.Fatalf("a live holder's lease must not be taken over; want LockedError naming it, got %v", err)
	}

	if err := holder.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = holder.Wait()
	killed := time.Now()
	if h, _ := st.(LockInspector).LockHolder(ctx); h == nil || !strings.Contains(h.Holder, "holder-helper") {
		t.Fatalf("after kill -9 the Lease should still name the dead holder, got %v", h)
	}
	unlock, err := st.Lock(ctx, "second-run", 30*time.Second)
	if err != nil {
		t.Fatalf("next run could not take over the dead holder's lease: %v", err)
	}
	waited := time.Since(killed)
	if waited < lease-500*time.Millisecond {
		t.Fatalf("took over after %s, before the %s lease could expire", waited, lease)
	}
	l, err := e.Clientset.CoordinationV1().Leases(ns).Get(ctx, "azstate-ci-lock", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(*l.Spec.HolderIdentity, "second-run") || l.Spec.LeaseTransitions == nil || *l.Spec.LeaseTransitions < 1 {
		t.Fatalf("lease after takeover: holder %q transitions %v", *l.Spec.HolderIdentity, l.Spec.LeaseTransitions)
	}
	t.Logf("lease of the killed holder taken over %s after the kill (lease %s)", waited.Round(time.Millisecond), lease)

	// Held by us, it is renewed: a third run cannot take it over for a
	// multiple of the duration.
	third := openKubeT(t, e, ns, "ci", Options{LeaseDuration: lease})
	if _, err := third.Lock(ctx, "third-run", 3*lease); !errors.As(err, &le) {
		t.Fatalf("renewed lease was taken over: %v", err)
	}
	if err := st.Put(ctx, testRecord(testID)); err != nil {
		t.Fatalf("holder's write failed: %v", err)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	// Released: the next run gets it at once.
	start := time.Now()
	u3, err := third.Lock(ctx, "third-run", 5*time.Second)
	if err != nil || time.Since(start) > time.Second {
		t.Fatalf("after release the lock should be free at once: %v after %s", err, time.Since(start))
	}
	u3()
}

// A run that keeps writing after another run took over its expired lease
// must be stopped, not interleave with the new holder.
func TestKubeLostLeaseStopsWrites(t *testing.T) {
	e := requireEnv(t)
	ns := newNamespace(t, e)
	ctx := context.Background()
	a := openKubeT(t, e, ns, "s", Options{LeaseDuration: time.Second})
	if _, err := a.Lock(ctx, "a", time.Second); err != nil {
		t.Fatal(err)
	}
	// Somebody (a user with `state unlock`) releases it and b takes it.
	b := openKubeT(t, e, ns, "s", Options{})
	if err := Unlock(ctx, &bytes.Buffer{}, b); err != nil {
		t.Fatal(err)
	}
	ub, err := b.Lock(ctx, "b", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer ub()
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := a.Put(ctx, testRecord(testID))
		if errors.Is(err, ErrLockLost) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a kept writing after losing its lease: last err %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Writers racing on one ConfigMap get resourceVersion conflicts; every one
// must be retried on fresh data, so no serial increment is lost.
func TestKubeResourceVersionConflictsRetried(t *testing.T) {
	e := requireEnv(t)
	ns := newNamespace(t, e)
	ctx := context.Background()
	stores := []Store{openKubeT(t, e, ns, "race", Options{}), openKubeT(t, e, ns, "race", Options{})}
	const perStore = 12
	var wg sync.WaitGroup
	errs := make(chan error, 2*perStore)
	for _, st := range stores {
		for i := range perStore {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := testRecord(testID)
				r.Etag = fmt.Sprint(i)
				if i%4 == 0 {
					if err := st.BeginIntent(ctx, Intent{ID: testID, Op: OpPatch, Record: r}); err != nil {
						errs <- err
						return
					}
				}
				errs <- st.Put(ctx, r)
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	r, err := stores[0].Get(ctx, testID)
	if err != nil {
		t.Fatal(err)
	}
	conflicts := stores[0].(*kubeStore).conflicts.Load() + stores[1].(*kubeStore).conflicts.Load()
	if r.Serial != 2*perStore {
		t.Fatalf("serial %d after %d concurrent Puts: an update was lost", r.Serial, 2*perStore)
	}
	if conflicts == 0 {
		t.Fatal("no resourceVersion conflict happened: the test did not exercise retries")
	}
	t.Logf("%d concurrent writes, %d conflicts retried", 2*perStore, conflicts)
}

func TestKubeList1000Records(t *testing.T) {
	e := requireEnv(t)
	ns := newNamespace(t, e)
	ctx := context.Background()
	st := openKubeT(t, e, ns, "thousand", Options{})
	// As in an apply: writes under the run lock.
	unlock, err := st.Lock(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	const n = 1000
	start := time.Now()
	writeConcurrently(t, n, 16, func(i int) error {
		r := testRecord(spreadVnetID(i))
		r.LastApplied["properties"] = map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{fmt.Sprintf("10.%d.%d.0/24", i/256, i%256)}}}
		return st.Put(ctx, r)
	})
	wrote := time.Since(start)
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	recs, err := st.List(ctx)
	listed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != n {
		t.Fatalf("List returned %d records, want %d", len(recs), n)
	}
	for i := 1; i < len(recs); i++ {
		if armid.Key(recs[i-1].ID) >= armid.Key(recs[i].ID) {
			t.Fatalf("List not sorted at %d", i)
		}
	}
	if listed > 30*time.Second {
		t.Fatalf("listing %d records took %s", n, listed)
	}
	fmt.Fprintf(os.Stderr, "TIMING kubernetes backend: put %d records in %s (16 workers), listed them in %s\n", n, wrote.Round(time.Millisecond), listed.Round(time.Millisecond))
}

func TestKubeSecretsNeverStoredInClear(t *testing.T) {
	e := requireEnv(t)
	ns := newNamespace(t, e)
	reg := secret.NewRegistry()
	st := openKubeT(t, e, ns, "sec", Options{Secrets: reg})
	assertNoPlantedSecret(t, st, reg, func() [][]byte {
		ctx := context.Background()
		var all [][]byte
		cms, err := e.Clientset.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range cms.Items {
			cm := &cms.Items[i]
			b, _ := json.Marshal(cm)
			all = append(all, b)
			// Compressed values would hide a clear secret from a byte scan:
			// scan their decoded form too.
			// (The journal ConfigMap keeps intents in its data.)
			for _, v := range mergedValues(cm.Annotations, cm.Data) {
				var x any
				if strings.HasPrefix(v, gzipPrefix) || strings.HasPrefix(v, binaryRefPrefix) {
					if err := decodeValue(v, cm, &x); err != nil {
						t.Fatal(err)
					}
					d, _ := json.Marshal(x)
					all = append(all, d)
				}
			}
		}
		secrets, err := e.Clientset.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		leases, err := e.Clientset.CoordinationV1().Leases(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, obj := range []any{secrets, leases} {
			b, _ := json.Marshal(obj)
			all = append(all, b)
		}
		// And every byte etcd keeps on disk (WAL and database).
		err = filepath.WalkDir(e.EtcdDataDir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			if err == nil {
				all = append(all, b)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return all
	})
}

func TestKubeCommands(t *testing.T) {
	e := requireEnv(t)
	ns := newNamespace(t, e)
	ctx := context.Background()
	st := openKubeT(t, e, ns, "cmd", Options{})
	if err := st.Put(ctx, testRecord(testID)); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := List(ctx, &out, st, ""); err != nil || !strings.Contains(out.String(), testID) {
		t.Fatalf("List: %v\n%s", err, out.String())
	}
	other := openKubeT(t, e, ns, "cmd", Options{})
	if _, err := other.Lock(ctx, "stuck-ci-job", time.Second); err != nil {
		t.Fatal(err)
	}
	if err := Remove(ctx, openKubeT(t, e, ns, "cmd", Options{LockTimeout: 300 * time.Millisecond}), testID); err == nil || !strings.Contains(err.Error(), "stuck-ci-job") {
		t.Fatalf("rm must take the lock and name its holder: %v", err)
	}
	out.Reset()
	if err := Unlock(ctx, &out, st); err != nil || !strings.Contains(out.String(), "stuck-ci-job") {
		t.Fatalf("Unlock: %v %q", err, out.String())
	}
	if err := Remove(ctx, st, strings.ToUpper(testID)); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(ctx, testID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after rm: %v", err)
	}
	cms, _ := e.Clientset.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{LabelSelector: LabelSet + "=cmd"})
	if len(cms.Items) != 0 {
		t.Fatalf("rm left %d ConfigMaps", len(cms.Items))
	}
}

func TestKubeWriteWithoutLockWaitsForHolder(t *testing.T) {
	e := requireEnv(t)
	ns := newNamespace(t, e)
	ctx := context.Background()
	a := openKubeT(t, e, ns, "w", Options{})
	b := openKubeT(t, e, ns, "w", Options{LockTimeout: 500 * time.Millisecond})
	unlock, err := a.Lock(ctx, "apply-in-progress", 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Put(ctx, testRecord(testID)); err == nil || !strings.Contains(err.Error(), "apply-in-progress") {
		t.Fatalf("a write from another run must wait for the holder, then fail naming it: %v", err)
	}
	if _, err := b.List(ctx); err != nil {
		t.Fatalf("reads need no lock: %v", err)
	}
	unlock()
	if err := b.Put(ctx, testRecord(testID)); err != nil {
		t.Fatalf("after release: %v", err)
	}
}

func mergedValues(ms ...map[string]string) []string {
	var out []string
	for _, m := range ms {
		for _, v := range m {
			out = append(out, v)
		}
	}
	return out
}
