// Package diff is the planner's core: from the desired body D, the
// last-applied body L, the baseline B and the live body S of one resource
// (docs/architecture.md) it computes which owned paths change and why. It is
// pure: no I/O, no clock, no globals beyond an immutable cache of schema
// facts.
//
// Ownership: a path in D or L is owned. A collection D declares (a keyed
// array such as securityRules or subnets, a map such as tags) is owned
// whole: an item in S that is in neither D nor B (live right after our last
// write, which records the items the service added then) was added outside
// this tool; it is drift and the write removes it. Items other manifests own
// (OwnedElsewhere) are never drift. Paths in IgnoreChanges are never
// compared or written.
package diff

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
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

	// ID is the resource's ARM ID: with OwnedElsewhere it names the child
	// resources of inline collections (ID/subnets/NAME) whose items carry
	// no id of their own.
	ID string
	// OwnedElsewhere reports whether another manifest of the same state
	// manages the child resource with this ARM ID (a subnet declared as its
	// own resource): such items of a declared collection are never drift.
	// The ID is given in armid.Key form. nil: none.
	OwnedElsewhere func(id string) bool
	// IgnoreChanges are body paths from the azure.kubectl.io/ignore-changes
	// annotation (tags.costCenter, tags.*, properties.subnets): never
	// compared, never written, never drift.
	IgnoreChanges []string
	// Unknown are body paths whose desired value Azure generates during
	// this apply: never compared, always planned as a change whose After is
	// plan.Unknown (Desired holds that marker there). Patch and PutBody
	// write whatever Desired holds, so the engine substitutes the real
	// value before writing.
	Unknown []string
	// Secrets is the resource's secret rule, the one decision: it says
	// which planned changes are Sensitive and what a whole value hides
	// inside it, and the record hashes by the same rule. Build it with
	// SecretRule and the valueFrom paths; nil stands for exactly that.
	// The printers show the values it withholds as (sensitive).
	Secrets *secret.Rule
	// SecretPaths are body paths whose values came from valueFrom: hashed
	// in L, compared by hash, always shown as (sensitive). Map members may
	// be given as tags."a.b" or tags["a.b"] (see bodypath.JoinMember).
	SecretPaths []string
	// DisableRules names rule families (the Rule* constants) not to apply:
	// the corpus tests switch each family off in turn to measure what it
	// buys. Empty in normal use.
	DisableRules []string
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
	// Removed lists the paths removed from the manifest since the last
	// apply that the write does not delete itself: reset to a known
	// default, or no longer managed. After the write, KeptAfterWrite
	// compares them with the live body read back.
	Removed []Removal
	// StaleBaseline lists owned paths where live moved away from the
	// baseline but already holds the manifest's value (set back outside):
	// nothing is written, yet until B is recorded again a later return of
	// live to B's old value would look like no drift. The engine should
	// record B again from live for such a resource even without a write.
	StaleBaseline []string

	// segs holds the structured path of each change, parallel to Changes,
	// so Patch and PutBody need not re-parse display paths.
	segs []bodypath.Path
}

// Removal is a property removed from the manifest.
type Removal struct {
	Path string // display path, as in plan changes
	// Before is the live value when planned (plan.Sensitive for a secret).
	Before any
	// Default is set when the write resets the property to After, the
	// schema's or plugin's default; otherwise the service decides.
	Default bool
	After   any
	// Sensitive withholds the values from notes.
	Sensitive bool
}

const (
	reasonCreate       = "resource does not exist; will be created"
	reasonAddNoState   = "set in the manifest, absent from the live resource"
	reasonDiffNoState  = "live value differs from the manifest"
	reasonUserAdd      = "added to the manifest since the last apply"
	reasonUserChange   = "changed in the manifest since the last apply"
	reasonUserRemove   = "removed from the manifest since the last apply; will be removed from the live resource"
	reasonItemRemove   = "removed from the manifest since the last apply; the item will be removed from the collection"
	reasonChildDelete  = "removed from the manifest since the last apply; this child resource will be deleted"
	reasonStopManage   = "removed from the manifest since the last apply; no longer managed: the service decides its value (not written)"
	reasonReset        = "removed from the manifest since the last apply; reset to default (%s)"
	reasonOutside      = "present in Azure, not in the manifest: added outside this tool; will be removed"
	reasonOutsideDel   = "present in Azure, not in the manifest: added outside this tool; this child resource will be deleted"
	reasonUnknown      = "depends on a value Azure generates during this apply"
	reasonSecret       = "secret changed in the manifest since the last apply (compared by salted hash)"
	reasonDrift        = "changed outside this tool since the last apply (drift); will be restored to the manifest"
	reasonDriftGone    = "removed outside this tool since the last apply (drift); will be restored to the manifest"
	reasonOutsideItems = "present in Azure, not in the manifest: items added outside this tool since the last apply; will be removed"
	// A first plan cannot compare what GET does not return.
	reasonUnverifiable           = "unverifiable: not returned by the service; written once, then the value read back after the write is the baseline"
	reasonUnverifiableCreateOnly = "set in the manifest but not returned by the service and fixed at creation: unverifiable, not written"
)

