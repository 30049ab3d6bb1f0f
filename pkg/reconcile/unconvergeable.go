package reconcile

// An unconvergeable verdict outlives the term that reached it. After the
// write Azure did not take, the record holds Azure's value, so a new term
// (a restarted pod, a new leader) would see the resource in sync, write
// Ready=True over the verdict, and never say again that Azure does not
// hold the manifest's value. The verdict is kept with the fingerprint of
// the resource's manifest (status file, the object's status.history), and
// a new term restores it while that manifest is unchanged.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// manifestDigest fingerprints what r asks for, with the values reg knows
// as secrets left out: the digest is written where readers of the object
// may not read the secrets, and a low-entropy secret must not be
// recoverable by hashing guesses. A change of a secret value alone
// therefore keeps the verdict; any other change of the manifest ends it.
func manifestDigest(r *manifest.Resource, reg *secret.Registry) string {
	data, err := json.Marshal([]any{r.ID, r.Type, r.APIVersion, r.Body, r.Annotations})
	if err != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(reg.Scrub(string(data))))
	return hex.EncodeToString(sum[:16])
}

// stuckUnder reports whether st's unconvergeable verdict stands for set:
// it was reached with set, or with the same manifest of the resource as
// set has (a later set that changed other resources, the first set of a
// new term). Call with c.mu held.
func (st *resState) stuckUnder(set *manifest.Set, key string) bool {
	if st.state != StateUnconvergeable || set == nil {
		return false
	}
	if st.stuckOn == set {
		return true
	}
	res := declared(set, key)
	if res == nil || st.stuckManifest == "" || manifestDigest(res, set.Secrets) != st.stuckManifest {
		return false
	}
	st.stuckOn = set
	return true
}

// restoreStuck seeds st with the unconvergeable verdict r records, if
// any; the set it stands for is found on first use (stuckUnder).
func restoreStuck(st *resState, r ResourceStatus) {
	if r.State != StateUnconvergeable || r.StuckManifest == "" {
		return
	}
	st.state, st.stuckManifest, st.message, st.changes = StateUnconvergeable, r.StuckManifest, r.Message, r.Changes
}

// stuckHistory is what an object's status keeps of rs's verdict: the
// fingerprint and the paths, never the values (they may be secrets).
func stuckHistory(rs ResourceStatus) *StuckHistory {
	if rs.State != StateUnconvergeable || rs.StuckManifest == "" {
		return nil
	}
	h := &StuckHistory{Manifest: rs.StuckManifest}
	for _, ch := range rs.Changes {
		if ch.IsDrift() {
			h.Paths = append(h.Paths, ch.Path)
		}
	}
	return h
}

// changesOf rebuilds the drift of a verdict from its paths: enough to
// say which paths Azure keeps (conditions, the Drifted message).
func (h *StuckHistory) changesOf() []plan.Change {
	out := make([]plan.Change, 0, len(h.Paths))
	for _, p := range h.Paths {
		out = append(out, plan.Change{Path: p, Cause: plan.CauseDrift})
	}
	return out
}
