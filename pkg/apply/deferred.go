package apply

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// manifestLookup answers a ValueRef path against a live body.
func manifestLookup(body map[string]any, path string) (any, bool) {
	if body == nil {
		return nil, false
	}
	return manifest.LookupPath(body, path)
}

// hasDeferred reports whether the resource needs live values or action
// results before it can be written.
func hasDeferred(r *manifest.Resource) bool {
	return r != nil && (len(r.Deferred) > 0 || r.NameDeferred != nil || len(r.Actions) > 0)
}

// planScope is what plan-time resolution looks things up in.
type planScope struct {
	byKey  map[string]*item
	recs   map[string]*state.Record
	bodies *recordBodies
	// problems collects references that can never resolve, so the plan
	// reports all of them at once; nil: resolveAtPlan returns them.
	problems *[]manifest.Problem
}

// liveValue answers a reference from the referenced item's live body. At
// plan time only a resource that exists and is not about to be created or
// replaced has a value the write will see; at execute time its write and
// read-back have happened.
func liveValue(byKey map[string]*item, atPlan bool) func(manifest.ValueRef) (any, bool) {
	return func(ref manifest.ValueRef) (any, bool) {
		d := byKey[armid.Key(ref.Target)]
		if d == nil || d.live == nil {
			return nil, false
		}
		if atPlan && (d.planned.Action == plan.ActionCreate || d.planned.Action == plan.ActionReplace) {
			return nil, false
		}
		return manifestLookup(d.live, ref.Path)
	}
}

// resolveAtPlan fills what it can of the resource's deferred values from
// live bodies; the rest stay unknown and the plan shows them as known after
// apply. A name that resolves gives the real ID, which is then read.
func (e *Engine) resolveAtPlan(ctx context.Context, it *item, sc planScope) error {
	if !hasDeferred(it.res) {
		return nil
	}
	get := liveValue(sc.byKey, true)
	call := planActions(ctx, e, it, sc.byKey)
	body, unknown, err := resolveBody(it.res, get, call, e.secrets())
	if err != nil {
		return fmt.Errorf("%s: %w", it.display(), err)
	}
	// A delete or a refresh writes no dependant, and a refresh plans no
	// write of the referenced resource either: neither can judge this.
	check := e.Options.Mode == plan.ModeNormal
	var never []manifest.Problem
	if check {
		for _, p := range unknown {
			never = append(never, neverKnown(it.res, it.res.Deferred[p], sc.byKey)...)
		}
	}
	// An action whose resource exists and stays is called now, so an
	// unchanged key is quiet and a key rotated outside is a change (compared
	// with the hash in state); one on a resource created or replaced by this
	// plan has no answer before apply.
	copied := false
	for _, p := range sortedKeys(it.res.Actions) {
		v, err := call(*it.res.Actions[p])
		if err != nil {
			unknown = append(unknown, p)
			continue
		}
		if !copied {
			body, copied = diff.CopyBody(body), true
		}
		if err := setPath(body, p, v); err != nil {
			return fmt.Errorf("%s: %w", it.display(), err)
		}
	}
	it.body, it.unknown = body, unknown
	sort.Strings(it.unknown)
	it.waitsOn = replacedRefs(it.res, sc.byKey)
	if it.res.NameDeferred == nil {
		return reportNever(never, sc)
	}
	name, known, err := it.res.NameDeferred.Resolve(get)
	if err != nil {
		return fmt.Errorf("%s: name %s: %w", it.display(), it.res.NameDeferred.Expr, err)
	}
	if !known {
		if check {
			never = append(never, neverKnown(it.res, it.res.NameDeferred, sc.byKey)...)
		}
		return reportNever(never, sc)
	}
	if bad := badComputedName(it.res, fmt.Sprint(name)); bad != nil {
		// Nothing is read or planned under a name that addresses another
		// resource than the one the manifest declares.
		return reportNever(append(never, *bad), sc)
	}
	if err := reportNever(never, sc); err != nil {
		return err
	}
	it.setName(fmt.Sprint(name))
	it.record = sc.recs[it.key]
	if err := sc.bodies.load(ctx, it.record); err != nil {
		return fmt.Errorf("reading state: %w", err)
	}
	return e.read(ctx, it)
}