// CauseUnverifiable is the plan cause of a change planned only because
// live does not show the path (see Result.addUnverifiable).
const CauseUnverifiable = plan.CauseUnverifiable

// prepared holds the hook-processed bodies and facts for one Input.
type prepared struct {
	f       *facts
	d, l, b map[string]any
	s       map[string]any
	// unknown are the resolved paths of Input.Unknown in D; secrets those
	// of Input.SecretPaths in D and L.
	unknown, secrets []bodypath.Path
	// rule is Input.Secrets (or SecretRule); fromValue the resolved
	// Input.SecretPaths in D and L, which with rule make the verdict.
	rule           *secret.Rule
	fromValue      []bodypath.Path
	ownedElsewhere func(item map[string]any, path bodypath.Path) bool
	// whole holds B's record of declared collections (by segsKey).
	whole map[string]collRecord
}

func prepare(in Input) prepared {
	p := prepared{f: factsFor(in.Schema, in.Plugin).without(in.DisableRules), d: in.Desired, l: in.LastApplied, b: in.Baseline, s: in.Live}
	if p.b != nil {
		p.b, p.whole = wholeCollections(p.b)
	}
	p.rule = in.Secrets
	if p.rule == nil {
		p.rule = SecretRule(in.ID, in.Schema, in.SecretPaths...)
	}
	for _, sp := range parsePatterns(in.SecretPaths) {
		p.fromValue = append(p.fromValue, resolve(p.f, p.d, sp)...)
		p.fromValue = append(p.fromValue, resolve(p.f, p.l, sp)...)
	}
	// The comparers also compare by hash at the type's secret paths.
	for _, sp := range parsePatterns(append(secret.TypePathsOf(in.ID), in.SecretPaths...)) {
		p.secrets = append(p.secrets, resolve(p.f, p.d, sp)...)
		p.secrets = append(p.secrets, resolve(p.f, p.l, sp)...)
	}
	// A type's own secret paths hold secrets in Azure too where neither
	// the manifest nor the record has them (an app setting added
	// outside): their changes are sensitive as well.
	for _, sp := range parsePatterns(secret.TypePathsOf(in.ID)) {
		p.secrets = append(p.secrets, resolve(p.f, p.s, sp)...)
	}
	unknown := parsePatterns(in.Unknown)
	for _, up := range unknown {
		p.unknown = append(p.unknown, resolve(p.f, p.d, up)...)
	}
	// Ignored and unknown paths leave every body before anything compares
	// them: they can then be neither a change nor drift.
	if skip := append(parsePatterns(in.IgnoreChanges), unknown...); len(skip) > 0 {
		p.d, p.l, p.b, p.s = withoutPaths(p.d, skip), withoutPaths(p.l, skip), withoutPaths(p.b, skip), withoutPaths(p.s, skip)
	}
	p.ownedElsewhere = ownedElsewhereFunc(in)
	if in.Plugin != nil {
		// Hooks get copies: callers' bodies are never modified.
		afterGet, beforeCompare := pluginHooks(in.Plugin)
		if beforeCompare && !afterGet && p.s != nil {
			p.s = bodypath.CopyMap(p.s)
		}
		if afterGet {
			if p.s != nil {
				p.s = in.Plugin.AfterGet(bodypath.CopyMap(p.s))
			}
			if p.b != nil {
				p.b = in.Plugin.AfterGet(bodypath.CopyMap(p.b))
			}
		}
		if beforeCompare {
			if p.d != nil || p.s != nil {
				p.d, p.s = in.Plugin.BeforeCompare(bodypath.CopyMap(p.d), p.s)
			}
			if p.l != nil {
				p.l, _ = in.Plugin.BeforeCompare(bodypath.CopyMap(p.l), nil)
			}
			if p.b != nil {
				// B is live as it was: it gets live's treatment, so drift
				// compares like with like.
				if !afterGet {
					p.b = bodypath.CopyMap(p.b)
				}
				_, p.b = in.Plugin.BeforeCompare(bodypath.CopyMap(p.d), p.b)
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
			r.add(p, entry{path: lp.path, sp: lp.sp, kind: plan.KindAdd}, nil, v, reasonCreate, plan.CauseUser)
		}
		r.addUnknown(p, in.Live)
		sortChanges(&r)
		return r
	}

	live := comparer{f: p.f, mode: modeOwner, explain: in.Explain, secrets: p.secrets}
	live.compareRoot(p.d, p.s)
	for _, u := range live.unverifiable {
		r.Unverifiable = append(r.Unverifiable, u.Display())
	}
	sort.Strings(r.Unverifiable)
	if len(live.ignored) > 0 {
		sort.Strings(live.ignored)
		for _, ig := range live.ignored {
			r.Warnings = append(r.Warnings, ig+" is readonly: ignored, never owned")
		}
	}

	if p.l == nil {
		// No state: D vs S under normalisation. Extra items in declared
		// collections cannot be told from server-added ones: not reported.
		for _, e := range live.out {
			reason := reasonDiffNoState
			if e.kind == plan.KindAdd {
				reason = reasonAddNoState
			}
			r.add(p, e, e.y, e.x, reason, plan.CauseUser)
			if in.Explain && !e.secret {
				// A first plan: say which normalisation families were
				// tried, so a reader can tell a real change from one the
				// tool does not know how to normalise yet.
				r.Changes[len(r.Changes)-1].RulesTried = p.f.rulesTried(e.sp, e.path.LastMember(), e.x, e.y)
			}
		}
		r.addUnverifiable(p, live.unverifiable)
		if in.Explain {
			r.Equal = toEqual(live.equal)
		}
	} else {
		r.withState(p, in)
	}
	r.addUnknown(p, in.Live)
	sortChanges(&r)
	r.Action = ActionNoOp
	if len(r.Changes) > 0 {
		r.Action = ActionUpdate
		for _, c := range r.Changes {
			if c.CreateOnly && c.Cause != CauseUnverifiable {
				r.Action = ActionReplace
				break
			}
		}
	}
	return r
}

// addUnverifiable plans, on a first plan (no state), each owned path the
// live body does not show (withheld, masked, never returned): the tool
// cannot tell whether live holds the manifest's value, so it says so and
// writes the value once; after that write, L and the baseline read back
// decide, and the path is never planned again unless the manifest changes.
// A create-only path is not written (a write could only fail or replace
// the resource): a warning names it instead, so the intent is never
// dropped silently.
func (r *Result) addUnverifiable(p prepared, paths []bodypath.Path) {
	for _, u := range paths {
		sp := schema.PathOf(u, p.f.isMap)
		if createOnlyPath(p.f, u) {
			r.Warnings = append(r.Warnings, u.Display()+": "+reasonUnverifiableCreateOnly)
			continue
		}
		x, _ := get(p.d, u)
		y, has := get(p.s, u)
		kind := plan.KindChange
		if !has || y == nil {
			kind = plan.KindAdd
		}
		ys, _ := y.(string)
		sens := secret.Masked(ys) || secret.IsHash(x) || p.sensitive(u, x)
		// What live holds there (nothing, null, a mask) is not the value,
		// so the change has no before: the plan says it does not know.
		r.add(p, entry{path: u, sp: sp, kind: kind, secret: sens}, nil, x, reasonUnverifiable, CauseUnverifiable)
	}
}

// addUnknown plans every value known only after apply as a change.
func (r *Result) addUnknown(p prepared, live map[string]any) {
	for _, up := range p.unknown {
		before, has := get(live, up)
		kind := plan.KindChange
		if !has {
			kind = plan.KindAdd
		}
		r.add(p, entry{path: up, sp: schema.PathOf(up, p.f.isMap), kind: kind}, before, plan.Unknown{}, reasonUnknown, plan.CauseUser)
	}
}

// withState computes user changes (D vs L, confirmed against S) and drift
// (S vs B) on owned paths.
func (r *Result) withState(p prepared, in Input) {
	user := comparer{f: p.f, mode: modeSym, key: secret.ResourceKey(in.SecretKey, in.ID), explain: in.Explain, secrets: p.secrets}
	user.compareRoot(p.d, p.l)
	var equal []equalAt
	var userPaths []bodypath.Path
	for _, e := range user.out {
		userPaths = append(userPaths, e.path)
		sv, sh := get(p.s, e.path)
		switch e.kind {
		case plan.KindRemove:
			if !sh || sv == nil {
				equal = append(equal, equalAt{e.path.Display(), RuleAlreadyAbsent})
				continue
			}
			if eq := r.removal(p, e, sv); eq != "" {
				equal = append(equal, equalAt{e.path.Display(), eq})
			}
		default:
			if e.secret {
				// Live rarely returns a secret: a value the manifest held
				// before (in L) is changed, not added.
				r.add(p, entry{path: e.path, sp: e.sp, kind: kindFor(sh || e.kind == plan.KindChange), secret: true}, sv, e.x, reasonSecret, plan.CauseUser)
				continue
			}
			// The manifest moved; does live already hold the new value?
			sub := comparer{f: p.f, mode: modeOwner, strict: true, path: e.path.Clone(), secrets: p.secrets}
			if sh {
				sub.compare(e.sp, e.path.LastMember(), e.x, sv, true, true)
			} else {
				sub.absent(e.sp, e.path.LastMember(), e.x)
			}
			reason := reasonUserChange
			if e.kind == plan.KindAdd {
				reason = reasonUserAdd
			}
			if len(sub.out) == 0 && len(sub.unverifiable) == 0 {
				equal = append(equal, equalAt{e.path.Display(), RuleLiveMatches})
				continue
			}
			for _, se := range sub.out {
				r.add(p, se, se.y, se.x, reason, plan.CauseUser)
			}
			// The user changed a value live does not show (write-only,
			// withheld): live cannot confirm it, so the change is written.
			for _, u := range sub.unverifiable {
				x, _ := get(p.d, u)
				y, has := get(p.s, u)
				r.add(p, entry{path: u, sp: schema.PathOf(u, p.f.isMap), kind: kindFor(has && y != nil)}, y, x, reason, plan.CauseUser)
			}
		}
	}

	// Drift: the baseline is server-side like S, so ARM's own normalisation
	// cancels out; without a baseline fall back to L vs S normalised.
	base := p.b
	if base == nil {
		base = p.l
	}
	drift := comparer{f: p.f, mode: modeOwner, strict: true, projected: p.b != nil, secrets: p.secrets, key: secret.ResourceKey(in.SecretKey, in.ID), sent: p.l}
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
		sv, sh := get(p.s, e.path)
		if sh && liveMatches(p, e, dv, sv) {
			// Set back outside to what the manifest wants: nothing to
			// write; the baseline catches up at the next record.
			equal = append(equal, equalAt{e.path.Display(), RuleLiveMatches})
			r.StaleBaseline = append(r.StaleBaseline, e.path.Display())
			continue
		}
		reason := reasonDrift
		if e.kind == plan.KindAdd {
			reason = reasonDriftGone
		}
		r.add(p, entry{path: e.path, sp: e.sp, kind: e.kind, secret: e.secret}, sv, dv, reason, plan.CauseDrift)
	}
	if p.b != nil {
		for _, e := range unkeyedAdditions(p, drift.out) {
			if overlaps(e.path, userPaths) {
				continue
			}
			r.add(p, e, e.y, e.x, reasonOutsideItems, plan.CauseDrift)
		}
	}
	if len(p.whole) > 0 {
		for _, e := range collectionDrift(p) {
			if overlaps(e.path, userPaths) {
				continue
			}
			reason := reasonOutside
			if childItem(p.f, e.path) {
				reason = reasonOutsideDel
			}
			r.add(p, e, e.y, nil, reason, plan.CauseDrift)
		}
	}
	if in.Explain {
		r.Equal = withoutChanged(toEqual(lastPerPath(append(user.equal, equal...))), r.Changes)
	}
}

