// Package diff is the planner's core: from the desired body D, the
// last-applied body L, the baseline B and the live body S of one resource
// (DESIGN §3) it computes which owned paths change and why. It is pure: no
// I/O, no clock, no globals beyond an immutable cache of schema facts.
package diff

import (
	"sort"

	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// Action is the per-resource outcome the engine decides (delete and adopt
// are decided by pkg/apply).
type Action = plan.Action

const (
	ActionCreate  = plan.ActionCreate
	ActionUpdate  = plan.ActionUpdate
	ActionReplace = plan.ActionReplace
	ActionNoOp    = plan.ActionNoOp
)

// Input is everything the engine needs for one resource.
type Input struct {
	// Desired (D), LastApplied (L), Baseline (B), Live (S); nil = absent
	// (no state, or the resource does not exist).
	Desired, LastApplied, Baseline, Live map[string]any
	Schema                               *schema.Type // nil: unknown type, heuristics only
	Plugin                               Plugin       // nil: no per-type knowledge
	SecretKey                            []byte       // HMAC key of the salted secret hashes in L
	Explain                              bool         // also list owned paths judged equal, with the rule
}

// Result is the engine's verdict on one resource.
type Result struct {
	Action  Action
	Changes []plan.Change // sorted by path
	Equal   []plan.Equal  // with Explain: owned paths judged equal and the rule
	// Unverifiable lists owned secret or write-only paths GET does not return.
	Unverifiable []string
	// Owned lists owned paths (present in D or L) in the owned-path form
	// accepted by Project: keyed array items carry their identifier names,
	// e.g. properties.subnets[name=default].properties.addressPrefix.
	Owned    []string
	Warnings []string

	// segs holds the structured path of each change, parallel to Changes,
	// so Patch and PutBody need not re-parse display paths.
	segs [][]seg
}

const (
	reasonCreate      = "resource does not exist; will be created"
	reasonAddNoState  = "set in the manifest, absent from the live resource"
	reasonDiffNoState = "live value differs from the manifest"
	reasonUserAdd     = "added to the manifest since the last apply"
	reasonUserChange  = "changed in the manifest since the last apply"
	reasonUserRemove  = "removed from the manifest since the last apply; will be removed from the live resource"
	reasonSecret      = "secret changed in the manifest since the last apply (compared by salted hash)"
	reasonDrift       = "changed outside this tool since the last apply (drift); will be restored to the manifest"
	reasonDriftGone   = "removed outside this tool since the last apply (drift); will be restored to the manifest"
)

// prepared holds the hook-processed bodies and facts for one Input.
type prepared struct {
	f       *facts
	d, l, b map[string]any
	s       map[string]any
}

func prepare(in Input) prepared {
	p := prepared{f: factsFor(in.Schema, in.Plugin), d: in.Desired, l: in.LastApplied, b: in.Baseline, s: in.Live}
	if in.Plugin != nil {
		// Hooks get copies: callers' bodies are never modified.
		afterGet, beforeCompare := pluginHooks(in.Plugin)
		if beforeCompare && !afterGet && p.s != nil {
			p.s = deepCopyMap(p.s)
		}
		if afterGet {
			if p.s != nil {
				p.s = in.Plugin.AfterGet(deepCopyMap(p.s))
			}
			if p.b != nil {
				p.b = in.Plugin.AfterGet(deepCopyMap(p.b))
			}
		}
		if beforeCompare {
			if p.d != nil || p.s != nil {
				p.d, p.s = in.Plugin.BeforeCompare(deepCopyMap(p.d), p.s)
			}
			if p.l != nil {
				p.l, _ = in.Plugin.BeforeCompare(deepCopyMap(p.l), nil)
			}
			if p.b != nil {
				// B is live as it was: it gets live's treatment, so drift
				// compares like with like.
				if !afterGet {
					p.b = deepCopyMap(p.b)
				}
				_, p.b = in.Plugin.BeforeCompare(deepCopyMap(p.d), p.b)
			}
		}
	}
	return p
}

// Compute plans one resource.
func Compute(in Input) Result {
	p := prepare(in)
	var r Result
	if p.d == nil {
		r.Action = ActionNoOp
		return r
	}
	r.Owned = ownedPaths(p.f, p.d, p.l)

	if p.s == nil {
		r.Action = ActionCreate
		for _, lp := range leafPaths(p.f, p.d) {
			v, _ := get(p.d, lp.path)
			ch := plan.Change{Path: renderPath(lp.path), After: v, Reason: reasonCreate, Kind: plan.KindAdd}
			if secretPath(p.f, lp.sp, lastField(lp.path), v) || (isScalar(v) && underSecretPath(lp.path)) {
				ch.After, ch.Sensitive = plan.Sensitive, true
			}
			r.Changes = append(r.Changes, ch)
			r.segs = append(r.segs, lp.path)
		}
		sortChanges(&r)
		return r
	}

	live := comparer{f: p.f, mode: modeOwner, explain: in.Explain}
	live.compareRoot(p.d, p.s)
	for _, u := range live.unverifiable {
		r.Unverifiable = append(r.Unverifiable, renderPath(u))
	}
	sort.Strings(r.Unverifiable)
	if len(live.ignored) > 0 {
		sort.Strings(live.ignored)
		for _, ig := range live.ignored {
			r.Warnings = append(r.Warnings, ig+" is readonly: ignored, never owned")
		}
	}

	if p.l == nil {
		// No state: D vs S under normalisation.
		for _, e := range live.out {
			reason := reasonDiffNoState
			if e.kind == plan.KindAdd {
				reason = reasonAddNoState
			}
			r.add(p.f, e, e.y, e.x, reason, false)
		}
		if in.Explain {
			r.Equal = toEqual(live.equal)
		}
	} else {
		r.withState(p, in)
	}
	sortChanges(&r)
	r.Action = ActionNoOp
	if len(r.Changes) > 0 {
		r.Action = ActionUpdate
		for _, c := range r.Changes {
			if c.CreateOnly {
				r.Action = ActionReplace
				break
			}
		}
	}
	return r
}

// withState computes user changes (D vs L, confirmed against S) and drift
// (S vs B) on owned paths.
func (r *Result) withState(p prepared, in Input) {
	user := comparer{f: p.f, mode: modeSym, key: in.SecretKey, explain: in.Explain}
	user.compareRoot(p.d, p.l)
	var equal []equalAt
	var userPaths [][]seg
	for _, e := range user.out {
		userPaths = append(userPaths, e.path)
		sv, sh := get(p.s, e.path)
		switch e.kind {
		case plan.KindRemove:
			if !sh || sv == nil {
				equal = append(equal, equalAt{renderPath(e.path), RuleAlreadyAbsent})
				continue
			}
			r.add(p.f, entry{path: e.path, sp: e.sp, kind: plan.KindRemove, secret: e.secret}, sv, nil, reasonUserRemove, false)
			if k := firstArraySeg(e.path); k >= 0 && p.f.mergeColl[schemaPathOf(e.path[:k], p.f.isMap)] {
				r.Warnings = append(r.Warnings, renderPath(e.path)+": this collection's PUT keeps items it is not sent; the removal needs a DELETE of that item")
			}
		default:
			if e.secret {
				r.add(p.f, entry{path: e.path, sp: e.sp, kind: kindFor(sh), secret: true}, sv, e.x, reasonSecret, false)
				continue
			}
			// The manifest moved; does live already hold the new value?
			sub := comparer{f: p.f, mode: modeOwner, strict: true, path: clonePath(e.path)}
			if sh {
				sub.compare(e.sp, lastField(e.path), e.x, sv, true, true)
			} else {
				sub.absent(e.sp, lastField(e.path), e.x)
			}
			if len(sub.out) == 0 {
				equal = append(equal, equalAt{renderPath(e.path), RuleLiveMatches})
				continue
			}
			reason := reasonUserChange
			if e.kind == plan.KindAdd {
				reason = reasonUserAdd
			}
			for _, se := range sub.out {
				r.add(p.f, se, se.y, se.x, reason, false)
			}
		}
	}

	// Drift: the baseline is server-side like S, so ARM's own normalisation
	// cancels out; without a baseline fall back to L vs S normalised.
	base := p.b
	if base == nil {
		base = p.l
	}
	drift := comparer{f: p.f, mode: modeOwner, strict: true, projected: p.b != nil}
	drift.compareRoot(base, p.s)
	for _, e := range drift.out {
		if overlaps(e.path, userPaths) {
			continue
		}
		dv, dh := get(p.d, e.path)
		if !dh {
			// Owned only through L (removed by the user): handled above.
			continue
		}
		sv, _ := get(p.s, e.path)
		reason := reasonDrift
		if e.kind == plan.KindAdd {
			reason = reasonDriftGone
		}
		r.add(p.f, entry{path: e.path, sp: e.sp, kind: e.kind, secret: e.secret}, sv, dv, reason, true)
	}
	if in.Explain {
		all := append(user.equal, equal...)
		r.Equal = toEqual(all)
	}
}

func kindFor(liveHas bool) plan.ChangeKind {
	if liveHas {
		return plan.KindChange
	}
	return plan.KindAdd
}

func overlaps(p []seg, others [][]seg) bool {
	for _, o := range others {
		if hasPrefix(p, o) || hasPrefix(o, p) {
			return true
		}
	}
	return false
}

func (r *Result) add(f *facts, e entry, before, after any, reason string, drift bool) {
	ch := plan.Change{Path: renderPath(e.path), Before: before, After: after, Reason: reason, Kind: e.kind, Drift: drift}
	if e.kind == plan.KindRemove {
		ch.After = nil
	}
	if e.secret || secretPath(f, e.sp, lastField(e.path), after) || (isScalar(after) && isScalar(before) && underSecretPath(e.path)) {
		ch.Sensitive = true
		if ch.Before != nil {
			ch.Before = plan.Sensitive
		}
		if ch.After != nil {
			ch.After = plan.Sensitive
		}
	}
	ch.CreateOnly = createOnlyPath(f, e.path)
	r.Changes = append(r.Changes, ch)
	r.segs = append(r.segs, e.path)
}

func secretPath(f *facts, sp, key string, v any) bool {
	if f.isSecret(sp) {
		return true
	}
	return secretName(key) && isScalar(v)
}

// createOnlyPath reports whether the path or any ancestor is create-only.
func createOnlyPath(f *facts, p []seg) bool {
	for i := 1; i <= len(p); i++ {
		if f.isCreateOnly(schemaPathOf(p[:i], f.isMap)) {
			return true
		}
	}
	return false
}

func toEqual(es []equalAt) []plan.Equal {
	out := make([]plan.Equal, 0, len(es))
	for _, e := range es {
		out = append(out, plan.Equal{Path: e.path, Rule: e.rule})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func sortChanges(r *Result) {
	idx := make([]int, len(r.Changes))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return r.Changes[idx[a]].Path < r.Changes[idx[b]].Path })
	ch := make([]plan.Change, len(idx))
	sg := make([][]seg, len(idx))
	for i, j := range idx {
		ch[i], sg[i] = r.Changes[j], r.segs[j]
	}
	r.Changes, r.segs = ch, sg
}