// badComputedName holds a name computed from live values to the rules a
// literal name meets (manifest.ValidName), once its value is known: a value
// with "/" or ".." would address a resource of another type or place. The
// problem names where the expression was written.
func badComputedName(r *manifest.Resource, name string) *manifest.Problem {
	err := manifest.ValidName(name)
	if err == nil {
		return nil
	}
	d := r.NameDeferred
	return &manifest.Problem{File: r.Origin.File, Index: r.Origin.Index, Line: d.Line, Path: d.Field, Severity: manifest.SeverityError,
		Message: fmt.Sprintf("%q (from %s) is not a valid ARM resource name: %v; nothing is read or written under it", armid.Printable(name), d.Expr, err)}
}

// readReferenced reads the resources ${ref:NAME.PATH} reads that are not
// items of this run (-l left them out): the run never writes them, so the
// plan resolves from them as from a no-op resource, and apply uses the same
// bodies. They join byKey; they are never planned, printed or written.
func (e *Engine) readReferenced(ctx context.Context, items []*item, byKey map[string]*item) (map[string]*item, error) {
	var out map[string]*item
	for _, it := range items {
		if it.res == nil || !hasDeferred(it.res) {
			continue
		}
		var refs []manifest.ValueRef
		for _, p := range sortedKeys(it.res.Deferred) {
			refs = append(refs, it.res.Deferred[p].Refs...)
		}
		if d := it.res.NameDeferred; d != nil {
			refs = append(refs, d.Refs...)
		}
		for _, ref := range refs {
			k := armid.Key(ref.Target)
			if byKey[k] != nil || ref.APIVersion == "" {
				continue
			}
			t, err := e.readOnlyItem(ctx, ref.Target, armid.TypeOf(ref.Target), ref.APIVersion, lastName(ref.Target))
			if err != nil {
				return nil, fmt.Errorf("%s reads %s, which -l leaves out: %w", it.display(), armid.Printable(ref.Target), err)
			}
			byKey[k] = t
			if out == nil {
				out = map[string]*item{}
			}
			out[k] = t
		}
	}
	return out, nil
}

// needReferenced makes every path a reference reads from a resource of
// the plan one its read needs: a collection item lacking it (a reduced
// list item) is then read with a GET, so a reference is never judged
// missing, at plan or at apply, by a list item.
func needReferenced(items []*item, byKey map[string]*item) {
	for _, it := range items {
		if it.res == nil || !hasDeferred(it.res) {
			continue
		}
		defs := make([]*manifest.Deferred, 0, len(it.res.Deferred)+1)
		for _, p := range sortedKeys(it.res.Deferred) {
			defs = append(defs, it.res.Deferred[p])
		}
		if it.res.NameDeferred != nil {
			defs = append(defs, it.res.NameDeferred)
		}
		for _, d := range defs {
			for _, ref := range d.Refs {
				t := byKey[armid.Key(ref.Target)]
				if t == nil || t.unselected {
					continue
				}
				p, err := bodypath.ParseRef(ref.Path)
				if err != nil {
					continue
				}
				if n := p.String(); !slices.Contains(t.refNeed, n) {
					t.refNeed = append(t.refNeed, n)
				}
			}
		}
	}
}

// reportNever hands problems to the plan's collector, or returns them.
func reportNever(ps []manifest.Problem, sc planScope) error {
	switch {
	case len(ps) == 0:
		return nil
	case sc.problems != nil:
		*sc.problems = append(*sc.problems, ps...)
		return nil
	}
	return &manifest.ValidationError{Problems: ps}
}

