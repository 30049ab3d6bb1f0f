package apply

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// SchemaSource looks up type facts; *schema.Registry implements it.
type SchemaSource interface {
	Lookup(typ, apiVersion string) (*schema.Type, schema.Resolution)
}

// Engine plans and applies. Its collaborators are explicit so tests can run it
// against the emulator with any state backend.
type Engine struct {
	// Client reaches ARM (armclient.New adapts the ARM client).
	Client  Client
	Store   state.Store
	Schemas SchemaSource                 // nil: heuristics only
	Plugins func(typ string) diff.Plugin // nil: no plugins
	Options Options
	// Progress receives per-resource events during Execute; nil discards them.
	Progress Progress
	// Warn receives one line per warning (schema fallbacks, repairs); nil discards.
	Warn io.Writer
	// Secrets is the run's registry: values read at apply time (action
	// results, credentials read through references) are registered there,
	// and errors and progress are scrubbed with it. Nil: Plan makes one
	// over the manifest set's registry (Set.Secrets), so the run's own
	// values go with the engine while the set's are still scrubbed.
	Secrets *secret.Registry

	secretsMu sync.Mutex
	warnMu    sync.Mutex
	warned    map[string]bool
	// parents holds one lock per parent under which ARM serialises writes.
	parents sync.Map
	// kids indexes the schema's child types by parent type (cascade check).
	kidsOnce sync.Once
	kids     map[string][]string
}

// item is one resource's planning and execution record.
type item struct {
	res  *manifest.Resource // nil for a prune or a state-only delete
	id   string
	key  string // armid.Key(id), computed once: a plan keys every map by it
	typ  string
	ver  string
	name string

	declaredDeps []string
	deps         []*item

	schema   *schema.Type
	plugin   diff.Plugin
	secrets  []string // manifest secret paths (valueFrom)
	record   *state.Record
	live     map[string]any
	liveEtag string
	// read is set once live was read in this plan (or known absent
	// because an ancestor is).
	read    bool
	input   *diff.Input  // nil until decided, and once released
	result  *diff.Result // nil until decided, and once released
	planned plan.Resource
	// protected is set by the prevent-destroy annotation, or by a state
	// record applied with it: any plan that deletes or replaces the
	// resource is refused. annotated is the manifest's annotation alone,
	// what the next record stores.
	protected bool
	annotated bool
	// otherSet names the set whose record this resource has, when that is
	// not this run's set: writing it would move it to this set, and that
	// set's --prune would then delete it, so it needs --adopt.
	otherSet string
	// unknown lists body paths whose value Azure generates during this
	// apply; nameDeferred is set when the name itself is one of them.
	unknown      []string
	nameDeferred bool
	// body is the desired body with the deferred values known so far;
	// waitsOn names replaced resources whose new values it takes.
	body    map[string]any
	waitsOn []string
	// replaced is set once this resource was deleted and created again:
	// resources inside it (children, extension resources scoped to it)
	// went with it and must be read again before they are judged.
	replaced bool
	// notes are told to the user in the result (e.g. values Azure kept).
	notes []string
	// forget is set when a delete or prune finds the resource already
	// absent but recorded: executing it removes the stale record only.
	forget bool
	// carrier is the parent this run deletes that takes this resource,
	// which ARM cannot delete on its own; stays says why a resource the
	// plan was to delete stays in Azure (planUndeletable).
	carrier *item
	stays   string
	// afterLocks are the locks this run deletes that hold this resource:
	// its delete waits for theirs (planLocks).
	afterLocks []*item
	// rebase is set when live was set back outside to the manifest's
	// value: executing it records the baseline again, writing nothing to
	// Azure.
	rebase bool
	// unselected marks a resource read only for the live values others
	// take from it: the manifests declare it but -l left it out.
	unselected bool
	// refNeed are the paths other resources read from this one
	// (${ref:NAME.PATH}): its read needs them as it needs owned paths.
	refNeed []string
	// envelope is set while live is the generic list's envelope over the
	// record's baseline (envelopeOver); full asks the next read for the
	// whole resource.
	envelope bool
	full     bool
	// viaParent is the parent's body as read, for a resource read through
	// it (mergeread.go), until decide finds the resource's entries there.
	viaParent map[string]any
}

// desired is the body to diff and write: the manifest's, with deferred
// values resolved as far as they are known.
func (it *item) desired() map[string]any {
	if it.body != nil {
		return it.body
	}
	return it.res.Body
}

func (it *item) display() string {
	if it.res != nil && it.res.Origin.File != "" {
		return it.typ + "/" + it.name + " (" + it.res.Origin.String() + ")"
	}
	return it.typ + "/" + it.name
}

