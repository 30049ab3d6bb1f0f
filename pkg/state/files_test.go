//go:build unix

package state

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// within fails the test when fn does not return in time (a read blocked
// on a FIFO, or one that never ends).
func within(t *testing.T, d time.Duration, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("did not return within %s", d)
		return nil
	}
}

// TestOnlyRegularFiles: a state path, journal, key or lock that is a
// symbolic link, a FIFO or a device is refused and never written through;
// reads are bounded (issue 27 item 10).
func TestOnlyRegularFiles(t *testing.T) {
	ctx := context.Background()
	victimBody := []byte("someone else's file\n")
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, state, victim string)
	}{
		{"state is a symlink", func(t *testing.T, state, victim string) { must(t, os.Symlink(victim, state)) }},
		{"state is a FIFO", func(t *testing.T, state, _ string) { must(t, syscall.Mkfifo(state, 0o600)) }},
		{"state is a device", func(t *testing.T, state, _ string) { must(t, os.Symlink("/dev/null", state)) }},
		{"journal is a symlink", func(t *testing.T, state, victim string) { must(t, os.Symlink(victim, state+".journal")) }},
		{"backup is a symlink", func(t *testing.T, state, victim string) { must(t, os.Symlink(victim, state+".backup")) }},
		{"key links to /dev/zero", func(t *testing.T, state, _ string) { must(t, os.Symlink("/dev/zero", state+".key")) }},
		{"key is a FIFO", func(t *testing.T, state, _ string) { must(t, syscall.Mkfifo(state+".key", 0o600)) }},
		{"lock is a symlink", func(t *testing.T, state, victim string) { must(t, os.Symlink(victim, state+".lock")) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			state, victim := filepath.Join(dir, "state.json"), filepath.Join(dir, "victim")
			must(t, os.WriteFile(victim, victimBody, 0o600))
			tc.setup(t, state, victim)
			err := within(t, 5*time.Second, func() error {
				st, err := Open(ctx, state, Options{})
				if err != nil {
					return err
				}
				defer st.Close()
				if _, err := st.SecretKey(ctx); err != nil {
					return err
				}
				unlock, err := st.Lock(ctx, "", time.Second)
				if err != nil {
					return err
				}
				defer unlock()
				return st.Put(ctx, testRecord(testID))
			})
			if err == nil {
				t.Fatal("the store wrote through a path that is not a regular file")
			}
			if b, _ := os.ReadFile(victim); string(b) != string(victimBody) {
				t.Fatalf("the link's target was changed: %q", b)
			}
			if fi, lerr := os.Lstat(state); lerr == nil && fi.Mode().IsRegular() && tc.name != "journal is a symlink" && tc.name != "backup is a symlink" && tc.name != "lock is a symlink" && tc.name[:3] != "key" {
				t.Fatalf("the state path was replaced by a regular file")
			}
			t.Logf("refused: %v", err)
		})
	}
	t.Run("oversized key", func(t *testing.T) {
		dir := t.TempDir()
		state := filepath.Join(dir, "state.json")
		must(t, os.WriteFile(state+".key", make([]byte, 2<<20), 0o600))
		st, err := Open(ctx, state, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if _, err := st.SecretKey(ctx); err == nil {
			t.Fatal("a 2 MB key file was read")
		}
	})
	t.Run("--state /dev/null", func(t *testing.T) {
		// Open only: it must refuse before anything could be written.
		st, err := Open(ctx, "/dev/null", Options{})
		if err == nil {
			st.Close()
			t.Fatal("/dev/null was opened as a state")
		}
		if fi, _ := os.Lstat("/dev/null"); fi.Mode()&os.ModeCharDevice == 0 {
			t.Fatal("/dev/null is no longer a device")
		}
	})
	t.Run("FormatError for a device", func(t *testing.T) {
		dir := t.TempDir()
		state := filepath.Join(dir, "state.json")
		must(t, os.Symlink("/dev/null", state))
		_, err := Open(ctx, state, Options{})
		var fe *FormatError
		if !errors.As(err, &fe) {
			t.Fatalf("err = %v, want a *FormatError (exit 2)", err)
		}
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