// neverKnown returns a problem for each reference of d that can never
// resolve: its resource exists, this plan does not write it (so Azure
// fills nothing more in before apply reads it), and its live body has no
// value at the path, or GET withholds that value. A resource the plan
// creates, replaces or updates may gain the value with that write, so its
// references wait for apply.
func neverKnown(r *manifest.Resource, d *manifest.Deferred, byKey map[string]*item) []manifest.Problem {
	if d == nil {
		return nil
	}
	var out []manifest.Problem
	for _, ref := range d.Refs {
		t := byKey[armid.Key(ref.Target)]
		if t != nil && t.unselected && t.live == nil {
			out = append(out, manifest.Problem{File: r.Origin.File, Index: r.Origin.Index, Line: d.Line, Path: d.Field, Severity: manifest.SeverityError,
				Message: fmt.Sprintf("%s cannot be resolved: %s is left out by -l and does not exist in Azure, so this run never creates it; select it too", d.Expr, t.typ+"/"+t.name)})
			continue
		}
		if t == nil || t.live == nil || written(t) {
			continue
		}
		if _, ok := manifestLookup(t.live, ref.Path); ok {
			continue
		}
		var msg string
		if withheld(t, ref) {
			msg = fmt.Sprintf("%s cannot be resolved: Azure never returns %s of %s (a secret or write-only value that GET withholds); take the value from its source instead (the valueFrom the referenced resource takes it from)", d.Expr, ref.Path, t.typ+"/"+t.name)
		} else {
			msg = fmt.Sprintf("%s cannot be resolved: %s exists in Azure and has no %s, and this plan does not write it, so the value will never appear", d.Expr, t.typ+"/"+t.name, ref.Path)
			var cands []string
			for _, c := range bodyPaths(t.live, 400) {
				if !strings.HasPrefix(ref.Path, c+".") { // an ancestor is no suggestion
					cands = append(cands, c)
				}
			}
			if near := schema.Suggest(ref.Path, cands); len(near) > 0 {
				msg += "; did you mean " + strings.Join(near, " or ") + "?"
			} else {
				msg += "; check the path"
			}
		}
		out = append(out, manifest.Problem{File: r.Origin.File, Index: r.Origin.Index, Line: d.Line, Path: d.Field, Message: msg, Severity: manifest.SeverityError})
	}
	return out
}

// written reports whether the plan writes t (or may, once values known
// only at apply time are in): only then can a value absent now appear. An
// item not decided yet counts as written.
func written(t *item) bool {
	switch t.planned.Action {
	case plan.ActionNoOp:
		return false
	case plan.ActionAdopt:
		return t.planned.Method != plan.MethodNone
	}
	return true
}

// bodyPaths lists the dotted paths of a live body's object members (array
// items are not entered), at most limit of them: the candidates a
// misspelt reference path is compared with.
func bodyPaths(body map[string]any, limit int) []string {
	var out []string
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for _, k := range sortedKeys(m) {
			if len(out) >= limit {
				return
			}
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			out = append(out, p)
			if sub, ok := m[k].(map[string]any); ok {
				walk(p, sub)
			}
		}
	}
	walk("", body)
	return out
}

// errNoAnswerYet is what a plan-time action call returns when its answer
// cannot be had before apply; the value is then known after apply.
var errNoAnswerYet = errors.New("action answered at apply time")

