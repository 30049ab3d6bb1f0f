//go:build unix

package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runBounded runs the CLI and fails the test if it has not returned in
// 20 seconds: a FIFO read by mistake blocks for ever.
func runBounded(t *testing.T, e *env, args ...string) (string, string, int) {
	t.Helper()
	type res struct {
		out, errOut string
		code        int
	}
	done := make(chan res, 1)
	go func() {
		o, eo, c := e.run(args...)
		done <- res{o, eo, c}
	}()
	select {
	case r := <-done:
		return r.out, r.errOut, r.code
	case <-time.After(20 * time.Second):
		t.Fatalf("kubectl azure %s did not return: it blocked on its input", strings.Join(args, " "))
		return "", "", 0
	}
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
}

// A saved plan, a status file and a file in a -f directory that are FIFOs
// are refused at once with exit 2 naming the path; nothing is written.
func TestFIFOInputsRefused(t *testing.T) {
	e := newEnv(t, nil)
	fifo := filepath.Join(t.TempDir(), "plan.json")
	mkfifo(t, fifo)
	inDir := filepath.Join(e.dir, "zz-pipe.yaml")
	mkfifo(t, inDir)
	for _, c := range []struct {
		name string
		args []string
		path string
	}{
		{"saved plan", []string{"apply", fifo}, fifo},
		{"status file", []string{"status", "--status-file", fifo}, fifo},
		{"-f directory", []string{"diff", "-f", e.dir}, inDir},
		{"-f directory, apply", []string{"apply", "--yes", "-f", e.dir}, inDir},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := runBounded(t, e, c.args...)
			if code != 2 {
				t.Fatalf("exit %d, want 2\n%s%s", code, out, errOut)
			}
			if !strings.Contains(out+errOut, c.path) || !strings.Contains(out+errOut, "named pipe") {
				t.Errorf("the message does not name %s as a named pipe:\n%s%s", c.path, out, errOut)
			}
			if w := e.writes(); w != 0 {
				t.Errorf("%d writes reached ARM", w)
			}
			if _, err := os.Stat(e.state); err == nil {
				t.Errorf("state was written")
			}
		})
	}
}

// A symbolic link in a -f directory that leads out of it is refused, and
// nothing of what it points at is quoted.
func TestSymlinkOutOfTreeRefused(t *testing.T) {
	e := newEnv(t, nil)
	outside := filepath.Join(t.TempDir(), "secrets.yaml")
	const secret = "hunter2-do-not-print"
	if err := os.WriteFile(outside, []byte("password: "+secret+"\napiVersion: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(e.dir, "leak.yaml")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runBounded(t, e, "diff", "-f", e.dir)
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%s%s", code, out, errOut)
	}
	if strings.Contains(out+errOut, secret) || strings.Contains(out+errOut, "password") {
		t.Errorf("the target's content was quoted:\n%s%s", out, errOut)
	}
	if !strings.Contains(out+errOut, link) || !strings.Contains(out+errOut, "outside") {
		t.Errorf("the message does not name the link as leading outside:\n%s%s", out, errOut)
	}

	// A link that stays inside the tree is read as the file it names.
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(e.dir, "parts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(e.dir, "identity.yaml"), filepath.Join(e.dir, "parts", "identity.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("parts", "identity.yaml"), filepath.Join(e.dir, "identity.yaml")); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := runBounded(t, e, "diff", "-f", e.dir); code != 1 {
		t.Fatalf("a link inside the tree: exit %d, want 1 (changes)\n%s", code, errOut)
	}
}
