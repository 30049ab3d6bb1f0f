//go:build unix

package cli

import (
	"io"
	"syscall"
	"testing"
	"time"
)

// catchExit makes the process exit hand its code to the returned channel
// instead, until the test ends.
func catchExit(t *testing.T) <-chan int {
	exited := make(chan int, 1)
	exit = func(code int) { exited <- code }
	t.Cleanup(func() { exit = osExit })
	return exited
}

func TestSecondInterruptExitsAt130(t *testing.T) {
	exited := catchExit(t)

	ctx, stop := interruptContext(io.Discard)
	defer stop()
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the first Ctrl-C did not cancel the context")
	}
	select {
	case code := <-exited:
		t.Fatalf("the first Ctrl-C exited (%d); it must only cancel", code)
	default:
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-exited:
		if code != ExitInterrupted {
			t.Errorf("exit %d, want %d", code, ExitInterrupted)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the second signal did not exit")
	}
}