// liveMatches reports whether live already holds what the manifest wants
// at a drifted path: drift is a change only when live differs from D.
func liveMatches(p prepared, e entry, dv, sv any) bool {
	sub := comparer{f: p.f, mode: modeOwner, strict: true, path: e.path.Clone(), secrets: p.secrets}
	sub.compare(e.sp, e.path.LastMember(), dv, sv, true, true)
	return len(sub.out) == 0 && len(sub.unverifiable) == 0
}

// unkeyedAdditions finds the owned arrays of objects without identifiers
// (storage ipRules, Key Vault accessPolicies, subnet serviceEndpoints)
// where live holds items B did not: B holds such an array whole, as live
// held it right after our write (items the service added then included),
// so an item live holds beyond it was added outside this tool since. The
// drift comparison forgives extra items (they may be the service's when B
// is a projection of a keyed array), so they are judged here, and only
// where D's items carry no identifier at all, not even a name or id: only
// then is B's array certainly whole. Each entry's x is D's array and y
// live's. found are the drift entries already reported.
func unkeyedAdditions(p prepared, found []entry) []entry {
	heur := factsFor(nil, nil)
	var out []entry
	walkOwnable(p.f, p.d, func(path bodypath.Path, sp schema.Path, v any, keyed, root bool) {
		dv, ok := v.([]any)
		if !ok || keyed || len(dv) == 0 || !allMaps(dv) {
			return
		}
		if kind, _ := (&comparer{f: heur}).classify(sp, dv, nil); kind == arrayKeyed {
			return // B may hold only the items D keyed
		}
		bv, _ := get(p.b, path)
		sv, _ := get(p.s, path)
		ba, ok1 := bv.([]any)
		sa, ok2 := sv.([]any)
		if !ok1 || !ok2 || len(sa) <= len(ba) || overlapsEntry(path, found) {
			return
		}
		e := entry{path: path.Clone(), sp: sp, kind: plan.KindChange, x: dv, y: sa}
		if liveMatches(p, e, dv, sa) {
			return
		}
		out = append(out, e)
	})
	return out
}

