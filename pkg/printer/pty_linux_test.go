//go:build linux

package printer

import (
	"bytes"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/internal/ptytest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// onTerminal runs write against the terminal side and returns what a
// terminal emulator would have received.
func onTerminal(t *testing.T, write func(w *os.File)) string {
	t.Helper()
	master, tty := ptytest.Open(t, 90, 40)
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