// Prepared is a computed plan plus what Execute needs to carry it out
// without reading Azure again.
type Prepared struct {
	Plan  *plan.Plan
	items []*item
	key   []byte
	// records are the state records in scope (target subscription and set),
	// by key: cascades drop those of children ARM deleted with a parent.
	records map[string]*state.Record
	// setSize is how many records the set holds in scope, for --prune's
	// "would delete everything" guard.
	setSize int
	// protectedKeys are the keys of every resource the plan knows to be
	// protected by prevent-destroy: annotated in a manifest, or recorded
	// so in state (any set). A plan that destroys one, even as the child
	// of something it deletes, is refused.
	protectedKeys map[string]bool

	// refreshOnly: the plan only records drift (no state-only changes).
	refreshOnly bool
	// declared holds the keys of the IDs the plan's manifests declare:
	// inline children declared on their own are not drift.
	declared map[string]bool
	// stop is done once no new write may start (ExecuteUntil).
	stop context.Context
	// readOnly are the resources live values are read from that the run
	// does not manage (-l left them out), by key: read once by the plan,
	// never written, so their values then are the values apply uses.
	readOnly map[string]*item
	// locks are the locks that would refuse a delete or replace of the
	// plan and that it does not delete itself (Check refuses them).
	locks []heldLock

	ownOnce  sync.Once
	own      map[string]bool
	keptOnce sync.Once
	kept     map[string]bool
}

// ErrPruneEmpty refuses a prune with no manifests: it would delete every
// resource of the set because nothing was loaded, not because the user
// removed them.
var ErrPruneEmpty = errors.New("refusing to prune: no resources were loaded from the manifests, so every resource of the set would be deleted; check -f/-k (and -l), or use `kubectl azure delete` to remove the set on purpose")

// Plan reads live state and recorded state for every manifest resource (and,
// with Prune or Delete, for recorded resources), diffs them and orders the
// result. It writes nothing anywhere.
func (e *Engine) Plan(ctx context.Context, set *manifest.Set) (*Prepared, error) {
	e.secretsFor(set)
	if e.Options.prunes() && len(set.Resources) == 0 {
		return nil, ErrPruneEmpty
	}
	secretKey, err := e.Store.SecretKey(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the state's secret key: %w", err)
	}
	st, err := e.loadRecords(ctx)
	if err != nil {
		return nil, err
	}
	items := e.manifestItems(set, st.byKey)
	declared := make(map[string]bool, len(items)+len(set.Existing))
	for _, it := range items {
		declared[it.key] = true
	}
	for _, r := range set.Existing {
		// Declared as not this set's: never pruned, even if once recorded.
		declared[armid.Key(r.ID)] = true
	}
	run := &Prepared{key: secretKey, declared: declared}
	items = e.withPrunes(items, st, declared)
	var never []manifest.Problem
	sc := planScope{byKey: make(map[string]*item, len(items)), recs: st.byKey, bodies: st.bodies, problems: &never}
	for _, it := range items {
		sc.byKey[it.key] = it
	}
	if !e.Options.deletes() { // a delete resolves no value
		existing, err := e.readExisting(ctx, set, sc.byKey)
		if err != nil {
			return nil, err
		}
		if run.readOnly, err = e.readReferenced(ctx, items, sc.byKey); err != nil {
			return nil, err
		}
		for k, t := range existing {
			if run.readOnly == nil {
				run.readOnly = map[string]*item{}
			}
			run.readOnly[k] = t
		}
	}
	needReferenced(items, sc.byKey)
	if err := e.readAndDecide(ctx, items, sc, run); err != nil {
		return nil, err
	}
	if len(never) > 0 {
		// Invalid input: nothing was written, and apply would fail.
		return nil, sortedProblems(never)
	}
	return e.finishPlan(ctx, set, run, items, st, sc)
}

// recordsInScope are the state's records: all of them by key (any set) and
// those of this run's subscription and set.
type recordsInScope struct {
	all     []*state.Record
	byKey   map[string]*state.Record
	inScope map[string]*state.Record
	bodies  *recordBodies
}

// loadRecords lists the state's records, without their bodies.
func (e *Engine) loadRecords(ctx context.Context) (recordsInScope, error) {
	records, bodies, err := e.listRecords(ctx)
	if err != nil {
		return recordsInScope{}, fmt.Errorf("reading state: %w", err)
	}
	st := recordsInScope{all: records, byKey: make(map[string]*state.Record, len(records)), inScope: map[string]*state.Record{}, bodies: bodies}
	for _, r := range records {
		k := armid.Key(r.ID)
		st.byKey[k] = r
		if e.inScope(r) {
			st.inScope[k] = r
		}
	}
	return st, nil
}

// withPrunes adds, when the plan prunes, an item for every record in scope
// the manifests no longer declare; then links dependencies and looks up
// every item's schema and plugin.
func (e *Engine) withPrunes(items []*item, st recordsInScope, declared map[string]bool) []*item {
	if e.Options.prunes() {
		for _, r := range st.all {
			k := armid.Key(r.ID)
			if declared[k] || st.inScope[k] == nil {
				continue
			}
			items = append(items, &item{id: r.ID, key: k, typ: r.Type, ver: r.APIVersion, name: lastName(r.ID), record: r, protected: r.PreventDestroy})
		}
	}
	linkDeps(items)
	for _, it := range items {
		it.schema, it.plugin = e.lookup(it.typ, it.ver)
		it.schema = withSecrets(it.schema, it.typ, it.ver, it.secrets)
	}
	return items
}