func overlapsEntry(p bodypath.Path, es []entry) bool {
	for _, e := range es {
		if hasPrefix(p, e.path) || hasPrefix(e.path, p) {
			return true
		}
	}
	return false
}

// lastPerPath keeps one entry per path, the last: a path D and L agree on
// (exact) whose drift live already undid is named by the later, more
// specific rule.
func lastPerPath(es []equalAt) []equalAt {
	last := make(map[string]int, len(es))
	for i, e := range es {
		last[e.path] = i
	}
	out := es[:0]
	for i, e := range es {
		if last[e.path] == i {
			out = append(out, e)
		}
	}
	return out
}

// withoutChanged drops the paths judged equal that a change covers: a path
// is never listed both as equal and as changed (a drift of a path D and L
// agree on).
func withoutChanged(eq []plan.Equal, changes []plan.Change) []plan.Equal {
	if len(changes) == 0 {
		return eq
	}
	within := func(a, b string) bool {
		return a == b || strings.HasPrefix(a, b+".") || strings.HasPrefix(a, b+"[")
	}
	out := eq[:0]
outer:
	for _, e := range eq {
		for _, c := range changes {
			if within(e.Path, c.Path) || within(c.Path, e.Path) {
				continue outer
			}
		}
		out = append(out, e)
	}
	return out
}

