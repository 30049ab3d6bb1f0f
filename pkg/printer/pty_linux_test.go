//go:build linux

package printer

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// openPTY returns both ends of a pseudo-terminal of cols×rows, so the
// terminal detection ("auto") is exercised with a real terminal device.
func openPTY(t *testing.T, cols, rows uint16) (master, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Fatalf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Fatalf("ptsname: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Fatalf("opening the terminal side: %v", err)
	}
	if err := unix.IoctlSetWinsize(int(s.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Col: cols, Row: rows}); err != nil {
		t.Fatalf("setting the window size: %v", err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

// onTerminal runs write against the terminal side and returns what a
// terminal emulator would have received.
func onTerminal(t *testing.T, write func(w *os.File)) string {
	t.Helper()
	master, tty := openPTY(t, 90, 40)
	got := make(chan []byte)
	go func() {
		var buf bytes.Buffer
		io.Copy(&buf, master) // ends with EIO once the terminal side closes
		got <- buf.Bytes()
	}()
	write(tty)
	tty.Close()
	return string(<-got)
}

func TestAutoOnTerminal(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	t.Setenv("TERM", "xterm-256color")
	out := onTerminal(t, func(w *os.File) {
		if err := Print(w, samplePlan(), Options{}); err != nil {
			t.Error(err)
		}
	})
	if !strings.Contains(out, "\x1b[32m") {
		t.Errorf("auto colour on a terminal printed no colour: %q", out)
	}
	// Querying the terminal (e.g. OSC 11 for the background colour) would
	// hang or leak a reply into the user's shell when stdin is not ours.
	if strings.Contains(out, "\x1b]") || strings.Contains(out, "\x1b[6n") {
		t.Errorf("the printer queried the terminal: %q", out)
	}
	// The window is 90 columns: the plan fits it rather than the default 100.
	for _, line := range strings.Split(out, "\n") {
		if w := ansiWidth(line); w > 90 {
			t.Errorf("line wider than the 90-column terminal (%d): %q", w, line)
		}
	}

	out = onTerminal(t, func(w *os.File) {
		p := NewProgress(w, Options{})
		p.Event(stID, "", plan.StatusWriting, "PUT")
		p.Event(stID, "", plan.StatusDone, "")
		p.Close()
	})
	if !regexp.MustCompile(`\x1b\[\d+A`).MatchString(out) {
		t.Errorf("auto progress on a terminal did not redraw in place: %q", out)
	}
}

func TestNoColorOnTerminal(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	t.Setenv("TERM", "xterm-256color")
	out := onTerminal(t, func(w *os.File) {
		if err := Print(w, samplePlan(), Options{Explain: true}); err != nil {
			t.Error(err)
		}
		p := NewProgress(w, Options{})
		p.Event(stID, "", plan.StatusWriting, "PUT")
		p.Event(stID, "", plan.StatusFailed, "409 Conflict")
		p.Close()
	})
	if strings.ContainsRune(out, 0x1b) {
		t.Errorf("NO_COLOR on a terminal still wrote escape codes: %q", out)
	}
	if !strings.Contains(out, "writing  Microsoft.Storage/storageAccounts/stdemo001 (PUT)") {
		t.Errorf("want plain progress lines, got %q", out)
	}
}

// On a real 90-column terminal an NSG rule added outside the tool is shown
// whole, one field per line, within the width, and nothing is cut.
func TestAddedItemOnTerminal(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	t.Setenv("COLUMNS", "")
	out := onTerminal(t, func(w *os.File) {
		if err := Print(w, nsgDriftPlan(), Options{}); err != nil {
			t.Error(err)
		}
	})
	plain := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(out, "")
	for _, want := range []string{"priority: 4000", `sourceAddressPrefix: "*"`, `destinationPortRange: "22"`} {
		if !strings.Contains(plain, want) {
			t.Errorf("%q not shown on the terminal:\n%s", want, plain)
		}
	}
	if strings.Contains(plain, "…") {
		t.Errorf("a value was cut on the terminal:\n%s", plain)
	}
	for _, l := range strings.Split(strings.ReplaceAll(plain, "\r", ""), "\n") {
		if len([]rune(l)) > 90 {
			t.Errorf("line wider than the terminal: %q", l)
		}
	}
}
