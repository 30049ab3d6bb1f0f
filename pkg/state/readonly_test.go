package state

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A store opened ReadOnly (shell completion) creates nothing and refuses
// every write, in both backends (issue 45 item 17).
func TestReadOnlyCreatesNothing(t *testing.T) {
	ctx := context.Background()
	check := func(t *testing.T, st Store) {
		t.Helper()
		if recs, err := st.List(ctx); err != nil || len(recs) != 0 {
			t.Errorf("List = %v, %v", recs, err)
		}
		if _, err := st.Lock(ctx, "", 0); !errors.Is(err, ErrReadOnly) {
			t.Errorf("Lock = %v, want ErrReadOnly", err)
		}
		if err := st.Put(ctx, testRecord(testID)); !errors.Is(err, ErrReadOnly) {
			t.Errorf("Put = %v, want ErrReadOnly", err)
		}
		if _, err := st.SecretKey(ctx); !errors.Is(err, ErrReadOnly) {
			t.Errorf("SecretKey = %v, want ErrReadOnly", err)
		}
	}
	t.Run("local", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "absent")
		st, err := Open(ctx, filepath.Join(dir, "state.json"), Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		check(t, st)
		if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("a read-only open created %s (%v)", dir, err)
		}
	})
	t.Run("kubernetes", func(t *testing.T) {
		e := requireEnv(t)
		ns := newNamespace(t, e)
		check(t, openKubeT(t, e, ns, "ro", Options{ReadOnly: true}))
		cms, _ := e.Clientset.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{LabelSelector: LabelSet})
		secs, _ := e.Clientset.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{LabelSelector: LabelSet})
		leases, _ := e.Clientset.CoordinationV1().Leases(ns).List(ctx, metav1.ListOptions{})
		if len(cms.Items)+len(secs.Items)+len(leases.Items) != 0 {
			t.Errorf("a read-only store created objects: %d ConfigMaps, %d Secrets, %d Leases", len(cms.Items), len(secs.Items), len(leases.Items))
		}
	})
}
