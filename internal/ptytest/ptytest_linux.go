//go:build linux

// Package ptytest opens pseudo-terminals for tests that must see what a
// program writes to a real terminal (colour, redraws, width detection).
package ptytest

import (
	"fmt"
	"os"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// Open returns both ends of a cols×rows pseudo-terminal, closed when the
// test ends. A machine without pseudo-terminals fails the test rather than
// skipping it: a terminal check that did not run has not passed.
func Open(t testing.TB, cols, rows uint16) (master, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("no pseudo-terminals on this machine: %v", err)
	}
	fail := func(format string, args ...any) {
		m.Close()
		t.Helper()
		t.Fatalf(format, args...)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		fail("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		fail("ptsname: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		fail("opening the terminal side: %v", err)
	}
	if err := unix.IoctlSetWinsize(int(s.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Col: cols, Row: rows}); err != nil {
		s.Close()
		fail("setting the window size: %v", err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}
