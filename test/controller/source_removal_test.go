package controller

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/emulator/emulatortest"
	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

// TestRemovedManifestIsNeverDeleted: a manifest taken out of a dir://
// source stops being observed and nothing is deleted or forgotten: no
// DELETE, the resource stays live and in state. Only a Resource object
// deleted with deletion policy delete deletes (resources_delete_test.go).
func TestRemovedManifestIsNeverDeleted(t *testing.T) {
	f := newFront(t, harness.FastOptions())
	dir, statePath := managed(t, f, "rm", 1, 3)
	l := startLoop(t, f.URL, dir, statePath, fastLoop())
	if st, ok := waitState(t, l, 20*time.Second, inSync(4)); !ok {
		t.Fatalf("not in sync: %+v", st.Resources)
	}
	gone := identity("rm", 0, 2)
	docs := strings.Split(readFile(t, filepath.Join(dir, "groups.yaml")), "---\n")
	var kept []string
	for _, d := range docs {
		if !strings.Contains(d, "name: id-rm-00-0002\n") {
			kept = append(kept, d)
		}
	}
	if len(kept) != len(docs)-1 {
		t.Fatalf("the fixture changed: %d documents", len(docs))
	}
	if err := os.WriteFile(filepath.Join(dir, "groups.yaml"), []byte(strings.Join(kept, "---\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, ok := waitState(t, l, 20*time.Second, inSync(3)); !ok {
		t.Fatalf("the removal was not read: %+v", st.Resources)
	}
	time.Sleep(time.Second) // sweeps go on
	if n := f.Count(emulatortest.ClientLoop, "DELETE"); n != 0 {
		t.Errorf("%d DELETEs after a manifest was removed", n)
	}
	if !f.arm.LiveIDs()[strings.ToLower(gone)] {
		t.Error("the resource of the removed manifest is gone from Azure")
	}
	if _, err := l.ctl.Store.Get(t.Context(), gone); err != nil {
		t.Errorf("the removed manifest's resource was forgotten from state: %v", err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
