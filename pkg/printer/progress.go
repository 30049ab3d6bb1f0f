package printer

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/x/ansi"
	"golang.org/x/term"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// Progress reports apply progress per resource. Implementations are safe for
// concurrent use: apply workers call Event from many goroutines.
type Progress interface {
	// Event records that resource id (shown as name) reached status; detail
	// is the HTTP method for writing/polling, the error for failed, the
	// reason for skipped. An empty name falls back to DisplayName(id).
	Event(id, name string, status Status, detail string)
	// Outcome returns how every resource seen so far ended.
	Outcome() Outcome
	// Close stops redrawing and prints the outcome summary. It is idempotent;
	// events after Close are ignored.
	Close() error
	// Finish is Close with the engine's result as the one source of the
	// outcome, so the summary line agrees with the result document and the
	// error message whatever events arrived.
	Finish(r *plan.Result) error
}

// Notifier is implemented by every Progress NewProgress returns: a notice
// about the whole run rather than one resource, e.g. the ARM client waiting
// for the subscription's read or write budget. NoticeWait is the one the
// CLI sends for that; Notice("") clears a live notice.
type Notifier interface {
	Notice(msg string)
}

// NoticeWait words a wait for ARM's request budget: what is waited for
// ("read", "write" or "delete") and how long, so every output says it the
// same way.
func NoticeWait(budget string, wait time.Duration) string {
	return fmt.Sprintf("waiting for ARM's %s budget: %s", budget, formatElapsed(max(wait.Round(time.Second), time.Second)))
}

// tickInterval is how often a live table is redrawn between events, so the
// elapsed time of a long poll keeps moving.
const tickInterval = time.Second

// NewProgress returns a live table redrawn in place when w is a terminal (or
// opts.Live is always), otherwise a writer of one plain line per event.
func NewProgress(w io.Writer, opts Options) Progress {
	opts = opts.withDefaults()
	p := &progress{
		w:     w,
		opts:  opts,
		st:    newStyles(w, opts.useColor(w)),
		live:  opts.useLive(w),
		start: opts.Now(),
		index: map[string]int{},
	}
	if p.live {
		p.width = opts.width(w)
		p.height = height(w)
		p.stop = make(chan struct{})
		p.stopped = make(chan struct{})
		go p.tick()
	}
	return p
}

type row struct {
	id, name string
	status   Status
	detail   string
	started  time.Time // first writing/polling event; zero if never written
	ended    time.Time
}

func (r *row) elapsed(now time.Time) time.Duration {
	if r.started.IsZero() {
		return 0
	}
	if !r.ended.IsZero() {
		now = r.ended
	}
	return now.Sub(r.started)
}

type progress struct {
	mu     sync.Mutex
	w      io.Writer
	opts   Options
	st     styles
	live   bool
	width  int
	height int
	start  time.Time
	rows   []*row
	index  map[string]int // lower-cased ID -> rows index; ARM IDs are case-insensitive
	notice string         // the run-wide notice under a live table
	drawn  int            // lines of the live table currently on screen
	frame  int            // spinner frame
	closed bool

	stop, stopped chan struct{}
}

func (p *progress) Event(id, name string, status Status, detail string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	now := p.opts.Now()
	key := strings.ToLower(id)
	i, ok := p.index[key]
	if !ok {
		if name == "" {
			name = DisplayName(id, "")
		}
		name = armid.Printable(name)
		i = len(p.rows)
		p.index[key] = i
		p.rows = append(p.rows, &row{id: id, name: name})
	}
	r := p.rows[i]
	if name != "" {
		r.name = armid.Printable(name)
	}
	r.status, r.detail = status, CleanText(p.opts.Secrets, detail)
	if (status == plan.StatusWriting || status == plan.StatusPolling) && r.started.IsZero() {
		r.started = now
	}
	if status.Final() {
		r.ended = now
	}
	if p.live {
		p.redraw(now)
		return
	}
	fmt.Fprintln(p.w, p.plainLine(r, now))
}

// Notice shows a run-wide notice: one line in a log, a line under the live
// table (until replaced, or cleared with "").
func (p *progress) Notice(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.notice = CleanLine(p.opts.Secrets, msg)
	now := p.opts.Now()
	if p.live {
		p.redraw(now)
		return
	}
	if p.notice != "" {
		fmt.Fprintf(p.w, "%s %s %s\n", now.Format("15:04:05"), p.st.faint(fmt.Sprintf("%-8s", "notice")), p.notice)
	}
}

// plainLine is one event for logs: time, status, name, then what is known.
func (p *progress) plainLine(r *row, now time.Time) string {
	var paren []string
	if r.detail != "" && r.status != plan.StatusFailed && r.status != plan.StatusSkipped {
		paren = append(paren, r.detail)
	}
	if r.status == plan.StatusPolling || r.status == plan.StatusDone || r.status == plan.StatusFailed {
		if d := r.elapsed(now); d > 0 {
			paren = append(paren, formatElapsed(d))
		}
	}
	_, style := statusLook(p.st, r.status)
	line := fmt.Sprintf("%s %s %s", now.Format("15:04:05"), style(fmt.Sprintf("%-8s", r.status)), r.name)
	if len(paren) > 0 {
		line += " (" + strings.Join(paren, ", ") + ")"
	}
	if (r.status == plan.StatusFailed || r.status == plan.StatusSkipped) && r.detail != "" {
		line += ": " + r.detail
	}
	return line
}

