package state

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// RepairFuncs are what Repair needs from the caller (pkg/apply).
type RepairFuncs struct {
	// Get reads the live resource from ARM. found=false with err=nil means
	// 404; any error stops the repair and leaves the intent for the next run.
	Get func(ctx context.Context, id, apiVersion string) (body map[string]any, etag string, found bool, err error)
	// Project returns the baseline B: live projected on the paths the record
	// owns (those in owned, which is L). Nil means ProjectOwned.
	Project func(rec *Record, owned, live map[string]any) map[string]any
	// Landed reports whether the live body already carries the intended
	// L (the intent's Record.LastApplied), judged with the diff's
	// normalisation. Nil means "cannot tell", and Repair takes the safe
	// route: keep the previous L so the next plan sends the write again.
	Landed func(in Intent, live map[string]any) bool
}

// RepairAction is what Repair did with one intent.
type RepairAction struct {
	Intent Intent
	// Outcome: "recorded" (L = intended), "refreshed" (previous L and B
	// kept: the next plan repeats the write), "forgotten" (the
	// resource is gone; record dropped), "cleared" (nothing to record).
	Outcome string
}

// Repair settles every uncommitted intent, normally right after Lock and
// before planning: a previous run crashed between sending a write and
// recording it. For each intent it GETs the resource and:
//
//   - put/patch, found: records it. L is the intended one if Landed says
//     so, else the previous L (none for a create), so the next plan repeats
//     the write — idempotent — instead of trusting a write that may not
//     have happened. B and etag come from this GET when L is the
//     intended one or there was no previous record; otherwise the
//     previous B is kept, so a drift the write was correcting stays drift.
//   - put/patch, not found: nothing was created; the intent is cleared
//     (a previous record, if any, is kept for the planner to judge).
//   - delete, not found: the record is deleted.
//   - delete, found: the record is kept so the next run deletes again.
//
// Repair never writes to ARM. The caller must hold the lock.
func Repair(ctx context.Context, st Store, fns RepairFuncs) ([]RepairAction, error) {
	if fns.Get == nil {
		return nil, fmt.Errorf("state.Repair: RepairFuncs.Get is required")
	}
	project := fns.Project
	if project == nil {
		key, err := st.SecretKey(ctx)
		if err != nil {
			return nil, err
		}
		project = func(_ *Record, owned, live map[string]any) map[string]any {
			return hashLikeOwned(key, "", ProjectOwned(live, owned), owned)
		}
	}
	intents, err := st.Intents(ctx)
	if err != nil {
		return nil, err
	}
	var done []RepairAction
	for _, in := range intents {
		prev, err := st.Get(ctx, in.ID)
		if err != nil && err != ErrNotFound {
			return done, err
		}
		if err == ErrNotFound {
			prev = nil
		}
		apiVersion := in.APIVersion
		if apiVersion == "" && in.Record != nil {
			apiVersion = in.Record.APIVersion
		}
		live, etag, found, err := fns.Get(ctx, in.ID, apiVersion)
		if err != nil {
			return done, fmt.Errorf("repairing the interrupted %s of %s: GET failed: %w; the journal entry is kept for the next run", in.Op, in.ID, err)
		}
		act := RepairAction{Intent: in}
		switch {
		case strings.EqualFold(in.Op, OpDelete) && !found:
			err, act.Outcome = forgetWithContents(ctx, st, in.ID), "forgotten"
		case strings.EqualFold(in.Op, OpDelete) || !found:
			err, act.Outcome = st.CommitIntent(ctx, in.ID), "cleared"
		default:
			rec := &Record{ID: in.ID, Type: in.Type, APIVersion: apiVersion}
			if in.Record != nil {
				c := *in.Record
				rec = &c
			} else if prev != nil {
				c := *prev
				rec = &c
			}
			if rec.ID == "" {
				rec.ID = in.ID
			}
			act.Outcome = "recorded"
			if fns.Landed == nil || !fns.Landed(in, live) {
				act.Outcome = "refreshed"
				rec.LastApplied = nil
				if prev != nil {
					rec.LastApplied = prev.LastApplied
					rec.HashedAs = prev.HashedAs // the salt of the L kept
					// Protection is lifted only by a write known to have
					// landed.
					rec.PreventDestroy = rec.PreventDestroy || prev.PreventDestroy
				}
			}
			if act.Outcome == "refreshed" && prev != nil && prev.Baseline != nil {
				// The write may not have landed: B stays what Azure held
				// right after our last known write. Re-reading it now would
				// take a drift this write was correcting as the new
				// baseline, and the drift would never be corrected.
				rec.Baseline, rec.Etag = prev.Baseline, prev.Etag
			} else {
				owned := rec.LastApplied
				if owned == nil && in.Record != nil {
					// A create that may not have landed: no L, but B still
					// covers what the manifest asks for, so drift can be seen.
					owned = in.Record.LastApplied
				}
				rec.Baseline = project(rec, owned, live)
				rec.Etag = etag
			}
			rec.Updated = time.Now().UTC()
			err = st.Put(ctx, rec) // also clears the intent
			if IsTooLarge(err) {
				act.Outcome, err = recordTooLarge(ctx, st, rec, err)
			}
		}
		if err != nil {
			return done, err
		}
		done = append(done, act)
	}
	return done, nil
}

