package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
)

type noticeRecorder struct{ got []string }

func (n *noticeRecorder) Notice(msg string) { n.got = append(n.got, msg) }

// TestWaitNotices: a wait for ARM's budget is a plain line until a live view
// is attached, then a notice in that view, naming how long and which bucket.
func TestWaitNotices(t *testing.T) {
	var out bytes.Buffer
	w := waitNotices{out: &out}
	w.notify(arm.WaitEvent{Subscription: "s", Class: "reads", Wait: 4 * time.Second})
	if got := out.String(); !strings.Contains(got, "waiting for ARM's read budget: 4s (subscription reads)") {
		t.Fatalf("plain line = %q", got)
	}
	view := &noticeRecorder{}
	w.attach(view)
	w.notify(arm.WaitEvent{Subscription: "s", Class: "writes", Provider: "Microsoft.Compute", Wait: 2500 * time.Millisecond, Throttled: true})
	if len(view.got) != 1 || !strings.Contains(view.got[0], "write budget") || !strings.Contains(view.got[0], "Microsoft.Compute writes, ARM answered 429") {
		t.Fatalf("view notices = %q", view.got)
	}
	if strings.Count(out.String(), "\n") != 1 {
		t.Errorf("an attached view's notice was also printed as a line: %q", out.String())
	}
}