// readAndDecide reads and decides the items chunk by chunk. Chunks come
// dependencies first: a deferred value is known at plan time only when
// the resource it reads is neither created nor replaced. Only a chunk's
// bodies are in memory at once, plus those of resources that will be
// written or that others read.
func (e *Engine) readAndDecide(ctx context.Context, items []*item, sc planScope, run *Prepared) error {
	needed := referenced(items)
	// One read session for the whole plan: a subscription-wide list is
	// paged once, not again from page 1 for every chunk. Plans only: a
	// session never spans a write.
	expect := make([]ReadRequest, 0, len(items))
	for _, it := range items {
		if !it.nameDeferred {
			expect = append(expect, ReadRequest{ID: it.id, APIVersion: it.ver})
		}
	}
	reads := e.client().NewReadSession(expect)
	for _, chunk := range planChunks(items) {
		if err := e.decideChunk(ctx, chunk, sc, run, reads); err != nil {
			return err
		}
		for _, it := range chunk {
			if !needed[it] {
				it.release()
			}
		}
	}
	return nil
}

// decideChunk reads and decides one chunk of items.
func (e *Engine) decideChunk(ctx context.Context, chunk []*item, sc planScope, run *Prepared, reads ReadSession) error {
	if err := sc.bodies.load(ctx, recordsOf(chunk)...); err != nil {
		return fmt.Errorf("reading state: %w", err)
	}
	if err := e.readAll(ctx, chunk, reads); err != nil {
		return err
	}
	for _, it := range chunk {
		if err := e.resolveAtPlan(ctx, it, sc); err != nil {
			return err
		}
		e.decide(it, run)
		if pr := e.recordTooLarge(it); pr != nil {
			*sc.problems = append(*sc.problems, *pr)
		}
	}
	// An envelope read only ever confirms that nothing is to be done;
	// anything else is judged again on the whole resource.
	if again := notQuiet(chunk); len(again) > 0 {
		if err := e.readAll(ctx, again, reads); err != nil {
			return err
		}
		for _, it := range again {
			e.decide(it, run)
		}
	}
	return nil
}

// sortedProblems is the plan's invalid input, in file, document and line
// order.
func sortedProblems(never []manifest.Problem) error {
	sort.SliceStable(never, func(i, j int) bool {
		a, b := never[i], never[j]
		if a.File != b.File || a.Index != b.Index {
			return a.File < b.File || a.File == b.File && a.Index < b.Index
		}
		return a.Line < b.Line
	})
	return &manifest.ValidationError{Problems: never}
}

// finishPlan runs the checks that need every decision (undeletable types,
// cascades, locks, resources -l left out) and builds the plan.
func (e *Engine) finishPlan(ctx context.Context, set *manifest.Set, run *Prepared, items []*item, st recordsInScope, sc planScope) (*Prepared, error) {
	// A name resolved just now may be a record's ID: that record is
	// declared after all, not a prune candidate.
	items = dropResolvedPrunes(items)
	for _, it := range items {
		if it.res != nil {
			run.declared[it.key] = true
		}
	}
	managed := make(map[string]bool, len(run.declared)+len(st.inScope))
	for k := range run.declared {
		managed[k] = true
	}
	for k := range st.inScope {
		managed[k] = true
	}
	e.planUndeletable(items)
	if err := e.planCascades(ctx, items, managed, sc); err != nil {
		return nil, err
	}
	if err := e.planLocks(ctx, items, managed, run); err != nil {
		return nil, err
	}
	warnings, err := e.checkUnselected(ctx, set)
	if err != nil {
		return nil, err
	}
	p := &plan.Plan{FormatVersion: plan.FormatVersion, Set: e.set(), Subscription: e.Options.Subscription}
	if p.Subscription == "" {
		p.Subscription = set.Subscription
	}
	p.Warnings = append(p.Warnings, warnings...)
	for _, it := range items {
		p.Resources = append(p.Resources, it.planned)
		// A vault deleted with its group is named by both deletes: once.
		for _, n := range softDeleteNotes(it.planned, true) {
			if !slices.Contains(p.Warnings, n) {
				p.Warnings = append(p.Warnings, n)
			}
		}
	}
	p.Subscriptions = subscriptions(items)
	order(p, items)
	p.Summarize()
	run.Plan, run.items, run.records, run.setSize = p, items, st.inScope, len(st.inScope)
	run.protectedKeys, run.refreshOnly = protectedKeys(items, st.all), e.Options.refreshOnly()
	return run, nil
}

// referenced marks the items another item reads at plan or execute time:
// dependencies (their live bodies answer references and their writes
// decide whether a dependant is read again) and reference targets.
func referenced(items []*item) map[*item]bool {
	out := map[*item]bool{}
	byKey := make(map[string]*item, len(items))
	for _, it := range items {
		byKey[it.key] = it
	}
	for _, it := range items {
		for _, d := range it.deps {
			out[d] = true
		}
		if it.res == nil {
			continue
		}
		defs := make([]*manifest.Deferred, 0, len(it.res.Deferred)+1)
		for _, d := range it.res.Deferred {
			defs = append(defs, d)
		}
		if it.res.NameDeferred != nil {
			defs = append(defs, it.res.NameDeferred)
		}
		for _, def := range defs {
			for _, ref := range def.Refs {
				if d := byKey[armid.Key(ref.Target)]; d != nil {
					out[d] = true
				}
			}
		}
	}
	return out
}

