package reconcile

// Reporting: the log, the status file and the saved plan (events.go:
// Events).

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

func (c *Controller) logf(format string, args ...any) {
	if c.Log == nil {
		return
	}
	c.logMu.Lock()
	defer c.logMu.Unlock()
	fmt.Fprintf(c.Log, c.now().UTC().Format(time.RFC3339)+" "+format+"\n", args...)
}

// warnWriter passes each distinct warning line once: every sweep plans
// again, and a warning repeated every few seconds hides the new ones.
type warnWriter struct{ c *Controller }

func (w warnWriter) Write(p []byte) (int, error) {
	w.c.logMu.Lock()
	defer w.c.logMu.Unlock()
	line := strings.TrimSpace(string(p))
	if w.c.warned == nil {
		w.c.warned = map[string]bool{}
	}
	if !w.c.warned[line] && w.c.Log != nil {
		w.c.warned[line] = true
		fmt.Fprintln(w.c.Log, line)
	}
	return len(p), nil
}

// idOf returns the ARM ID of a queue key as the manifests spell it.
func (c *Controller) idOf(key string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st := c.res[key]; st != nil {
		return st.id
	}
	return key
}

func oneLine(err error) string {
	return strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", "; ")
}

// Snapshot returns the status document as of now.
func (c *Controller) Snapshot() *Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := &Status{ObservedAt: c.now().UTC(), Policy: c.Options.DriftPolicy, Set: c.Engine.Set}
	if c.leader != nil {
		l := *c.leader
		st.Leader = &l
	}
	_, loadedAt, srcErr := c.Reflector.Current()
	st.Source.LoadedAt = loadedAt.UTC()
	if c.set != nil {
		st.Source.Resources = len(c.set.Resources)
	}
	if srcErr != nil {
		st.Source.Error = oneLine(srcErr)
		st.Source.Problems = Problems(srcErr)
	}
	if c.sweepErr != nil && st.Source.Error == "" {
		st.Source.Error = "observation failed: " + oneLine(c.sweepErr)
		var ve *manifest.ValidationError
		if errors.As(c.sweepErr, &ve) {
			// A value known only now made the manifests invalid (a
			// computed name): say where, as for a refused set.
			st.Source.Problems = Problems(c.sweepErr)
		}
	}
	counts := map[string]int{}
	for _, r := range c.res {
		rs := ResourceStatus{ID: r.id, State: r.state, LastObserved: r.lastObserved.UTC(), Changes: r.changes,
			Policy: r.policy, Message: r.message, Corrections: r.total}
		if r.state == StateContested && !r.until.IsZero() {
			u := r.until.UTC()
			rs.Until = &u
		}
		rs.Contest = contestRecord(r)
		if r.state == StateUnconvergeable {
			rs.StuckManifest = r.stuckManifest
		}
		counts[r.state]++
		st.Resources = append(st.Resources, rs)
	}
	m := c.metrics()
	for _, s := range []string{StateInSync, StateDrifted, StateCorrecting, StateContested, StateUnconvergeable, StateError} {
		m.states.WithLabelValues(s).Set(float64(counts[s]))
	}
	if srcErr != nil {
		m.sourceValid.Set(0)
	} else {
		m.sourceValid.Set(1)
	}
	return st
}

// savePlan keeps Options.PlanFile: the sweep's plan while anything
// drifted, no file otherwise.
func (c *Controller) savePlan(p *plan.Plan) {
	if c.Options.PlanFile == "" {
		return
	}
	c.mu.Lock()
	drifted := false
	for _, st := range c.res {
		if st.state == StateDrifted {
			drifted = true
		}
	}
	c.mu.Unlock()
	if !drifted {
		if err := os.Remove(c.Options.PlanFile); err != nil && !errors.Is(err, os.ErrNotExist) {
			c.logf("removing the plan file %s: %v", c.Options.PlanFile, err)
		}
		return
	}
	c.annotatePlan(p)
	if err := WritePlan(c.Options.PlanFile, p, c.PlanSource); err != nil {
		c.logf("writing the plan file %s: %v", c.Options.PlanFile, err)
	}
}

func (c *Controller) annotatePlan(p *plan.Plan) {
	if p.Set == "" {
		p.Set = c.Engine.Set
	}
	if p.State == "" {
		p.State = c.PlanSource.State
	}
}

func (c *Controller) writeStatus() {
	st := c.Snapshot()
	if c.Options.StatusFile == "" {
		return
	}
	c.statusMu.Lock()
	defer c.statusMu.Unlock()
	if err := WriteStatus(c.Options.StatusFile, st); err != nil {
		c.logf("writing the status file %s: %v", c.Options.StatusFile, err)
	}
}
