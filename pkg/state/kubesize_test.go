package state

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// bigBody is a body whose compressed form is about n bytes (random hex
// compresses to about half).
func bigBody(n int) map[string]any {
	noise := make([]byte, n)
	_, _ = rand.Read(noise)
	return map[string]any{"location": "westeurope", "properties": map[string]any{"blob": hex.EncodeToString(noise)}}
}

// A record that cannot fit its ConfigMap (1 MiB of bodies) is refused
// before anything is sent, naming the resource and the size, and the plan
// can ask beforehand (CheckFits); a record that fits is never refused
// (issue 45 item 6).
func TestKubeRecordTooLargeRefusedBeforeWriting(t *testing.T) {
	e := requireEnv(t)
	ns := newNamespace(t, e)
	ctx := context.Background()
	st := openKubeT(t, e, ns, "big", Options{})
	big := bigBody(640 << 10)
	r := testRecord(testID)
	r.LastApplied, r.Baseline = big, big
	err := st.Put(ctx, r)
	var te *TooLargeError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "stdemo001") || !strings.Contains(err.Error(), "KiB") ||
		!strings.Contains(err.Error(), ConfigMapName("big", testID)) {
		t.Fatalf("Put of a record too large for a ConfigMap = %v, want a *TooLargeError naming the resource, its ConfigMap and the size", err)
	}
	if _, err := e.Clientset.CoreV1().ConfigMaps(ns).Get(ctx, ConfigMapName("big", testID), metav1.GetOptions{}); err == nil {
		t.Errorf("the refused record left a ConfigMap")
	}
	if err := CheckFits(st, testID, big, nil); !IsTooLarge(err) {
		t.Errorf("CheckFits(big) = %v, want *TooLargeError", err)
	}
	// Half of it fits with its intent beside it, and is stored.
	half := bigBody(200 << 10)
	if err := CheckFits(st, testID, half, half); err != nil {
		t.Errorf("CheckFits(half): %v", err)
	}
	r.LastApplied, r.Baseline = half, half
	if err := st.Put(ctx, r); err != nil {
		t.Errorf("Put of a record that fits: %v", err)
	}
}

// A write whose record turns out too large only once Azure answered (B
// larger than the plan could know) leaves an intent; the next run's repair
// must settle it instead of failing on it forever (issue 45 item 6).
func TestKubeRepairSettlesRecordTooLarge(t *testing.T) {
	e := requireEnv(t)
	ns := newNamespace(t, e)
	ctx := context.Background()
	st := openKubeT(t, e, ns, "big", Options{})
	desired := bigBody(640 << 10)
	live := bigBody(640 << 10)
	live["properties"].(map[string]any)["blob"] = desired["properties"].(map[string]any)["blob"].(string)[:1000] + live["properties"].(map[string]any)["blob"].(string)
	get := RepairFuncs{Get: func(context.Context, string, string) (map[string]any, string, bool, error) {
		return live, `W/"2"`, true, nil
	}, Landed: func(Intent, map[string]any) bool { return true }}

	unlock, err := st.Lock(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	rec := testRecord(testID)
	rec.LastApplied, rec.Baseline = desired, nil
	if err := st.BeginIntent(ctx, Intent{ID: testID, Op: OpPut, Type: rec.Type, APIVersion: rec.APIVersion, Record: rec}); err != nil {
		t.Fatal(err)
	}
	// The run records L and B, too large together: refused, the intent stays.
	full := *rec
	full.Baseline = live
	if err := st.Put(ctx, &full); !IsTooLarge(err) {
		t.Fatalf("Put = %v, want *TooLargeError", err)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}

	for run := 1; run <= 2; run++ {
		unlock, err := st.Lock(ctx, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		acts, err := Repair(ctx, st, get)
		if err != nil {
			t.Fatalf("run %d: Repair = %v; the set can never be applied again", run, err)
		}
		if run == 1 && (len(acts) != 1 || !strings.Contains(acts[0].Outcome, "without its baseline")) {
			t.Errorf("run %d: repair actions %+v", run, acts)
		}
		if run == 2 && len(acts) != 0 {
			t.Errorf("run %d: the intent is still there: %+v", run, acts)
		}
		if err := unlock(); err != nil {
			t.Fatal(err)
		}
	}
	got, err := st.Get(ctx, testID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Baseline != nil || got.LastApplied["properties"].(map[string]any)["blob"] != desired["properties"].(map[string]any)["blob"] {
		t.Errorf("recorded: baseline %v, last-applied kept %v", got.Baseline != nil, got.LastApplied != nil)
	}
}

// A compressed value that inflates beyond any record this tool writes is
// refused after reading a little more than the limit, naming its ConfigMap,
// instead of inflating ~1000 times its size (issue 45 item 21).
func TestKubeGzipBombBounded(t *testing.T) {
	e := requireEnv(t)
	ns := newNamespace(t, e)
	ctx := context.Background()
	st := openKubeT(t, e, ns, "bomb", Options{})
	if err := st.Put(ctx, testRecord(testID)); err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
	zero := make([]byte, 1<<20)
	zw.Write([]byte(`{"blob":"`))
	for range 64 { // 64 MiB of zeros, ~64 KiB compressed
		zw.Write(zero)
	}
	zw.Write([]byte(`"}`))
	zw.Close()
	cms := e.Clientset.CoreV1().ConfigMaps(ns)
	name := ConfigMapName("bomb", testID)
	cm, err := cms.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.BinaryData = map[string][]byte{"last-applied.json.gz": z.Bytes()}
	cm.Annotations[AnnLastApplied] = binaryRefPrefix + "last-applied.json.gz"
	if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = st.Get(ctx, testID)
	if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "decompresses to more than") {
		t.Fatalf("Get of a gzip bomb = %v, want an error naming %s and the bound", err, name)
	}
	// The same through an annotation (20 MiB of zeros, beyond the bound).
	var small bytes.Buffer
	zw, _ = gzip.NewWriterLevel(&small, gzip.BestCompression)
	for range 20 {
		zw.Write(zero)
	}
	zw.Close()
	err = decodeValue(gzipPrefix+base64.StdEncoding.EncodeToString(small.Bytes()), &corev1.ConfigMap{}, new(map[string]any))
	if err == nil || !strings.Contains(err.Error(), "decompresses to more than") {
		t.Errorf("an annotation bomb: %v", err)
	}
}