var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// liveLines renders the table: a header with counts, then one row per
// resource. When the terminal is too short, finished rows are folded into
// one line first, since the cursor cannot move above the top of the screen.
func (p *progress) liveLines(now time.Time) []string {
	var c OutcomeCounts
	for _, r := range p.rows {
		c.add(r.status)
	}
	noun := "resources"
	if len(p.rows) == 1 {
		noun = "resource"
	}
	verb := "Applying"
	if p.opts.Operation == OperationDelete {
		verb = "Deleting"
	}
	header := fmt.Sprintf("%s %d %s: %d done, %d failed, %d skipped, %d in progress (%s)",
		verb, len(p.rows), noun, c.Done, c.Failed, c.Skipped, c.Unfinished, formatElapsed(now.Sub(p.start)))
	lines := []string{p.st.bold(header)}

	rows := p.rows
	folded := 0
	if limit := p.height - 2; p.height > 0 && len(rows)+1 > limit {
		var keep []*row
		for _, r := range rows {
			if r.status == plan.StatusDone || r.status == plan.StatusSkipped {
				folded++
				continue
			}
			keep = append(keep, r)
		}
		rows = keep
		if len(rows)+2 > limit {
			rows = rows[:max(limit-3, 0)]
		}
	}
	for _, r := range rows {
		icon, style := statusLook(p.st, r.status)
		if r.status == plan.StatusWriting || r.status == plan.StatusPolling {
			icon = spinner[p.frame%len(spinner)]
		}
		line := fmt.Sprintf("  %s %s %s", style(icon), style(fmt.Sprintf("%-8s", r.status)), r.name)
		if r.detail != "" {
			line += " " + p.st.faint(r.detail)
		}
		if r.status != plan.StatusWaiting && r.status != plan.StatusSkipped {
			if d := r.elapsed(now); d > 0 {
				line += " " + p.st.faint(formatElapsed(d))
			}
		}
		lines = append(lines, line)
	}
	if hidden := len(p.rows) - len(rows) - folded; hidden > 0 {
		lines = append(lines, p.st.faint(fmt.Sprintf("  … %d more in progress", hidden)))
	}
	if folded > 0 {
		lines = append(lines, p.st.faint(fmt.Sprintf("  … %d finished", folded)))
	}
	if p.notice != "" {
		lines = append(lines, p.st.faint("  "+p.notice))
	}
	return lines
}

// redraw moves the cursor back to the top of the table and rewrites it. Each
// line is cut to the width, because a wrapped line would make the next
// cursor-up land in the wrong place.
func (p *progress) redraw(now time.Time) {
	if fd, tty := terminalFD(p.w); tty && p.opts.Width == 0 {
		// Follow terminal resizes: a stale width would wrap lines and
		// break the cursor arithmetic.
		if cols, rows, err := term.GetSize(fd); err == nil && cols > 0 {
			p.width, p.height = cols, rows
		}
	}
	var b strings.Builder
	if p.drawn > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", p.drawn) // cursor up to the table's first line
	}
	lines := p.liveLines(now)
	for _, l := range lines {
		b.WriteString("\r\x1b[2K") // clear the old content of this line
		b.WriteString(ansi.Truncate(l, max(p.width-1, 10), "…"))
		b.WriteString("\n")
	}
	b.WriteString("\x1b[J") // erase leftovers if the table got shorter
	p.drawn = len(lines)
	io.WriteString(p.w, b.String())
}

func (p *progress) tick() {
	defer close(p.stopped)
	t := time.NewTicker(tickInterval)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			if !p.closed && len(p.rows) > 0 {
				p.frame++
				p.redraw(p.opts.Now())
			}
			p.mu.Unlock()
		}
	}
}

func (p *progress) Outcome() Outcome {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.outcome(p.opts.Now())
}

func (p *progress) outcome(now time.Time) Outcome {
	o := Outcome{Resources: make([]ResourceOutcome, 0, len(p.rows)), Elapsed: now.Sub(p.start), Operation: p.opts.Operation}
	for _, r := range p.rows {
		ro := ResourceOutcome{ID: r.id, Name: r.name, Status: r.status, Elapsed: r.elapsed(now)}
		if r.status == plan.StatusFailed || r.status == plan.StatusSkipped {
			ro.Error = r.detail
		}
		o.Resources = append(o.Resources, ro)
	}
	return o
}

func (p *progress) Close() error { return p.Finish(nil) }

func (p *progress) Finish(res *plan.Result) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	now := p.opts.Now()
	if p.live && len(p.rows) > 0 {
		p.redraw(now) // freeze the final state of the table
	}
	o := p.outcome(now)
	if res != nil {
		o = fromResult(o, res, p.opts.Secrets)
	}
	p.mu.Unlock()
	if p.live {
		close(p.stop)
		<-p.stopped
	}
	if len(o.Resources) == 0 {
		return nil
	}
	return printOutcome(p.w, o, p.opts, false)
}

// fromResult replaces the statuses seen in events with the result's, keeping
// names and timings, and adds resources that sent no event.
func fromResult(o Outcome, res *plan.Result, secrets *secret.Registry) Outcome {
	byKey := map[string]int{}
	for i, r := range o.Resources {
		byKey[armid.Key(r.ID)] = i
	}
	out := Outcome{Elapsed: o.Elapsed, Operation: o.Operation}
	for _, rr := range res.Results {
		ro := ResourceOutcome{ID: rr.ID, Name: armid.Printable(DisplayName(rr.ID, "")), Status: rr.Status, Error: CleanText(secrets, rr.Error)}
		if i, ok := byKey[armid.Key(rr.ID)]; ok {
			ro.Name, ro.Elapsed = o.Resources[i].Name, o.Resources[i].Elapsed
		}
		out.Resources = append(out.Resources, ro)
	}
	return out
}
