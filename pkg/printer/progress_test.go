package printer

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// fakeClock is an injectable clock that only moves when told.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

const (
	stID  = sub + "/resourceGroups/rg-demo/providers/Microsoft.Storage/storageAccounts/stdemo001"
	rgID  = sub + "/resourceGroups/rg-demo"
	kvID  = sub + "/resourceGroups/rg-demo/providers/Microsoft.KeyVault/vaults/kv-demo"
	appID = sub + "/resourceGroups/rg-demo/providers/Microsoft.Web/sites/app-demo"
)

// scriptedApply drives p through a typical apply: one success with a long
// poll, one failure, one skipped dependant.
func scriptedApply(p Progress, clock *fakeClock) {
	p.Event(rgID, "", plan.StatusWaiting, "")
	p.Event(stID, "Microsoft.Storage/storageAccounts/stdemo001", plan.StatusWaiting, "")
	p.Event(kvID, "", plan.StatusWaiting, "")
	p.Event(appID, "", plan.StatusWaiting, "")
	clock.Advance(time.Second)
	p.Event(rgID, "", plan.StatusWriting, "PUT")
	clock.Advance(800 * time.Millisecond)
	p.Event(rgID, "", plan.StatusDone, "")
	clock.Advance(200 * time.Millisecond)
	p.Event(stID, "", plan.StatusWriting, "PUT")
	p.Event(kvID, "", plan.StatusWriting, "PATCH")
	clock.Advance(time.Second)
	p.Event(stID, "", plan.StatusPolling, "PUT")
	clock.Advance(2 * time.Second)
	p.Event(kvID, "", plan.StatusFailed, "409 Conflict: vault name is soft-deleted; purge it or recover it")
	p.Event(appID, "", plan.StatusSkipped, "depends on a failed resource")
	clock.Advance(61 * time.Second)
	p.Event(strings.ToUpper(stID), "", plan.StatusDone, "") // ARM IDs are case-insensitive
}

func TestProgressPlainGolden(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	clock := newFakeClock()
	var buf bytes.Buffer
	p := NewProgress(&buf, Options{Color: ColorNever, Now: clock.Now})
	scriptedApply(p, clock)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	p.Event(rgID, "", plan.StatusFailed, "after close") // must be ignored
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	golden(t, "progress-plain.txt", buf.Bytes())
	if bytes.ContainsRune(buf.Bytes(), 0x1b) {
		t.Errorf("plain progress contains escape codes")
	}
}

func TestProgressOutcome(t *testing.T) {
	clock := newFakeClock()
	p := NewProgress(&bytes.Buffer{}, Options{Color: ColorNever, Now: clock.Now})
	scriptedApply(p, clock)
	o := p.Outcome()
	if len(o.Resources) != 4 {
		t.Fatalf("want 4 resources (case-insensitive IDs merged), got %+v", o.Resources)
	}
	c := o.Counts()
	if c != (OutcomeCounts{Done: 2, Failed: 1, Skipped: 1}) {
		t.Errorf("counts = %+v", c)
	}
	if o.OK() {
		t.Error("outcome with a failure reported OK")
	}
	if got := o.Resources[1]; got.Status != plan.StatusDone || got.Elapsed != 64*time.Second {
		t.Errorf("storage outcome = %+v, want done after 64s", got)
	}
	if got := o.Resources[2]; got.Error == "" || got.Status != plan.StatusFailed {
		t.Errorf("keyvault outcome = %+v, want failed with its error", got)
	}
}

func TestPrintOutcomeGolden(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	o := Outcome{Elapsed: 95 * time.Second, Resources: []ResourceOutcome{
		{ID: rgID, Name: "Microsoft.Resources/resourceGroups/rg-demo", Status: plan.StatusDone, Elapsed: 800 * time.Millisecond},
		{ID: kvID, Name: "Microsoft.KeyVault/vaults/kv-demo", Status: plan.StatusFailed, Error: "409 Conflict: vault name is soft-deleted"},
		{ID: appID, Name: "Microsoft.Web/sites/app-demo", Status: plan.StatusSkipped, Error: "depends on a failed resource"},
	}}
	var buf bytes.Buffer
	if err := printOutcome(&buf, o, Options{Color: ColorNever}.withDefaults(), true); err != nil {
		t.Fatal(err)
	}
	ok := Outcome{Elapsed: 3 * time.Second, Resources: o.Resources[:1]}
	if err := printOutcome(&buf, ok, Options{Color: ColorNever}.withDefaults(), true); err != nil {
		t.Fatal(err)
	}
	golden(t, "outcome.txt", buf.Bytes())
}

var cursorUp = regexp.MustCompile(`\x1b\[(\d+)A`)

