package reconcile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestStatusInSync(t *testing.T) {
	for _, tc := range []struct {
		name   string
		states []string
		want   bool
	}{
		{"nothing observed", nil, true},
		{"all in sync", []string{StateInSync, StateInSync}, true},
		{"one drifted", []string{StateInSync, StateDrifted}, false},
		{"one correcting", []string{StateCorrecting}, false},
		{"one in error", []string{StateInSync, StateError}, false},
	} {
		st := &Status{}
		for _, s := range tc.states {
			st.Resources = append(st.Resources, ResourceStatus{State: s})
		}
		if got := st.InSync(); got != tc.want {
			t.Errorf("%s: InSync = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestStatusFileIsPrivate: the status file quotes resource IDs, changes
// and messages, as state does; it is written 0600 like state, whatever
// the umask, and keeps that mode when replaced.
func TestStatusFileIsPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "status.json")
	for range 2 {
		if err := WriteStatus(path, &Status{Policy: PolicyDetect}); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if m := fi.Mode().Perm(); m != 0o600 {
			t.Fatalf("status file mode %o, want 600", m)
		}
	}
}
