package reconcile

// Contest counting outlives the process: the corrections of each resource
// and how often it was contested are kept in the status file with the set,
// and a loop of the same set starts from them. Counting per process let a
// restart (a crash loop, a rolling update, a cron-run `--once`) correct a
// contested path again every time.

import "github.com/kubectl-azure/kubectl-azure/pkg/armid"

// previousStatus is the status a term before this one left: the status
// file, else what History gives (the Resource objects' status, which
// outlives the pod and its status file).
func (c *Controller) previousStatus() *Status {
	if c.Options.StatusFile != "" {
		if prev, err := ReadStatus(c.Options.StatusFile); err == nil {
			return prev
		}
	}
	if c.History != nil {
		return c.History()
	}
	return nil
}

// contestRecord is what the status keeps of st's contest counting; nil
// when there is nothing to keep.
func contestRecord(st *resState) *ContestRecord {
	if len(st.corrections) == 0 && st.contested == 0 {
		return nil
	}
	out := &ContestRecord{Contested: st.contested}
	for _, cr := range st.corrections {
		out.Corrections = append(out.Corrections, CorrectionRecord{At: cr.at.UTC(), Paths: cr.paths})
	}
	return out
}

// restoreContests seeds this term's resources with the contest counting
// of the last status file this set's loop wrote: corrections still inside
// the window, the times contested, the total, a back-off not yet over,
// and an unconvergeable verdict (unconvergeable.go).
// A file of another set, or none, starts from nothing.
func (c *Controller) restoreContests() {
	prev := c.previousStatus()
	if prev == nil || prev.Set != c.Engine.Set {
		return
	}
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range prev.Resources {
		st := &resState{id: r.ID, state: StateInSync, total: r.Corrections}
		if r.Contest != nil {
			st.contested = r.Contest.Contested
			for _, cr := range r.Contest.Corrections {
				if now.Sub(cr.At) <= c.Options.ContestWindow {
					st.corrections = append(st.corrections, correction{at: cr.At, paths: cr.Paths})
				}
			}
		}
		if r.State == StateContested && r.Until != nil && now.Before(*r.Until) {
			st.state, st.until, st.message, st.changes = StateContested, *r.Until, r.Message, r.Changes
		}
		restoreStuck(st, r)
		if st.total == 0 && st.contested == 0 && len(st.corrections) == 0 && st.until.IsZero() && st.stuckManifest == "" {
			continue
		}
		c.res[armid.Key(r.ID)] = st
	}
}
