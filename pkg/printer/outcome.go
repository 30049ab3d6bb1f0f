package printer

import (
	"bufio"
	"fmt"
	"io"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// Status is where one resource is in an apply (plan's vocabulary).
type Status = plan.Status

// ResourceOutcome is how one resource ended.
type ResourceOutcome struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Status Status `json:"status"`
	// Error is the failure message, or why the resource was skipped.
	Error string `json:"error,omitempty"`
	// Elapsed is the time from the first write to the end, 0 if never written.
	Elapsed time.Duration `json:"elapsed,omitempty"`
}

// Outcome is the result of an apply, in the order resources were first seen.
type Outcome struct {
	Resources []ResourceOutcome `json:"resources"`
	// Elapsed is the wall time of the whole apply; 0 if unknown.
	Elapsed time.Duration `json:"elapsed,omitempty"`
	// Operation names what ran in the summary line: OperationApply ("" too)
	// or OperationDelete.
	Operation string `json:"-"`
}

// OutcomeCounts counts resources by how they ended.
type OutcomeCounts struct {
	Done, Failed, Skipped int
	// Unfinished were still waiting, writing or polling (e.g. interrupted).
	Unfinished int
}

// Counts tallies o by status.
func (o Outcome) Counts() OutcomeCounts {
	var c OutcomeCounts
	for _, r := range o.Resources {
		c.add(r.Status)
	}
	return c
}

// add counts one resource that ended (or stopped) in status s.
func (c *OutcomeCounts) add(s Status) {
	switch s {
	case plan.StatusDone:
		c.Done++
	case plan.StatusFailed:
		c.Failed++
	case plan.StatusSkipped:
		c.Skipped++
	default:
		c.Unfinished++
	}
}

// OK reports whether every resource is done.
func (o Outcome) OK() bool {
	c := o.Counts()
	return c.Failed == 0 && c.Skipped == 0 && c.Unfinished == 0
}

// SummaryLine is the one-line result, e.g.
// "Apply failed: 2 done, 1 failed, 1 skipped in 34s."
func (o Outcome) SummaryLine() string {
	c := o.Counts()
	op := o.Operation
	if op == "" {
		op = OperationApply
	}
	head := op + " complete"
	if !o.OK() {
		head = op + " failed"
	}
	if c.Failed == 0 && c.Skipped > 0 || c.Failed == 0 && c.Unfinished > 0 {
		head = op + " incomplete"
	}
	s := fmt.Sprintf("%s: %d done, %d failed, %d skipped", head, c.Done, c.Failed, c.Skipped)
	if c.Unfinished > 0 {
		s += fmt.Sprintf(", %d unfinished", c.Unfinished)
	}
	if o.Elapsed > 0 {
		s += " in " + formatElapsed(o.Elapsed)
	}
	return s + "."
}

// printOutcome lists every resource when all is set, otherwise only those
// that did not finish well (progress already showed the rest).
func printOutcome(w io.Writer, o Outcome, opts Options, all bool) error {
	st := newStyles(w, opts.useColor(w))
	bw := bufio.NewWriter(w)
	for _, r := range o.Resources {
		if !all && r.Status == plan.StatusDone {
			continue
		}
		icon, style := statusLook(st, r.Status)
		line := fmt.Sprintf("  %s %s %s", style(icon), style(fmt.Sprintf("%-8s", r.Status)), r.Name)
		if r.Status == plan.StatusDone && r.Elapsed > 0 {
			line += st.faint(" (" + formatElapsed(r.Elapsed) + ")")
		}
		if r.Error != "" {
			line += ": " + r.Error
		}
		fmt.Fprintln(bw, line)
	}
	style := st.ok
	if !o.OK() {
		style = st.danger
	}
	fmt.Fprintln(bw, style(o.SummaryLine()))
	return bw.Flush()
}

// statusLook is the icon and style of a status, shared by progress and outcome.
func statusLook(st styles, s Status) (string, func(string) string) {
	switch s {
	case plan.StatusDone:
		return "✓", st.ok
	case plan.StatusFailed:
		return "✗", st.danger
	case plan.StatusSkipped:
		return "-", st.faint
	case plan.StatusWriting:
		return "↑", st.update
	case plan.StatusPolling:
		return "…", st.update
	default:
		return "·", st.faint
	}
}

// formatElapsed is a short human duration: "850ms", "12s", "1m05s", "1h02m".
func formatElapsed(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
}