// planActions returns the plan-time action call: it POSTs an action only
// on a resource that exists and that this plan neither creates nor
// replaces, and answers each action once per resource. A failed call (no
// permission to list keys, ...) leaves the value to apply time rather than
// failing the plan; apply reports the error if it persists.
func planActions(ctx context.Context, e *Engine, it *item, byKey map[string]*item) func(manifest.ActionRef) (any, error) {
	answers := map[manifest.ActionRef]any{}
	return func(a manifest.ActionRef) (any, error) {
		if v, ok := answers[a]; ok {
			if v == nil {
				return nil, errNoAnswerYet
			}
			return v, nil
		}
		answers[a] = nil
		d := byKey[armid.Key(a.Target)]
		if d == nil || d.live == nil || d.planned.Action == plan.ActionCreate || d.planned.Action == plan.ActionReplace {
			return nil, errNoAnswerYet
		}
		if d.record == nil && !e.Options.Adopt && !a.Existing {
			// Unmanaged: apply refuses it (or Check does, for the plan).
			return nil, errNoAnswerYet
		}
		v, err := e.callAction(ctx, it, a)
		if err != nil || v == nil {
			return nil, errNoAnswerYet
		}
		answers[a] = v
		return v, nil
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// replacedRefs names the referenced resources the plan replaces or creates:
// values read from them change, which is why a dependant is written.
func replacedRefs(r *manifest.Resource, byKey map[string]*item) []string {
	seen := map[string]bool{}
	var out []string
	add := func(d *manifest.Deferred) {
		if d == nil {
			return
		}
		for _, ref := range d.Refs {
			t := byKey[armid.Key(ref.Target)]
			if t != nil && t.planned.Action == plan.ActionReplace && !seen[t.id] {
				seen[t.id] = true
				out = append(out, t.display())
			}
		}
	}
	for _, d := range r.Deferred {
		add(d)
	}
	add(r.NameDeferred)
	sort.Strings(out)
	return out
}

// setName makes a resolved name the item's name and ID.
func (it *item) setName(name string) {
	it.id = it.res.IDForName(name)
	it.key = armid.Key(it.id)
	it.name = name
	it.nameDeferred = false
}

// resolveBody returns a copy of the manifest body with every resolvable
// deferred value in place, and the paths that stay unknown. call fills the
// action results of a valueFrom.template; nil (at plan time) leaves them
// unknown, since secrets are read at apply time only.
func resolveBody(r *manifest.Resource, get func(manifest.ValueRef) (any, bool), call func(manifest.ActionRef) (any, error), sec *secret.Registry) (map[string]any, []string, error) {
	body := r.Body
	var unknown []string
	paths := make([]string, 0, len(r.Deferred))
	for p := range r.Deferred {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	copied := false
	for _, p := range paths {
		v, known, err := r.Deferred[p].ResolveFor(sec, get, call)
		if errors.Is(err, errNoAnswerYet) {
			known, err = false, nil
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s (%s): %w", p, r.Deferred[p].Expr, err)
		}
		if !known {
			unknown = append(unknown, p)
			continue
		}
		if !copied {
			body, copied = diff.CopyBody(body), true
		}
		if err := setPath(body, p, v); err != nil {
			return nil, nil, err
		}
		if readsSecret(r.Deferred[p]) || len(r.Deferred[p].Actions) > 0 {
			// A value read from a credential (a connection string, a key)
			// is as secret where it is used as where it was read.
			if s, ok := v.(string); ok {
				sec.Register(s)
			}
		}
	}
	return body, unknown, nil
}

// readsSecret reports whether an expression reads a sensitive path of
// another resource's live body, by the one rule (secret.Ref): a credential
// name (properties.ConnectionString), a path its type keeps secrets at (a
// Key Vault secret's properties.value), a credential container.
func readsSecret(d *manifest.Deferred) bool {
	for _, ref := range d.Refs {
		if secret.Ref(ref.Target, ref.Path) {
			return true
		}
	}
	return false
}

// SecretPaths lists every body path of r the secrecy rule calls secret
// because of the manifest (valueFrom, actions, references to secrets):
// what the engine hashes, and what a log of a body of r must hide.
func SecretPaths(r *manifest.Resource) []string {
	out := append(append([]string(nil), r.SecretPaths...), secretDeferred(r)...)
	sort.Strings(out)
	return slices.Compact(out)
}

// secretDeferred lists the body paths whose deferred values read secrets.
func secretDeferred(r *manifest.Resource) []string {
	var out []string
	for p, d := range r.Deferred {
		if readsSecret(d) || len(d.Actions) > 0 {
			out = append(out, p)
		}
	}
	// An action's answer (a key) is secret: compared by its hash in state.
	for p := range r.Actions {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// prepareWrite runs right before a resource is written, after its
// dependencies were written and read back: it resolves every deferred
// value, calls actions for secrets, computes the real ID of a deferred
// name (and checks whether that resource exists), and plans the resource
// again with what is now known. A resource inside a replaced one is read
// again: it went with its parent.
func (e *Engine) prepareWrite(ctx context.Context, p *Prepared, it *item) error {
	if it.res == nil {
		return nil
	}
	redecide := false
	if it.live != nil {
		for _, d := range it.deps {
			if d.replaced {
				if err := e.read(ctx, it); err != nil {
					return err
				}
				redecide = true
				break
			}
		}
	}
	if hasDeferred(it.res) {
		if err := e.resolveAtExecute(ctx, p, it); err != nil {
			return err
		}
		redecide = true
	}
	if redecide {
		e.decide(it, p)
		it.planned.Review = reviewOf(it.res)
		if it.planned.Action == plan.ActionReplace && !e.Options.AllowReplace {
			return fmt.Errorf("%s: a value known only now changes a create-only property, so it must be replaced; rerun with --allow-replace", it.display())
		}
		if it.planned.Action == plan.ActionAdopt && !e.Options.Adopt {
			return fmt.Errorf("%s already exists in Azure under the name computed now but is not in state; nothing was written to it. Rerun with --adopt to take it over", it.display())
		}
		if it.protected && it.planned.Action == plan.ActionReplace {
			return fmt.Errorf("%s is annotated azure.kubectl.io/prevent-destroy but a value known only now forces its replacement; nothing was written to it", it.display())
		}
	}
	return nil
}

// resolveAtExecute resolves everything deferred from the dependencies' live
// bodies; a value still missing is an error naming the reference.
func (e *Engine) resolveAtExecute(ctx context.Context, p *Prepared, it *item) error {
	byKey := make(map[string]*item, len(it.deps))
	for _, d := range it.deps {
		byKey[d.key] = d
	}
	for k, d := range p.readOnly {
		if byKey[k] == nil {
			byKey[k] = d
		}
	}
	get := liveValue(byKey, false)
	call := func(a manifest.ActionRef) (any, error) { return e.callAction(ctx, it, a) }
	missing := func(d *manifest.Deferred) error {
		var refs, never []string
		for _, r := range d.Refs {
			if _, ok := get(r); !ok {
				refs = append(refs, "${ref:"+r.String()+"}")
				if withheld(byKey[armid.Key(r.Target)], r) {
					never = append(never, r.Path)
				}
			}
		}
		if len(never) > 0 {
			return fmt.Errorf("%s: %s cannot be resolved: Azure did not return %s, a secret or write-only value that GET withholds; take the value from its source instead (the valueFrom the referenced resource takes it from)", it.display(), d.Expr, strings.Join(never, ", "))
		}
		return fmt.Errorf("%s: %s has no value in Azure after its dependencies were written (%s); check the referenced path", it.display(), d.Expr, strings.Join(refs, ", "))
	}
	body, unknown, err := resolveBody(it.res, get, call, e.secrets())
	if err != nil {
		return fmt.Errorf("%s: %w", it.display(), err)
	}
	if len(unknown) > 0 {
		return missing(it.res.Deferred[unknown[0]])
	}
	if len(it.res.Actions) > 0 {
		if body, err = e.callActions(ctx, it, body); err != nil {
			return err
		}
	}
	it.body, it.unknown = body, nil
	if it.nameDeferred {
		name, known, err := it.res.NameDeferred.Resolve(get)
		if err != nil {
			return fmt.Errorf("%s: name %s: %w", it.display(), it.res.NameDeferred.Expr, err)
		}
		if !known {
			return missing(it.res.NameDeferred)
		}
		if bad := badComputedName(it.res, fmt.Sprint(name)); bad != nil {
			return fmt.Errorf("%s: nothing was written: %w", it.display(), &manifest.ValidationError{Problems: []manifest.Problem{*bad}})
		}
		it.setName(fmt.Sprint(name))
		rec, err := e.Store.Get(ctx, it.id)
		if err == nil {
			it.record = rec
		}
		if err := e.read(ctx, it); err != nil {
			return err
		}
	}
	return nil
}

// callActions reads secrets from POST actions (listKeys, ...) of managed
// resources. The values are registered for scrubbing and only ever stored
// hashed.
func (e *Engine) callActions(ctx context.Context, it *item, body map[string]any) (map[string]any, error) {
	paths := make([]string, 0, len(it.res.Actions))
	for p := range it.res.Actions {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	body = diff.CopyBody(body)
	for _, p := range paths {
		v, err := e.callAction(ctx, it, *it.res.Actions[p])
		if err != nil {
			return nil, fmt.Errorf("%w (for %s)", err, p)
		}
		if err := setPath(body, p, v); err != nil {
			return nil, err
		}
	}
	return body, nil
}

// callAction POSTs one action of a managed resource and picks its path from
// the answer; a string result is registered for scrubbing at once.
func (e *Engine) callAction(ctx context.Context, it *item, a manifest.ActionRef) (any, error) {
	if err := e.actionConsent(ctx, it, a); err != nil {
		return nil, err
	}
	resp, err := e.client().Post(ctx, a.URLPath(), a.APIVersion, a.RequestBody())
	if err != nil {
		return nil, fmt.Errorf("%s: calling %s on %s: %w", it.display(), a.Action, armid.Printable(a.Target), err)
	}
	var v any
	ok := false
	if resp != nil {
		v, ok = manifestLookup(resp.Body, a.Path)
	}
	if !ok {
		return nil, fmt.Errorf("%s: the %s answer of %s has no %s; check valueFrom.action.path", it.display(), a.Action, armid.Printable(a.Target), a.Path)
	}
	if s, isStr := v.(string); isStr {
		e.secrets().Register(s)
	}
	return v, nil
}

// actionConsent refuses an action on a resource this tool does not manage
// (no record in state) unless the run may adopt: a key read from it is as
// much a taking over as a write to it, which a plan refuses without
// --adopt. It asks state itself, so a batch that plans its resource
// without the action's (the loop's) is held to the same consent as a
// plan of the whole set; a resource this run created is recorded by the
// time its dependants are written.
func (e *Engine) actionConsent(ctx context.Context, it *item, a manifest.ActionRef) error {
	if e.Options.Adopt || a.Existing {
		// --adopt, or the set declared the resource existing: both say
		// reading it is meant.
		return nil
	}
	rec, err := e.Store.Get(ctx, a.Target)
	switch {
	case err == nil && rec != nil:
		return nil
	case err != nil && !errors.Is(err, state.ErrNotFound):
		return fmt.Errorf("%s: reading the state of %s before calling %s: %w", it.display(), armid.Printable(a.Target), a.Action, err)
	}
	return fmt.Errorf("%s: not calling %s on %s: it is not managed by kubectl-azure (not in state), and nothing of a resource it does not manage is read without consent; nothing was written. Adopt it first (`kubectl azure apply --adopt`, or `kubectl azure import`)", it.display(), a.Action, armid.Printable(a.Target))
}

// setPath stores v at a dotted path ([n] array items, [key] members) that
// already exists in body (it holds the placeholder).
func setPath(body map[string]any, path string, v any) error {
	// Deferred and action paths are in the diff's path syntax (the loader
	// keys them with bodypath.JoinMember: setParameters."Database Server"),
	// not a reference's.
	segs, err := bodypath.Parse(path)
	if err != nil {
		return fmt.Errorf("body path %s: %w", path, err)
	}
	var cur any = body
	for i, s := range segs {
		last := i == len(segs)-1
		switch c := cur.(type) {
		case map[string]any:
			if s.Kind != bodypath.Member {
				return fmt.Errorf("body path %s: %s is not a member", path, bodypath.Path{s})
			}
			if last {
				c[s.Name] = v
				return nil
			}
			cur = c[s.Name]
		case []any:
			if s.Kind != bodypath.Index || s.Index < 0 || s.Index >= len(c) {
				return fmt.Errorf("body path %s: no array item %s", path, bodypath.Path{s})
			}
			if last {
				c[s.Index] = v
				return nil
			}
			cur = c[s.Index]
		default:
			return fmt.Errorf("body path %s: %s is not inside an object or array", path, bodypath.Path{s})
		}
	}
	return nil
}

// deepCopyMap copies a decoded JSON body so resolved values never leak into
// the manifest's own body.
// checkUnselected looks for the dependencies -l left out: the run neither
// creates nor changes them, so each must exist in Azure already. A resource
// group is read directly; a resource is looked for in its group's listing
// (one request per group, whatever its api-version). A child resource is
// judged by its top-level ancestor, since listings do not carry children.
func (e *Engine) checkUnselected(ctx context.Context, set *manifest.Set) ([]string, error) {
	var out []string
	listed := map[string]map[string]bool{}
	for _, raw := range set.Unselected {
		id, err := armid.Parse(raw)
		if err != nil || id.Subscription == "" || id.ResourceGroup == "" {
			continue
		}
		exists, err := e.rgExists(ctx, id, listed)
		if err != nil {
			return nil, fmt.Errorf("looking for %s (a dependency left out by -l): %w", armid.Printable(raw), err)
		}
		if !exists {
			out = append(out, fmt.Sprintf("%s is a dependency the selector (-l) left out and it does not exist in Azure: the writes that need it will fail; select it too", armid.Printable(raw)))
		}
	}
	return out, nil
}

// rgExists reports whether a resource group, or a resource's top-level
// ancestor, is present, memoising each group's listing.
func (e *Engine) rgExists(ctx context.Context, id armid.ID, listed map[string]map[string]bool) (bool, error) {
	rgKey := armid.Key("/subscriptions/" + id.Subscription + "/resourceGroups/" + id.ResourceGroup)
	ids, ok := listed[rgKey]
	if !ok {
		items, err := e.client().ListResourceGroup(ctx, id.Subscription, id.ResourceGroup)
		switch {
		case errors.Is(err, ErrNotFound):
			ids = nil
		case err != nil:
			return false, err
		default:
			ids = map[string]bool{rgKey: true}
			for _, it := range items {
				if s, _ := it["id"].(string); s != "" {
					ids[armid.Key(s)] = true
				}
			}
		}
		listed[rgKey] = ids
	}
	if id.IsResourceGroup() {
		return ids != nil, nil
	}
	if ids == nil {
		return false, nil
	}
	top := id
	if len(id.Types) > 1 {
		top.Types, top.Names = id.Types[:1], id.Names[:1]
	}
	if id.Scope != "" && !strings.EqualFold(id.Scope, "/subscriptions/"+id.Subscription+"/resourceGroups/"+id.ResourceGroup) {
		return true, nil // an extension resource: its listing is elsewhere
	}
	return ids[top.Key()], nil
}

// withheld reports whether GET withholds the value a reference reads from
// d: a secret (the one secret rule, or d's own valueFrom paths) or a value
// the spec or d's plugin marks write-only.
func withheld(d *item, ref manifest.ValueRef) bool {
	if d == nil {
		return false
	}
	if secret.Ref(ref.Target, ref.Path, d.secrets...) {
		return true
	}
	if d.schema == nil {
		return false
	}
	sp, prop := d.schema.Resolve(schema.SplitPath(ref.Path))
	if prop != nil && (prop.WriteOnly || prop.Secret) {
		return true
	}
	if d.plugin != nil {
		if r := d.plugin.Rules(); r != nil && slices.Contains(r.WriteOnly, sp) {
			return true
		}
	}
	return false
}