// recordTooLarge settles an intent whose record the backend cannot keep:
// left in place, it would stop every later run at this repair. Without its
// baseline the record may fit (the next plan then compares the manifest
// with Azure, as a first plan does); else the intent goes and the previous
// record, if any, stays. The outcome says which, and why.
func recordTooLarge(ctx context.Context, st Store, rec *Record, tooLarge error) (string, error) {
	rec.Baseline = nil
	err := st.Put(ctx, rec)
	if err == nil {
		return "recorded without its baseline (" + tooLarge.Error() + ")", nil
	}
	if !IsTooLarge(err) {
		return "", err
	}
	if err := st.CommitIntent(ctx, rec.ID); err != nil {
		return "", err
	}
	return "not recorded, the previous record kept (" + err.Error() + ")", nil
}

// forgetWithContents forgets a deleted resource's record and those of the
// resources inside it (a resource group deleted whole, in one DELETE): ARM
// deleted them with it.
func forgetWithContents(ctx context.Context, st Store, id string) error {
	recs, err := st.List(ctx)
	if err != nil {
		return err
	}
	for _, r := range recs {
		if armid.Contains(id, r.ID) {
			if err := st.Delete(ctx, r.ID); err != nil {
				return err
			}
		}
	}
	return st.Delete(ctx, id)
}

// ProjectOwned returns the parts of live at the paths present in owned:
// maps are intersected key by key, anything else (scalars, arrays) is
// taken whole. Keys match case-sensitively, as ARM returns them.
func ProjectOwned(live, owned map[string]any) map[string]any {
	if live == nil || owned == nil {
		return nil
	}
	out := map[string]any{}
	for k, ov := range owned {
		lv, ok := live[k]
		if !ok {
			continue
		}
		om, oIsMap := ov.(map[string]any)
		lm, lIsMap := lv.(map[string]any)
		if oIsMap && lIsMap {
			out[k] = ProjectOwned(lm, om)
			continue
		}
		out[k] = lv
	}
	return out
}

// hashLikeOwned hashes every value of b whose counterpart in owned (L) is a
// hashed secret, so the baseline a repair records holds no clear secret
// either. Callers with a schema pass RepairFuncs.Project (pkg/record).
func hashLikeOwned(key []byte, path string, b, owned map[string]any) map[string]any {
	for k, bv := range b {
		cp := childPath(path, k)
		switch ov := owned[k].(type) {
		case string:
			if secret.IsHash(ov) && bv != nil && !secret.IsHash(bv) {
				if _, isMap := bv.(map[string]any); !isMap {
					b[k] = secret.Hash(key, cp, bv)
				}
			}
		case map[string]any:
			if bm, ok := bv.(map[string]any); ok {
				b[k] = hashLikeOwned(key, cp, bm, ov)
			}
		}
	}
	return b
}
