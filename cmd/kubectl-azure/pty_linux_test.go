//go:build linux

package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
)

// openPTY returns the two ends of a cols×rows pseudo-terminal.
func openPTY(t *testing.T, cols, rows uint16) (master, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("no pseudo-terminals on this machine: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("ptsname: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("opening the terminal side: %v", err)
	}
	if err := unix.IoctlSetWinsize(int(s.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Col: cols, Row: rows}); err != nil {
		t.Fatalf("window size: %v", err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

// The real binary on a terminal: a coloured plan and a live progress table
// redrawn in place; piped or with NO_COLOR: not one escape code.
func TestBinaryOnTerminalAndPiped(t *testing.T) {
	bin := buildBinary(t)
	opts := emulator.DefaultOptions()
	opts.LRODuration = 1500 * time.Millisecond // long enough for redraws while polling
	srv, err := emulator.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	run := func(stdout *os.File, env []string, state string) *exec.Cmd {
		cmd := exec.Command(bin, "--endpoint", srv.URL(), "--subscription", "00000000-0000-0000-0000-0000000000f1",
			"--state", state, "apply", "--yes", "-f", filepath.Join("..", "..", "testdata", "landing-zone"))
		cmd.Env = append(os.Environ(), env...)
		cmd.Stdout, cmd.Stderr = stdout, stdout
		return cmd
	}

	master, tty := openPTY(t, 120, 40)
	got := make(chan string)
	go func() {
		var buf bytes.Buffer
		io.Copy(&buf, master) // ends with EIO when the terminal side closes
		got <- buf.String()
	}()
	cmd := run(tty, []string{"TERM=xterm-256color", "NO_COLOR="}, filepath.Join(t.TempDir(), "state.json"))
	if err := cmd.Run(); err != nil {
		t.Fatalf("apply on a terminal: %v", err)
	}
	tty.Close()
	out := <-got
	if !regexp.MustCompile(`\x1b\[[0-9;]*m`).MatchString(out) {
		t.Errorf("no colour on a terminal:\n%q", out)
	}
	if !regexp.MustCompile(`\x1b\[[0-9]+A`).MatchString(out) {
		t.Errorf("progress was not redrawn in place (no cursor-up):\n%q", out)
	}
	if !strings.Contains(out, "Apply complete") {
		t.Errorf("no outcome summary:\n%q", out)
	}

	srv.Reset()
	for _, env := range [][]string{{"NO_COLOR="}, {"NO_COLOR=1", "TERM=xterm-256color"}} {
		f, err := os.Create(filepath.Join(t.TempDir(), "out.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if err := run(f, env, filepath.Join(t.TempDir(), "state.json")).Run(); err != nil {
			t.Fatalf("apply piped %v: %v", env, err)
		}
		f.Close()
		data, _ := os.ReadFile(f.Name())
		if bytes.Contains(data, []byte("\x1b")) {
			t.Errorf("escape codes with %v when not on a terminal:\n%q", env, data)
		}
		if !bytes.Contains(data, []byte(" writing ")) {
			t.Errorf("no plain progress lines with %v:\n%s", env, data)
		}
		srv.Reset()
	}
}
