package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/printer"
)

// waitNotices tells the user when requests wait for ARM's budget, so a plan
// that takes seconds instead of a fraction of one says why. The ARM client
// exists before the live progress view does: until a view is attached, a
// wait is one plain line on stderr.
type waitNotices struct {
	mu   sync.Mutex
	out  io.Writer
	view printer.Notifier
	// retries drops a retry line that repeats within a second (requests
	// in parallel failing alike).
	retries arm.RetryNotices
}

// attach sends later waits to a live view; nil goes back to plain lines.
func (w *waitNotices) attach(n printer.Notifier) {
	w.mu.Lock()
	w.view = n
	w.mu.Unlock()
}

// retry is the ARM client's OnRetry: an endpoint that refuses or fails
// is retried for minutes before the command gives up, and says so on each
// round instead of hanging silently.
func (w *waitNotices) retry(e arm.RetryEvent) {
	if line, ok := w.retries.Line(e); ok {
		w.say(line)
	}
}

// notify is the ARM client's OnWait: called once per stall, from request
// goroutines, so it only formats and hands over.
func (w *waitNotices) notify(e arm.WaitEvent) {
	msg := printer.NoticeWait(strings.TrimSuffix(e.Class, "s"), e.Wait) + " (" + e.Bucket()
	if e.Throttled {
		msg += ", ARM answered 429"
	}
	msg += ")"
	w.say(msg)
}

// say hands one line to the live view, or writes it on its own.
func (w *waitNotices) say(msg string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.view != nil:
		w.view.Notice(msg)
	case w.out != nil:
		fmt.Fprintln(w.out, msg)
	}
}
