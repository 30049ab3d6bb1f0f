//go:build linux

package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/internal/ptytest"
	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
)

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

	master, tty := ptytest.Open(t, 120, 40)
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