func kindFor(liveHas bool) plan.ChangeKind {
	if liveHas {
		return plan.KindChange
	}
	return plan.KindAdd
}

func overlaps(p bodypath.Path, others []bodypath.Path) bool {
	for _, o := range others {
		if hasPrefix(p, o) || hasPrefix(o, p) {
			return true
		}
	}
	return false
}

func (r *Result) add(p prepared, e entry, before, after any, reason string, cause plan.Cause) {
	f := p.f
	ch := plan.Change{Path: e.path.Display(), Before: before, After: after, Reason: reason, Kind: e.kind, Cause: cause}
	if e.kind == plan.KindRemove {
		ch.After = nil
		ch.ChildDelete = childItem(f, e.path)
	}
	if e.secret || p.sensitive(e.path, after, before) {
		ch.Sensitive = true
		if ch.Before != nil {
			ch.Before = plan.Sensitive{}
		}
		if ch.After != nil {
			ch.After = plan.Sensitive{}
		}
	} else {
		// A whole value (a new object, an array printed whole) keeps its
		// plain members and hides what the rule calls secret inside it.
		ch.Before = p.rule.MaskIn(e.path, ch.Before, plan.Sensitive{})
		ch.After = p.rule.MaskIn(e.path, ch.After, plan.Sensitive{})
	}
	if plan.IsUnknown(after) && e.kind != plan.KindRemove {
		// The marker, not a mask: a value not yet known is shown as such,
		// secret or not, and never as a concrete value.
		ch.KnownAfterApply, ch.After = true, after
	}
	ch.CreateOnly = createOnlyPath(f, e.path)
	r.Changes = append(r.Changes, ch)
	r.segs = append(r.segs, e.path)
}