// release drops the bodies of a decided item that Execute will not write
// and nothing else reads, so a large plan holds the bodies of the
// resources it writes rather than of every resource it read
// (BENCHMARKS.md, Plan10000Memory). Anything that may be decided again
// at execute time keeps them.
func (it *item) release() {
	if it.res == nil || it.record == nil || it.live == nil || it.planned.Action != plan.ActionNoOp || hasDeferred(it.res) || it.rebase {
		return
	}
	for _, d := range it.deps {
		if d.planned.Action != plan.ActionNoOp {
			return
		}
	}
	it.live = map[string]any{} // exists; the plan keeps its hash and etag
	it.input, it.result = nil, nil
	it.record.LastApplied, it.record.Baseline = nil, nil
}

// dropResolvedPrunes removes prune candidates whose ID a manifest resource
// took when its computed name was resolved, and the edges to them.
func dropResolvedPrunes(items []*item) []*item {
	named := map[string]bool{}
	for _, it := range items {
		if it.res != nil && it.res.NameDeferred != nil && !it.nameDeferred {
			named[it.key] = true
		}
	}
	if len(named) == 0 {
		return items
	}
	gone := map[*item]bool{}
	out := items[:0]
	for _, it := range items {
		if it.res == nil && named[it.key] {
			gone[it] = true
			continue
		}
		out = append(out, it)
	}
	for _, it := range out {
		deps := it.deps[:0]
		for _, d := range it.deps {
			if !gone[d] {
				deps = append(deps, d)
			}
		}
		it.deps = deps
	}
	return out
}

// manifestItems makes one item per manifest resource.
func (e *Engine) manifestItems(set *manifest.Set, recs map[string]*state.Record) []*item {
	items := make([]*item, 0, len(set.Resources))
	for _, r := range set.Resources {
		k := armid.Key(r.ID)
		it := &item{res: r, id: r.ID, key: k, typ: r.Type, ver: r.APIVersion, name: r.Name,
			declaredDeps: r.DependsOn, secrets: append(append([]string(nil), r.SecretPaths...), secretDeferred(r)...), record: recs[k],
			protected: preventDestroy(r), annotated: preventDestroy(r), nameDeferred: r.NameDeferred != nil}
		if it.record != nil && it.record.PreventDestroy {
			it.protected = true
		}
		if it.record != nil {
			if rs := it.record.Set; rs != e.set() && (rs != "" || e.set() != DefaultSet) {
				it.otherSet = rs
			}
		}
		if it.nameDeferred {
			// The real ID is computed at apply time; nothing can be read
			// or recorded under the placeholder.
			it.record = nil
		}
		items = append(items, it)
	}
	return items
}

// inScope reports whether a state record belongs to this run's target:
// prune and delete never touch another subscription's or set's records.
func (e *Engine) inScope(r *state.Record) bool {
	return r.InScope(e.Options.Subscription, e.set())
}