func TestProgressLiveRedraws(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	clock := newFakeClock()
	var buf bytes.Buffer
	p := NewProgress(&buf, Options{Color: ColorAlways, Live: LiveAlways, Width: 80, Now: clock.Now})
	p.Event(rgID, "", plan.StatusWriting, "PUT")
	first := buf.Len()
	if first == 0 || cursorUp.Match(buf.Bytes()) {
		t.Fatalf("first draw must not move the cursor up: %q", buf.String())
	}
	p.Event(stID, "", plan.StatusPolling, "PUT")
	clock.Advance(75 * time.Second)
	p.Event(rgID, "", plan.StatusDone, "")
	p.Event(stID, "", plan.StatusDone, "")
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	ups := cursorUp.FindAllStringSubmatch(out, -1)
	if len(ups) < 2 {
		t.Fatalf("want the table redrawn in place (cursor up), got %q", out)
	}
	// After the first event the table is a header and one row; after the
	// second, a header and two rows: each redraw moves up exactly that far.
	if ups[0][1] != "2" || ups[1][1] != "3" {
		t.Errorf("cursor-up distances = %v, want 2 then 3", ups)
	}
	if !strings.Contains(out, "\x1b[2K") {
		t.Errorf("lines are not cleared before being rewritten: %q", out)
	}
	// The polling row shows its elapsed time.
	if !strings.Contains(out, "1m15s") {
		t.Errorf("polling elapsed time missing: %q", out)
	}
	if !strings.Contains(out, "Apply complete: 2 done, 0 failed, 0 skipped in 1m15s.") {
		t.Errorf("final summary missing: %q", out)
	}
	for _, l := range strings.Split(out, "\n") {
		// Strip the control sequences at the start of a redrawn line.
		if w := ansiWidth(l); w > 80 {
			t.Errorf("live line wider than the terminal (%d): %q", w, l)
		}
	}
}

func TestProgressLiveFoldsWhenShort(t *testing.T) {
	clock := newFakeClock()
	var buf bytes.Buffer
	pr := NewProgress(&buf, Options{Color: ColorNever, Live: LiveAlways, Width: 80, Now: clock.Now}).(*progress)
	pr.height = 8
	for i := range 20 {
		id := fmt.Sprintf("%s/resourceGroups/rg%02d", sub, i)
		pr.Event(id, "", plan.StatusDone, "")
	}
	pr.Event(sub+"/resourceGroups/busy", "", plan.StatusPolling, "PUT")
	pr.mu.Lock()
	lines := pr.liveLines(clock.Now())
	pr.mu.Unlock()
	pr.Close()
	if len(lines) > 6 {
		t.Errorf("table of %d lines on an 8-line terminal: %q", len(lines), lines)
	}
	joined := strings.Join(lines, "\n")
	if !strings.Contains(joined, "busy") || !strings.Contains(joined, "20 finished") {
		t.Errorf("want the active row kept and finished ones folded: %q", joined)
	}
}

func TestProgressConcurrent(t *testing.T) {
	for _, live := range []string{LiveNever, LiveAlways} {
		var buf bytes.Buffer
		p := NewProgress(&syncWriter{w: &buf}, Options{Color: ColorNever, Live: live})
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 50 {
					id := fmt.Sprintf("%s/resourceGroups/rg%d-%d", sub, g, i%5)
					p.Event(id, "", plan.StatusWriting, "PUT")
					p.Event(id, "", plan.StatusDone, "")
					_ = p.Outcome()
				}
			}()
		}
		wg.Wait()
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		if c := p.Outcome().Counts(); c.Done != 40 {
			t.Errorf("%s: want 40 distinct resources done, got %+v", live, c)
		}
	}
}

// syncWriter lets the race detector see only progress's own synchronisation.
type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

func ansiWidth(s string) int {
	s = strings.ReplaceAll(s, "\r", "")
	return len([]rune(regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`).ReplaceAllString(s, "")))
}

// A run-wide notice (the ARM client waiting for its request budget) has its
// own line in logs and under the live table, in one wording.
func TestProgressNotice(t *testing.T) {
	if got := NoticeWait("write", 11600*time.Millisecond); got != "waiting for ARM's write budget: 12s" {
		t.Errorf("NoticeWait = %q", got)
	}
	if got := NoticeWait("read", 200*time.Millisecond); got != "waiting for ARM's read budget: 1s" {
		t.Errorf("NoticeWait under a second = %q", got)
	}
	clock := newFakeClock()
	var buf bytes.Buffer
	p := NewProgress(&buf, Options{Color: ColorNever, Now: clock.Now})
	p.(Notifier).Notice(NoticeWait("write", 12*time.Second))
	if got := buf.String(); got != "12:00:00 notice   waiting for ARM's write budget: 12s\n" {
		t.Errorf("plain notice: %q", got)
	}
	buf.Reset()
	live := NewProgress(&buf, Options{Color: ColorNever, Live: LiveAlways, Width: 80, Now: clock.Now})
	live.Event(sub+"/resourceGroups/rg", "", plan.StatusWriting, "PUT")
	live.(Notifier).Notice(NoticeWait("write", 3*time.Second))
	if !strings.Contains(buf.String(), "  waiting for ARM's write budget: 3s\n") {
		t.Errorf("live table lacks the notice:\n%q", buf.String())
	}
	_ = live.Close()
}