// childItem reports whether p names an item of a collection whose items
// are ARM child resources (removing it deletes a subnet, a rule).
func childItem(f *facts, p bodypath.Path) bool {
	n := len(p)
	if n < 2 || p[n-1].Kind == bodypath.Member {
		return false
	}
	return f.children[schema.PathOf(p[:n-1], f.isMap)]
}

// removal plans a path present in L and live but gone from D. It returns
// a rule name when nothing needs writing.
func (r *Result) removal(p prepared, e entry, live any) string {
	f := p.f
	n := len(e.path)
	item := n > 0 && e.path[n-1].Kind != bodypath.Member
	member := n > 1 && e.path[n-1].Kind == bodypath.Member && f.isMap(schema.PathOf(e.path[:n-1], f.isMap))
	if k := firstArraySeg(e.path); k >= 0 && f.mergeColl[schema.PathOf(e.path[:k], f.isMap)] {
		r.Warnings = append(r.Warnings, e.path.Display()+": this collection's PUT keeps items it is not sent; the removal needs a DELETE of that item")
	}
	switch {
	case item:
		// An item of a declared collection: the write leaves it out.
		reason := reasonItemRemove
		if childItem(f, e.path) {
			reason = reasonChildDelete
		}
		r.add(p, e, live, nil, reason, plan.CauseUser)
		return ""
	case member:
		// A key of a declared map (a tag): removed.
		r.add(p, e, live, nil, reasonUserRemove, plan.CauseUser)
		return ""
	}
	if def, _, ok := f.defaultFor(e.sp); ok {
		sub := comparer{f: f, mode: modeOwner, strict: true}
		if eq, _ := sub.deepEqual(e.sp, e.path.LastMember(), def, live); eq {
			return RuleAlreadyAbsent
		}
		r.add(p, entry{path: e.path, sp: e.sp, kind: plan.KindChange, secret: e.secret}, live, def,
			fmt.Sprintf(reasonReset, formatValue(def)), plan.CauseDefaultReset)
		ch := r.Changes[len(r.Changes)-1]
		r.Removed = append(r.Removed, Removal{Path: ch.Path, Before: ch.Before, Default: true, After: def, Sensitive: ch.Sensitive || p.rule.Holds(e.path)})
		return ""
	}
	r.add(p, e, live, nil, reasonStopManage, plan.CauseRemoval)
	ch := r.Changes[len(r.Changes)-1]
	// Live's value read back after the write is noted as it is: one with a
	// secret inside is withheld whole.
	r.Removed = append(r.Removed, Removal{Path: ch.Path, Before: ch.Before, Sensitive: ch.Sensitive || p.rule.Holds(e.path)})
	return ""
}

// formatValue renders a scalar for a plan reason.
func formatValue(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// ownedElsewhereFunc adapts Input.OwnedElsewhere to collection items: an
// item is named by its own id, or by the parent's ID, the collection's
// member name and the item's name (ID/subnets/NAME). IDs are passed in
// armid.Key form.
func ownedElsewhereFunc(in Input) func(map[string]any, bodypath.Path) bool {
	if in.OwnedElsewhere == nil {
		return func(map[string]any, bodypath.Path) bool { return false }
	}
	return func(item map[string]any, coll bodypath.Path) bool {
		if id, ok := item["id"].(string); ok && id != "" && in.OwnedElsewhere(armid.Key(id)) {
			return true
		}
		name, ok := item["name"].(string)
		if !ok || name == "" || in.ID == "" {
			return false
		}
		return in.OwnedElsewhere(armid.Key(in.ID + "/" + coll.LastMember() + "/" + name))
	}
}

// createOnlyPath reports whether the path or any ancestor is create-only.
func createOnlyPath(f *facts, p bodypath.Path) bool {
	for i := 1; i <= len(p); i++ {
		if f.isCreateOnly(schema.PathOf(p[:i], f.isMap)) {
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
	sg := make([]bodypath.Path, len(idx))
	for i, j := range idx {
		ch[i], sg[i] = r.Changes[j], r.segs[j]
	}
	r.Changes, r.segs = ch, sg
}