// subscriptions lists, sorted, every subscription the plan touches.
func subscriptions(items []*item) []string {
	seen := map[string]bool{}
	var out []string
	for _, it := range items {
		s := armid.SubscriptionOf(it.id)
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// ownedElsewhere reports whether a manifest of this plan declares id.
func (p *Prepared) ownedElsewhere(id string) bool { return p.declared[armid.Key(id)] }

func (e *Engine) set() string {
	if e.Options.Set == "" {
		return DefaultSet
	}
	return e.Options.Set
}

func (e *Engine) lookup(typ, ver string) (*schema.Type, diff.Plugin) {
	var s *schema.Type
	if e.Schemas != nil {
		// Fallback warnings were already given, with the manifest's origin,
		// when the manifests were validated.
		s, _ = e.Schemas.Lookup(typ, ver)
	}
	var p diff.Plugin
	if e.Plugins != nil {
		p = e.Plugins(typ)
	}
	return s, p
}

// warnf prints a warning once per run: fifty resources of one type share
// one schema fallback.
func (e *Engine) warnf(format string, args ...any) {
	if e.Warn == nil {
		return
	}
	msg := fmt.Sprintf(format, args...)
	e.warnMu.Lock()
	defer e.warnMu.Unlock()
	if e.warned == nil {
		e.warned = map[string]bool{}
	}
	if e.warned[msg] {
		return
	}
	e.warned[msg] = true
	fmt.Fprintln(e.Warn, "warning: "+msg)
}

// read GETs one resource: 404 means it does not exist.
func (e *Engine) read(ctx context.Context, it *item) error {
	resp, err := e.getItem(ctx, it)
	switch {
	case errors.Is(err, ErrNotFound):
		it.live, it.liveEtag = nil, ""
		return nil
	case err != nil:
		return fmt.Errorf("reading %s: %w", it.display(), err)
	}
	if resp == nil || resp.Body == nil {
		// An answer without a body is not an empty resource: writing from
		// it would drop every property the manifest does not name.
		return fmt.Errorf("reading %s: %w", it.display(), errNoBody)
	}
	it.live, it.liveEtag, it.envelope = resp.Body, resp.ETag, false
	return nil
}

// errNoBody is a read that answered success without a resource body.
var errNoBody = errors.New("ARM answered without a readable resource body; nothing was written for it: run again, and report it if it persists")

// readAll reads the live state of every item whose ID is known, by
// collection where the ARM client finds that cheaper (unless
// Options.CollectionReads is off). Each read names the paths the diff
// compares (owned: in D or L), so a list item lacking one is read with a
// GET. A resource whose name Azure generates during this apply cannot
// exist yet and is not read. session (may be nil) carries list pages
// between the chunks of one plan.
func (e *Engine) readAll(ctx context.Context, items []*item, session ReadSession) error {
	todo := make([]*item, 0, len(items))
	reqs := make([]ReadRequest, 0, len(items))
	for _, it := range items {
		if it.nameDeferred {
			continue
		}
		if absentAncestor(it) {
			// Inside something this plan just read as absent (a resource
			// group, a parent, the scope of an extension resource): it
			// cannot exist, and a first apply reads nothing per resource
			// to learn that.
			it.live, it.liveEtag, it.read = nil, "", true
			continue
		}
		var d, l map[string]any
		if it.res != nil {
			d = it.desired()
		}
		if it.record != nil {
			l = it.record.LastApplied
		}
		todo = append(todo, it)
		need := diff.Owned(d, l)
		if len(it.refNeed) > 0 {
			need = append(need, it.refNeed...)
		}
		r := ReadRequest{ID: readID(it), APIVersion: it.ver, Need: need, Envelope: e.envelopeReadable(it)}
		if r.Envelope {
			r.WrittenAt = it.record.Updated
		}
		reqs = append(reqs, r)
	}
	results := e.client().ReadMany(ctx, reqs, ReadOptions{Disable: !e.Options.CollectionReads, Session: session, CacheLag: e.Options.CacheLag})
	for i, r := range results {
		it := todo[i]
		it.envelope = false
		switch {
		case r.Err != nil:
			return fmt.Errorf("reading %s: %w", it.display(), r.Err)
		case !r.Exists:
			it.live, it.liveEtag = nil, ""
		case r.Body == nil:
			return fmt.Errorf("reading %s: %w", it.display(), errNoBody)
		case r.Envelope && reqs[i].Envelope:
			it.live, it.liveEtag, it.envelope = envelopeOver(it.record.Baseline, r.Body), "", true
		case r.Envelope:
			return fmt.Errorf("reading %s: the generic list answered a read that needs the whole resource (a bug: report it)", it.display())
		default:
			it.live, it.liveEtag = r.Body, r.Etag
			if readID(it) != it.id {
				takeParentRead(it, r.Body)
			}
		}
		it.read = true
	}
	return ctx.Err()
}

// envelopeReadable reports whether ARM's generic list (envelopes only) may
// stand for the item's live state: a resource this set recorded, whose
// diff compares nothing but envelope members (the ARM client checks the
// paths) and that no option asks to see whole. The rest of its body is
// taken from the baseline, so it is only good for confirming that nothing
// changed: notQuiet sends anything else back for a full read. A record
// without a last-applied body (a write never confirmed, such as one whose
// provisioning failed) is read whole: the envelope cannot show whether
// the write is still owed.
func (e *Engine) envelopeReadable(it *item) bool {
	return !it.full && it.res != nil && it.record != nil && it.record.Baseline != nil && it.record.LastApplied != nil &&
		it.otherSet == "" && len(it.record.Accepted) == 0 && len(it.secrets) == 0 && len(it.unknown) == 0 &&
		e.Options.Mode == plan.ModeNormal && !e.replaceRequested(it) && readID(it) == it.id
}

// envelopeMembers are what ARM's generic list carries of a resource
// (GenericResource, Microsoft.Resources 2021-04-01): in envelopeOver they
// come from the list, everything else from the baseline.
var envelopeMembers = []string{"id", "name", "type", "location", "extendedLocation", "tags", "plan", "kind", "managedBy", "sku", "identity"}

// envelopeOver is the live state an envelope stands for: the baseline
// with the envelope's members in place of its own (a member the envelope
// lacks is absent).
func envelopeOver(baseline, env map[string]any) map[string]any {
	out := make(map[string]any, len(baseline)+len(env))
	for k, v := range baseline {
		out[k] = v
	}
	for _, k := range envelopeMembers {
		delete(out, k)
	}
	for k, v := range env {
		out[k] = v
	}
	// The list's provisioningState ($expand) is today's; the baseline's
	// is from the last write. A resource left Failed must look Failed.
	if ps, ok := env["provisioningState"].(string); ok {
		props, _ := out["properties"].(map[string]any)
		cp := make(map[string]any, len(props)+1)
		for k, v := range props {
			cp[k] = v
		}
		cp["provisioningState"] = ps
		out["properties"] = cp
	}
	return out
}

// notQuiet returns the items read as envelopes whose plan is anything but
// "nothing to do", marked to be read in full.
func notQuiet(items []*item) []*item {
	var out []*item
	for _, it := range items {
		pr := it.planned
		if !it.envelope || pr.Action == plan.ActionNoOp && len(pr.Changes) == 0 && len(pr.Accepted) == 0 && !it.rebase && !it.forget {
			continue
		}
		it.full, it.rebase = true, false
		out = append(out, it)
	}
	return out
}

// absentAncestor reports whether the nearest ancestor the plan manages
// (linkDeps makes it a dependency, so an earlier chunk read it) was read
// in this plan and does not exist.
func absentAncestor(it *item) bool {
	for _, d := range it.deps {
		if d.read && d.live == nil && !d.nameDeferred && armid.Contains(d.id, it.id) {
			return true
		}
	}
	return false
}

// DefaultConcurrency bounds resources in progress at once. It is far above
// the ARM client's bound on requests in flight because a resource waiting on
// a long-running operation holds no request: with the client's 16, a
// 200-resource apply took 2.2x its critical-path bound; with room for every
// resource it took 1.2x (BENCHMARKS.md, Apply200DAG).
const DefaultConcurrency = 256

func (e *Engine) concurrency() int {
	if e.Options.Concurrency > 0 {
		return e.Options.Concurrency
	}
	return DefaultConcurrency
}

// decide computes the diff and the action for one item.
func (e *Engine) decide(it *item, p *Prepared) {
	settleParentRead(it)
	pr := it.planBase()
	switch {
	case it.res == nil || e.Options.deletes():
		// A pruned resource, or the delete command.
		e.decideDelete(it, &pr)
	case e.Options.refreshOnly():
		e.compare(it, p, &pr)
		e.decideRefresh(it, &pr)
	default:
		res := e.compare(it, p, &pr)
		e.decideWrite(it, &pr, res)
		if len(it.waitsOn) > 0 && pr.Action != plan.ActionNoOp {
			pr.Reason = strings.TrimPrefix(pr.Reason+"; ", "; ") + "it takes values from " + strings.Join(it.waitsOn, ", ") + ", which the plan replaces: they are known after apply"
		}
		if it.record != nil && it.live != nil {
			pr.Accepted = stillDiffer(it.record.Accepted, it.desired(), it.live)
		}
	}
	it.planned = pr
}

// planBase is what the plan says of the item whatever its action.
func (it *item) planBase() plan.Resource {
	pr := plan.Resource{ID: it.id, Type: it.typ, APIVersion: it.ver, Changes: []plan.Change{},
		Subscription: armid.SubscriptionOf(it.id), Protected: it.protected}
	if it.res != nil {
		pr.Origin = it.res.Origin.String()
		pr.Name = it.res.Name
		pr.Review = reviewOf(it.res) // what a reviewer must check (a role assignment's role, principal, scope)
	}
	pr.LiveEtag = it.liveEtag
	pr.LiveHash = hashBody(it.live)
	for _, d := range it.deps {
		pr.DependsOn = append(pr.DependsOn, d.id)
	}
	return pr
}

// decideDelete plans a pruned resource, or one the delete command names.
func (e *Engine) decideDelete(it *item, pr *plan.Resource) {
	if it.live == nil {
		pr.Action = plan.ActionNoOp
		pr.Because(plan.ReasonAbsent)
		// A record of this set for a resource read as absent is stale:
		// the delete (or prune) forgets it, and writes nothing to Azure.
		// A protected record stays, so protection outlives the absence.
		if it.read && it.record != nil && it.otherSet == "" && !it.protected {
			it.forget = true
			pr.Because(plan.ReasonAbsentForgotten)
		}
		return
	}
	pr.Action, pr.Method = plan.ActionDelete, plan.MethodDelete
	switch {
	case it.res == nil:
		pr.BecauseOf(plan.ReasonPrune, "recorded in state for set "+e.set()+" but no longer declared (--prune)")
	case it.record == nil:
		pr.Because(plan.ReasonDeleteUnmanaged)
	case it.res.Origin == manifest.FromState:
		pr.Because(plan.ReasonNamedDelete)
	default:
		pr.Because(plan.ReasonDeclaredDelete)
	}
	pr.Changes = []plan.Change{{Path: "", Before: "(exists)", After: nil, Kind: plan.KindRemove, Reason: pr.Reason}}
}

// compare runs the diff of the item and puts its changes in pr.
func (e *Engine) compare(it *item, p *Prepared, pr *plan.Resource) diff.Result {
	in := diff.Input{Desired: it.desired(), Live: it.live, Schema: it.schema, Plugin: it.plugin,
		SecretKey: state.SecretKeyFor(p.key, it.record), Explain: e.Options.Explain, ID: it.id, OwnedElsewhere: p.ownedElsewhere,
		IgnoreChanges: ignoreChanges(it.res), Unknown: it.unknown, SecretPaths: it.secrets,
		Secrets: it.secretRule()}
	if it.record != nil && it.live != nil {
		in.LastApplied, in.Baseline = it.record.LastApplied, it.record.Baseline
	}
	res := diff.Compute(in)
	it.input, it.result = &in, &res
	pr.Changes = res.Changes
	pr.Equal = res.Equal
	for _, w := range res.Warnings {
		e.warnf("%s: %s", it.display(), w)
	}
	return res
}

// decideWrite picks the action and method of a declared resource from
// its diff.
func (e *Engine) decideWrite(it *item, pr *plan.Resource, res diff.Result) {
	switch {
	case it.nameDeferred:
		pr.Action, pr.Method = plan.ActionCreate, plan.MethodPut
		pr.NameKnownAfterApply = true
		pr.Because(plan.ReasonDeferredName)
		// Every owned property is shown, though the ID is not known yet.
		pr.Changes = deferredNameChanges(plan.Change{Path: "", Before: nil, After: "(new resource)", Kind: plan.KindAdd, Reason: pr.Reason, Cause: plan.CauseUser}, pr.Changes)
	case it.live == nil:
		e.decideCreate(it, pr)
	case it.record == nil:
		pr.Action = plan.ActionAdopt
		pr.Because(plan.ReasonAdopt)
		if len(pr.Changes) > 0 {
			pr.Method = e.method(it)
		}
	case res.Action == diff.ActionReplace:
		pr.Action, pr.Method = plan.ActionReplace, plan.MethodReplace
		pr.Because(plan.ReasonCreateOnly)
		if e.replaceRequested(it) {
			pr.BecauseOf(plan.ReasonCreateOnly, "a create-only property changed, and "+plan.ReasonReplaceRequested.Text())
		}
	case e.replaceRequested(it):
		pr.Action, pr.Method = plan.ActionReplace, plan.MethodReplace
		pr.Because(plan.ReasonReplaceRequested)
		// Contract: a write must have changes; the whole resource is
		// deleted and written again.
		pr.Changes = append([]plan.Change{{Path: "", Before: "(exists)", After: "(new resource)", Kind: plan.KindChange, Reason: pr.Reason, Cause: plan.CauseUser}}, pr.Changes...)
	case len(pr.Changes) > 0:
		pr.Action = plan.ActionUpdate
		pr.Method = e.method(it)
		if unmanagedOnly(pr.Changes) {
			// Paths the tool stops managing are not written: the apply
			// records the smaller ownership in state and sends nothing
			// (a PUT of live's own body could reset write-only values).
			pr.Method = plan.MethodNone
		}
	case it.otherSet == "" && failedState(it.live):
		// Every owned value is there, but Azure says provisioning failed
		// (a write whose operation ended Failed or Canceled): the resource
		// is not what was asked for, so the write is sent again, as ARM's
		// own remedy is, instead of a silent "No changes" over it.
		pr.Action, pr.Method = plan.ActionUpdate, plan.MethodPut
		pr.Because(plan.ReasonFailedState)
		// Contract: a write must have changes.
		pr.Changes = []plan.Change{{Path: "properties.provisioningState", Before: provisioningState(it.live), After: "(written again)", Kind: plan.KindChange, Reason: pr.Reason, Cause: plan.CauseDrift}}
	default:
		pr.Action = plan.ActionNoOp
		// Set back outside to what the manifest wants: nothing to write,
		// but the baseline must follow, or a later return to its old
		// value would look like no drift at all.
		it.rebase = it.record != nil && it.otherSet == "" && len(res.StaleBaseline) > 0
	}
}

// decideCreate plans a declared resource Azure does not hold.
func (e *Engine) decideCreate(it *item, pr *plan.Resource) {
	pr.Action, pr.Method = plan.ActionCreate, plan.MethodPut
	pr.Because(plan.ReasonNotFound)
	if it.record != nil {
		pr.Because(plan.ReasonRecreate)
	}
	if len(pr.Changes) == 0 {
		// Contract: a write must have changes; a create writes the whole body.
		pr.Changes = []plan.Change{{Path: "", Before: nil, After: "(new resource)", Kind: plan.KindAdd, Reason: pr.Reason}}
	}
}

// decideRefresh keeps only the drift of a recorded resource, told the
// other way round: what the record held becomes what Azure holds now.
// Nothing else is planned: a refresh never creates, deletes, adopts or
// writes a manifest edit.
func (e *Engine) decideRefresh(it *item, pr *plan.Resource) {
	pr.Action, pr.Method = plan.ActionNoOp, plan.MethodNone
	drift := []plan.Change{}
	for _, c := range pr.Changes {
		if !c.IsDrift() {
			continue
		}
		c.Before, c.After = c.After, c.Before
		switch c.Kind {
		case plan.KindAdd:
			c.Kind = plan.KindRemove
		case plan.KindRemove:
			c.Kind = plan.KindAdd
		}
		c.ChildDelete = false
		c.Reason = plan.ReasonRefreshDrift.Text()
		drift = append(drift, c)
	}
	pr.Changes = drift
	switch {
	case it.nameDeferred, it.live == nil:
		pr.BecauseOf(plan.ReasonRefreshSkip, plan.ReasonRefreshSkip.Text()+" (not in Azure; a refresh never creates)")
		pr.Changes = []plan.Change{}
	case it.record == nil:
		pr.BecauseOf(plan.ReasonRefreshSkip, plan.ReasonRefreshSkip.Text()+" (not in state; a refresh never adopts)")
		pr.Changes = []plan.Change{}
	case it.otherSet != "":
		pr.BecauseOf(plan.ReasonRefreshSkip, plan.ReasonRefreshSkip.Text()+" (recorded under set "+it.otherSet+"; refresh it with --set "+it.otherSet+")")
		pr.Changes = []plan.Change{}
	case len(drift) > 0:
		pr.Action = plan.ActionUpdate
		pr.Because(plan.ReasonRefreshDrift)
	}
}

// replaceRequested reports whether --replace names the item.
func (e *Engine) replaceRequested(it *item) bool {
	for _, id := range e.Options.Replace {
		if armid.Equal(id, it.id) {
			return true
		}
	}
	return false
}

// method picks PATCH when the type's PATCH model takes every changed path,
// else GET-modify-PUT; a type that answered 405 this run is PUT.
func (e *Engine) method(it *item) plan.Method {
	if e.client().PatchUnsupported(it.typ) {
		return plan.MethodPut
	}
	if m := diff.WriteMethod(*it.input, *it.result); m != plan.MethodNone {
		return m
	}
	return plan.MethodPut
}

// schemaPath turns a concrete path ("properties.env[1].value") into the
// schema path syntax ("properties.env[].value").
func schemaPath(p string) string {
	var b strings.Builder
	depth := 0
	for _, r := range p {
		switch {
		case r == '[':
			depth++
			if depth == 1 {
				b.WriteString("[]")
			}
		case r == ']':
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// hashBody pins a live body for saved plans.
func hashBody(b map[string]any) string {
	if b == nil {
		return ""
	}
	data, _ := json.Marshal(b) // map keys marshal sorted: stable
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8])
}

// order sorts plan resources parents-first (creates) for a readable plan.
func order(p *plan.Plan, items []*item) {
	depth := depths(items)
	idx := make([]int, len(items))
	keys := make([]string, len(items))
	for i := range idx {
		idx[i] = i
		keys[i] = items[i].key
	}
	sort.SliceStable(idx, func(a, b int) bool {
		da, db := depth[items[idx[a]]], depth[items[idx[b]]]
		if da != db {
			return da < db
		}
		return keys[idx[a]] < keys[idx[b]]
	})
	sortedItems := make([]*item, len(items))
	res := make([]plan.Resource, len(items))
	for i, j := range idx {
		sortedItems[i] = items[j]
		res[i] = items[j].planned
	}
	copy(items, sortedItems)
	p.Resources = res
}

// lastName is the name of the resource an ID names.
func lastName(id string) string {
	if x, err := armid.Parse(id); err == nil {
		return x.Name()
	}
	return id[strings.LastIndex(strings.TrimRight(id, "/"), "/")+1:]
}

// withSecrets marks the manifest's valueFrom paths secret, so the diff hashes
// them against L and never shows them, even where the spec does not say so.
// It copies the schema rather than changing the shared registry value.
func withSecrets(s *schema.Type, typ, ver string, paths []string) *schema.Type {
	if len(paths) == 0 {
		return s
	}
	c := &schema.Type{Name: typ, APIVersion: ver}
	if s != nil {
		*c = *s
	}
	props := make(map[string]*schema.Property, len(c.Properties)+len(paths))
	for k, v := range c.Properties {
		props[k] = v
	}
	for _, p := range paths {
		sp := schemaPath(p)
		np := &schema.Property{Type: schema.TypeString}
		if old := props[sp]; old != nil {
			cp := *old
			np = &cp
		}
		np.Secret = true
		props[sp] = np
	}
	c.Properties = props
	return c
}

// Undeclared lists, sorted, the IDs of the records in scope (target
// subscription and set) that the manifests no longer declare: what
// --prune would delete. It reuses the records the plan already read, so
// naming them costs no second read of the state.
func (p *Prepared) Undeclared() []string {
	var out []string
	for k, r := range p.records {
		if !p.declared[k] {
			out = append(out, r.ID)
		}
	}
	sort.Strings(out)
	return out
}

// secretsFor fixes the engine's registry: Secrets when given, else a new
// one over set's registry.
func (e *Engine) secretsFor(set *manifest.Set) *secret.Registry {
	e.secretsMu.Lock()
	defer e.secretsMu.Unlock()
	if e.Secrets == nil {
		var parent *secret.Registry
		if set != nil {
			parent = set.Secrets
		}
		e.Secrets = secret.NewRegistry(parent)
	}
	return e.Secrets
}

// secrets is the engine's registry (see Secrets).
func (e *Engine) secrets() *secret.Registry { return e.secretsFor(nil) }

// unmanagedOnly reports whether every change is a path the tool stops
// managing, which no write sends (cause removal).
func unmanagedOnly(cs []plan.Change) bool {
	for _, c := range cs {
		if c.Cause != plan.CauseRemoval {
			return false
		}
	}
	return len(cs) > 0
}
