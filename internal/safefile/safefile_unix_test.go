//go:build unix

package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// within fails the test if fn blocks: a FIFO with no writer must be
// refused at once, not waited on.
func within(t *testing.T, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		t.Fatal("blocked on a FIFO")
		return nil
	}
}

func TestOpenRefusesFIFOWithoutBlocking(t *testing.T) {
	p := filepath.Join(t.TempDir(), "plan.json")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	err := within(t, func() error { _, err := ReadFile(p, 1<<20); return err })
	var nr *NotRegularError
	if !errors.As(err, &nr) || nr.Path != p || !strings.Contains(err.Error(), "named pipe") {
		t.Fatalf("got %v, want a NotRegularError naming %s as a named pipe", err, p)
	}
}

func TestOpenRefusesDevices(t *testing.T) {
	for _, dev := range []string{"/dev/zero", "/dev/null"} {
		if _, err := os.Stat(dev); err != nil {
			continue
		}
		_, err := ReadFile(dev, 1<<20)
		if !IsNotRegular(err) || !strings.Contains(err.Error(), "character device") {
			t.Errorf("%s: got %v, want it refused as a character device", dev, err)
		}
	}
}

func TestReadFileBounds(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadFile(p, 10); err != nil || string(got) != "0123456789" {
		t.Fatalf("ReadFile at the bound = %q, %v", got, err)
	}
	var tl *TooLargeError
	if _, err := ReadFile(p, 9); !errors.As(err, &tl) || tl.Limit != 9 {
		t.Fatalf("ReadFile beyond the bound: %v, want TooLargeError", err)
	}
}

func TestOpenNoFollowRefusesLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "t")
	link := filepath.Join(dir, "l")
	if err := os.WriteFile(target, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if f, err := OpenNoFollow(link); err == nil {
		f.Close()
		t.Fatal("OpenNoFollow followed a symbolic link")
	}
	f, err := Open(link)
	if err != nil {
		t.Fatalf("Open of a link to a regular file: %v", err)
	}
	f.Close()
}
