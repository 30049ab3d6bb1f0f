package apply

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/record"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// ExecuteError reports that some resources failed or were not attempted;
// the others were applied. Its counts are those of the Result returned with
// it, so the summary line and the per-resource outcome always agree.
type ExecuteError struct {
	Failed  []string
	Skipped []string
	// Invalid names the failed resources whose input turned out invalid
	// only at execute time (a name computed from a value known after a
	// create); nothing was written for them.
	Invalid []string
	// Cancelled is set when the run was interrupted (Ctrl-C, SIGTERM,
	// --timeout); errors.Is(err, context.Canceled) then holds.
	Cancelled error
}

func (e *ExecuteError) Error() string {
	msg := fmt.Sprintf("%d resource(s) failed, %d skipped", len(e.Failed), len(e.Skipped))
	if e.Cancelled != nil {
		return "apply interrupted: " + msg + "; writes in flight stay journaled and the next apply settles them; run apply again to finish"
	}
	return msg + "; fix the errors above and run apply again (finished resources are recorded and will not be written again)"
}

// Unwrap exposes the cancellation cause.
func (e *ExecuteError) Unwrap() error { return e.Cancelled }

// BadInput reports whether some resource failed on input found invalid
// while executing: the run then ends as bad input, as it would have had
// the plan known the value.
func (e *ExecuteError) BadInput() bool {
	return len(e.Invalid) > 0 && e.Cancelled == nil
}

// errSkipped marks a resource that was not attempted.
var errSkipped = errors.New("skipped")

// skip returns an errSkipped with the reason.
func skip(reason string) error { return fmt.Errorf("%w: %s", errSkipped, reason) }

// Execute carries out a checked plan: creates and updates parents first,
// deletes children first; independent resources in parallel. A failure stops
// its dependants, not independent resources. The Result names every
// resource the plan writes (or adopts) with its outcome; the error is an
// *ExecuteError when any failed or was skipped.
func (e *Engine) Execute(ctx context.Context, p *Prepared) (*plan.Result, error) {
	return e.ExecuteUntil(ctx, ctx, p)
}

// DefaultDrainTimeout is how long, after a first interrupt, writes already
// sent may take to finish (their long-running operations followed to the
// end, read back and recorded) before they are abandoned to the journal.
const DefaultDrainTimeout = 5 * time.Minute

// ExecuteUntil is Execute with a two-stage stop, for Ctrl-C:
//
//   - when stop is done (the first interrupt), no resource is started any
//     more; the writes already sent go on — their long-running operations
//     are followed, they are read back and recorded — for at most
//     Options.DrainTimeout (DefaultDrainTimeout when zero), so the next plan
//     is the truth rather than a list of resources to adopt;
//   - when ctx is done (a second interrupt, --timeout), everything stops at
//     once; writes in flight stay journaled and the next run settles them.
//
// The error then wraps the cause (errors.Is(err, context.Canceled)).
func (e *Engine) ExecuteUntil(ctx, stop context.Context, p *Prepared) (*plan.Result, error) {
	if err := e.Check(p); err != nil {
		return nil, err
	}
	if stop == nil {
		stop = ctx
	}
	work, abandon := context.WithCancelCause(ctx)
	defer abandon(nil)
	drain := e.Options.DrainTimeout
	if drain <= 0 {
		drain = DefaultDrainTimeout
	}
	go func() {
		select {
		case <-stop.Done():
		case <-work.Done():
			return
		}
		t := time.NewTimer(drain)
		defer t.Stop()
		select {
		case <-t.C:
			abandon(fmt.Errorf("writes in flight did not finish within %s of the interrupt: %w", drain, context.Cause(stop)))
		case <-work.Done():
		}
	}()
	p.stop = stop
	defer func() { p.stop = nil }()
	return e.execute(work, stop, p)
}

// stopped reports whether no new write may start.
func (p *Prepared) stopped() bool { return p.stop != nil && p.stop.Err() != nil }

func (e *Engine) execute(ctx, stop context.Context, p *Prepared) (*plan.Result, error) {
	var writes, deletes []*item
	for _, it := range p.items {
		if it.planned.Action == plan.ActionDelete {
			deletes = append(deletes, it)
		} else {
			writes = append(writes, it)
		}
	}
	errs := e.runDAG(ctx, stop, writes, func(it *item) []*item { return it.deps }, func(ctx context.Context, it *item) error {
		return e.applyOne(ctx, p, it)
	})
	// A resource group this run deletes takes everything in it: the
	// resources inside that this run deletes too go with it, in one
	// DELETE, instead of one each (Check has refused the plan if any of
	// them is protected or not consented to). So does a parent with the
	// children ARM cannot delete on their own.
	deletes, members := withTheirGroup(deletes)
	deletes, members = withTheirCarrier(deletes, members)
	// Deletes wait for their dependants (children) being deleted in this run.
	dependants := map[*item][]*item{}
	inDel := map[*item]bool{}
	for _, it := range deletes {
		inDel[it] = true
	}
	for _, it := range deletes {
		for _, d := range it.deps {
			if inDel[d] {
				dependants[d] = append(dependants[d], it)
			}
		}
	}
	for _, it := range deletes {
		// A locked resource (or group) waits for its locks' deletes.
		for _, l := range it.afterLocks {
			if inDel[l] {
				dependants[it] = append(dependants[it], l)
			}
		}
	}
	for it, err := range e.runDAG(ctx, stop, deletes, func(it *item) []*item { return dependants[it] }, func(ctx context.Context, it *item) error {
		if !p.stopped() {
			// Children first, as if deleted one by one (items are in
			// parents-first order).
			ms := members[it]
			for i := len(ms) - 1; i >= 0; i-- {
				e.event(ms[i], StatusWriting, "DELETE with "+memberOf(it))
			}
		}
		if err := e.deleteOne(ctx, p, it); err != nil {
			return err
		}
		return e.forgetMembers(ctx, it, members[it])
	}) {
		errs[it] = err
		for _, m := range members[it] {
			switch {
			case err == nil:
				errs[m] = nil
			case errors.Is(err, errSkipped):
				errs[m] = err
			default:
				errs[m] = skip("it goes with " + memberOf(it) + " " + it.display() + ", whose delete failed")
			}
		}
	}
	return e.result(ctx, stop, p, errs)
}

// result builds the per-resource outcome and the matching error.
func (e *Engine) result(ctx, stop context.Context, p *Prepared, errs map[*item]error) (*plan.Result, error) {
	res := &plan.Result{FormatVersion: plan.FormatVersion, Plan: p.Plan, Results: []plan.ResourceResult{}}
	ee := &ExecuteError{}
	for _, it := range p.items {
		err := errs[it]
		if !writes(it) && err == nil {
			continue
		}
		rr := plan.ResourceResult{ID: it.id, Action: it.planned.Action, Notes: it.notes}
		switch {
		case err == nil:
			rr.Status = plan.StatusDone
			res.Summary.Done++
		case errors.Is(err, errSkipped):
			rr.Status, rr.Error = plan.StatusSkipped, e.secrets().Scrub(err.Error())
			res.Summary.Skipped++
			ee.Skipped = append(ee.Skipped, it.display())
		default:
			rr.Status, rr.Error = plan.StatusFailed, e.secrets().Scrub(err.Error())
			res.Summary.Failed++
			ee.Failed = append(ee.Failed, it.display())
			var ve *manifest.ValidationError
			if errors.As(err, &ve) {
				ee.Invalid = append(ee.Invalid, it.display())
			}
		}
		res.Results = append(res.Results, rr)
	}
	ee.Cancelled = ctx.Err()
	if ee.Cancelled == nil {
		ee.Cancelled = stop.Err()
	}
	if len(ee.Failed)+len(ee.Skipped) > 0 || ee.Cancelled != nil {
		return res, ee
	}
	return res, nil
}

// writes reports whether executing the item sends anything to Azure or
// state: a write, a delete, recording an adopted resource, or recording
// that prevent-destroy was added or removed.
func writes(it *item) bool {
	return it.planned.Action != plan.ActionNoOp || (it.res != nil && it.record == nil && it.live != nil) || it.protectionChange() || it.forget || it.rebase
}

// recordProtection stores the manifest's prevent-destroy in the record of
// a resource Azure needs no write for: protection starts (or ends) with
// the apply of the annotation, not with the next change.
func (e *Engine) recordProtection(ctx context.Context, it *item) error {
	rec, err := e.Store.Get(ctx, it.id)
	if err != nil {
		return fmt.Errorf("recording prevent-destroy of %s in state: %w", it.display(), err)
	}
	rec.PreventDestroy = it.annotated
	if err := e.Store.Put(ctx, rec); err != nil {
		return fmt.Errorf("recording prevent-destroy of %s in state: %w", it.display(), err)
	}
	it.record.PreventDestroy = it.annotated
	return nil
}

// runDAG runs fn for every item once all of its prerequisites succeeded, at
// most e.concurrency() at once, and returns each item's error. An item whose
// prerequisite failed, or that had not started when stop was done, is not
// run: its error wraps errSkipped. fn runs with ctx, which outlives stop so
// that what was started can finish.
func (e *Engine) runDAG(ctx, stop context.Context, items []*item, prereqs func(*item) []*item, fn func(context.Context, *item) error) map[*item]error {
	d := newDAGRun(e, items, prereqs)
	ready := d.roots()
	var g errgroup.Group
	g.SetLimit(e.concurrency())
	running := 0
	for len(d.resolved) < len(items) {
		for _, it := range ready {
			d.resolved[it] = true
			if ctx.Err() != nil || stop.Err() != nil {
				d.interrupted(it)
				continue
			}
			running++
			g.Go(func() error {
				d.setErr(it, fn(ctx, it))
				d.finished <- it
				return nil
			})
		}
		ready = ready[:0]
		if running == 0 {
			// Nothing runs and nothing is ready: what is left waits on a
			// cycle the loader should have refused.
			d.failCycle()
			break
		}
		it := <-d.finished
		running--
		ready = d.done(it, ready)
	}
	_ = g.Wait()
	return d.errs
}

// dagRun is runDAG's bookkeeping. Only runDAG's goroutine touches waiting
// and resolved; errs is shared with the workers under mu.
type dagRun struct {
	e          *Engine
	items      []*item
	waiting    map[*item]int
	dependants map[*item][]*item
	resolved   map[*item]bool
	finished   chan *item

	mu   sync.Mutex
	errs map[*item]error
}

// newDAGRun counts each item's prerequisites among items.
func newDAGRun(e *Engine, items []*item, prereqs func(*item) []*item) *dagRun {
	d := &dagRun{e: e, items: items, waiting: make(map[*item]int, len(items)), dependants: map[*item][]*item{},
		resolved: make(map[*item]bool, len(items)), finished: make(chan *item, len(items)), errs: make(map[*item]error, len(items))}
	in := make(map[*item]bool, len(items))
	for _, it := range items {
		in[it] = true
	}
	for _, it := range items {
		for _, p := range prereqs(it) {
			if in[p] && p != it {
				d.waiting[it]++
				d.dependants[p] = append(d.dependants[p], it)
			}
		}
	}
	return d
}

// roots are the items that wait for nothing; the others are told waiting.
func (d *dagRun) roots() []*item {
	var ready []*item
	for _, it := range d.items {
		if d.waiting[it] == 0 {
			ready = append(ready, it)
		} else if writes(it) {
			d.e.event(it, StatusWaiting, "")
		}
	}
	return ready
}

func (d *dagRun) setErr(it *item, err error) {
	d.mu.Lock()
	d.errs[it] = err
	d.mu.Unlock()
}

// done takes a finished item: its dependants become ready, or are skipped
// when it failed.
func (d *dagRun) done(it *item, ready []*item) []*item {
	d.mu.Lock()
	err := d.errs[it]
	d.mu.Unlock()
	if err != nil {
		d.skipAll(it, "dependency "+it.display()+" was not applied")
		return ready
	}
	for _, dep := range d.dependants[it] {
		d.waiting[dep]--
		if d.waiting[dep] == 0 && !d.resolved[dep] {
			ready = append(ready, dep)
		}
	}
	return ready
}

// interrupted skips an item that had not started when the run stopped,
// and everything waiting for it.
func (d *dagRun) interrupted(it *item) {
	d.setErr(it, skip("the run was interrupted before it started"))
	if writes(it) {
		d.e.event(it, StatusSkipped, "interrupted")
	}
	d.skipAll(it, "the run was interrupted")
}

// skipAll skips every item waiting, directly or not, for it.
func (d *dagRun) skipAll(it *item, reason string) {
	for _, dep := range d.dependants[it] {
		if d.resolved[dep] {
			continue
		}
		d.resolved[dep] = true
		d.setErr(dep, skip(reason))
		d.e.event(dep, StatusSkipped, reason)
		d.skipAll(dep, "dependency "+dep.display()+" was not applied")
	}
}

// failCycle fails every item not yet resolved.
func (d *dagRun) failCycle() {
	for _, it := range d.items {
		if !d.resolved[it] {
			d.resolved[it] = true
			d.setErr(it, errors.New("waits on a dependency cycle; run diff to see it"))
		}
	}
}

func (e *Engine) event(it *item, st Status, detail string) {
	if e.Progress != nil {
		name := ""
		if it.res != nil {
			name = it.res.Name
		}
		e.Progress.Event(it.id, name, st, e.secrets().Scrub(detail))
	}
}

// applyOne writes one resource, waits, reads it back and records it.
func (e *Engine) applyOne(ctx context.Context, p *Prepared, it *item) (err error) {
	if ctx.Err() != nil || p.stopped() {
		return skip("the run was interrupted before it started")
	}
	defer func() {
		if err != nil && !errors.Is(err, errSkipped) {
			e.event(it, StatusFailed, err.Error())
		}
	}()
	switch {
	case e.Options.refreshOnly():
		return e.refreshRecord(ctx, p, it)
	case it.forget:
		return e.forget(ctx, it)
	}
	if err := e.prepareWrite(ctx, p, it); err != nil {
		return err
	}
	st := writeStep(it)
	if st == stepNone {
		return nil
	}
	if err := e.runStep(ctx, p, it, st); err != nil {
		return err
	}
	e.event(it, StatusDone, "")
	return nil
}

// step is what executing one declared resource does, decided from its
// plan once every value is known (writeStep), never from its wording.
type step uint8

const (
	stepNone    step = iota // nothing to send or record
	stepRecord              // record what Azure holds; nothing is sent
	stepProtect             // record only a change of prevent-destroy
	stepCreate              // PUT the desired body
	stepReplace             // DELETE, then PUT the desired body
	stepUpdate              // the PATCH or GET-modify-PUT the plan chose
)

// writeStep decides the item's step from its planned action.
func writeStep(it *item) step {
	switch it.planned.Action {
	case plan.ActionNoOp:
		switch {
		case it.rebase && !it.protectionChange():
			// Set back outside: record what Azure holds as the baseline.
			return stepRecord
		case it.protectionChange():
			return stepProtect
		case it.record == nil && it.live != nil:
			// Exists, not in state, nothing to change, and --adopt given.
			return stepRecord
		}
	case plan.ActionCreate:
		return stepCreate
	case plan.ActionReplace:
		return stepReplace
	case plan.ActionUpdate, plan.ActionAdopt:
		if (len(it.result.Changes) == 0 && it.planned.Why != plan.ReasonFailedState) || unmanagedOnly(it.planned.Changes) {
			// Adopt with nothing to change, or only paths the tool stops
			// managing: record only. A resource whose provisioning failed
			// is written again (see decide).
			return stepRecord
		}
		return stepUpdate
	}
	return stepNone
}

// runStep carries out one step.
func (e *Engine) runStep(ctx context.Context, p *Prepared, it *item, st step) error {
	switch st {
	case stepRecord:
		return e.recordAfterRead(ctx, p, it)
	case stepProtect:
		return e.recordProtection(ctx, it)
	case stepCreate:
		return e.put(ctx, p, it, it.desired(), "")
	case stepReplace:
		return e.replace(ctx, p, it)
	case stepUpdate:
		return e.update(ctx, p, it, true)
	}
	return nil
}

// forget drops the record of a resource already absent from Azure.
func (e *Engine) forget(ctx context.Context, it *item) error {
	if err := e.Store.Delete(ctx, it.id); err != nil {
		return fmt.Errorf("forgetting %s in state (it is already absent from Azure): %w", it.display(), err)
	}
	note := "already absent from Azure: its record in state was removed"
	if it.stays != "" {
		note = it.stays + "; its record in state was removed"
	}
	it.notes = append(it.notes, note)
	e.event(it, StatusDone, "")
	return nil
}

// replace deletes the resource, forgets what went with it, and creates it
// again.
func (e *Engine) replace(ctx context.Context, p *Prepared, it *item) error {
	e.event(it, StatusWriting, string(plan.MethodDelete))
	if _, err := e.client().Delete(ctx, it.id, it.ver); err != nil && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("replace %s: delete: %w", it.display(), err)
	}
	if err := e.dropCascaded(ctx, p, it); err != nil {
		return err
	}
	err := e.put(ctx, p, it, it.desired(), "")
	if err == nil {
		it.replaced = true
	}
	return err
}

// update sends the PATCH or GET-modify-PUT the plan chose, either with
// If-Match on the etag the plan read. A 412 (someone wrote the resource
// since we read it) re-plans once from a fresh GET.
func (e *Engine) update(ctx context.Context, p *Prepared, it *item, retry412 bool) error {
	method := it.planned.Method
	if method == plan.MethodPatch && e.client().PatchUnsupported(it.typ) {
		method = plan.MethodPut
	}
	var err error
	if method == plan.MethodPatch {
		// If-Match on PATCH as on PUT: a PATCH merges into whatever is
		// there, so a write since the plan read it must not be overwritten
		// blindly (the etag is empty for types without one).
		body := diff.Patch(*it.input, *it.result)
		err = e.write(ctx, p, it, plan.MethodPatch, body, it.liveEtag)
		if errors.Is(err, ErrMethodNotAllowed) {
			// The client remembers this for the type; fall back to PUT.
			e.client().MarkPatchUnsupported(it.typ)
			e.warnf("%s: PATCH is not supported for %s; using GET-modify-PUT", it.display(), it.typ)
			method = plan.MethodPut
		}
	}
	if method == plan.MethodPut {
		body := diff.PutBody(*it.input, *it.result)
		err = e.write(ctx, p, it, plan.MethodPut, body, it.liveEtag)
	}
	if errors.Is(err, ErrPreconditionFailed) && retry412 {
		e.warnf("%s changed in Azure while we planned (etag mismatch): re-reading and planning it again once", it.display())
		if rerr := e.read(ctx, it); rerr != nil {
			return rerr
		}
		if it.live == nil {
			return fmt.Errorf("%s was deleted in Azure while we applied; run diff again", it.display())
		}
		e.decide(it, p)
		if len(it.result.Changes) == 0 {
			return e.recordAfterRead(ctx, p, it)
		}
		return e.update(ctx, p, it, false)
	}
	if errors.Is(err, ErrPreconditionFailed) {
		return fmt.Errorf("%s keeps changing in Azure while we write it (412 twice): another tool or person is writing it; run diff again when it settles: %w", it.display(), err)
	}
	return err
}

// put creates (or recreates) a resource from the desired body. Update bodies
// come from diff.Patch and diff.PutBody, which run the plugin's BeforeWrite
// themselves.
func (e *Engine) put(ctx context.Context, p *Prepared, it *item, body map[string]any, ifMatch string) error {
	if it.plugin != nil {
		body = it.plugin.BeforeWrite(body)
	}
	return e.write(ctx, p, it, plan.MethodPut, body, ifMatch)
}

// write journals the intent, sends the write (waiting for an LRO), reads the
// resource back and records L and B. Writes under one parent that ARM
// serialises wait for each other.
func (e *Engine) write(ctx context.Context, p *Prepared, it *item, method plan.Method, body map[string]any, ifMatch string) error {
	if at, ok := plan.FindUnknown(body); ok {
		// Every value known only after apply is resolved before its
		// write (resolveAtApply); one left would reach Azure as text.
		return fmt.Errorf("%s: %s is still known only after apply, so nothing was sent (a bug: report it)", it.display(), at)
	}
	rec, err := e.newRecord(p, it, nil, "")
	if err != nil {
		return err
	}
	op := state.OpPut
	if method == plan.MethodPatch {
		op = state.OpPatch
	}
	unlock, err := e.parentLock(ctx, it.id)
	if err != nil {
		return skip("the run was interrupted before it started")
	}
	defer unlock()
	if p.stopped() && !it.replaced && it.planned.Action != plan.ActionReplace {
		// Waited for its parent past the interrupt: nothing was sent yet.
		return skip("the run was interrupted before it started")
	}
	if err := e.Store.BeginIntent(ctx, state.Intent{ID: it.id, Op: op, Type: it.typ, APIVersion: it.ver, Started: time.Now().UTC(), Record: rec}); err != nil {
		return fmt.Errorf("journaling %s before writing it: %w", it.display(), err)
	}
	e.event(it, StatusWriting, string(method))
	opts := WriteOptions{IfMatch: ifMatch}
	var resp *Response
	if method == plan.MethodPatch {
		resp, err = e.client().Patch(ctx, it.id, it.ver, body, opts)
	} else {
		resp, err = e.client().Put(ctx, it.id, it.ver, body, opts)
	}
	if err != nil {
		return e.settleWrite(ctx, p, it, fmt.Errorf("%s %s: %w", method, it.display(), err))
	}
	if resp != nil && (resp.ReadBack && resp.Body != nil || e.fullAnswer(p, it, resp)) {
		// The LRO poller's last step was a GET of the resource, or the
		// write answered with the resource itself: record from it rather
		// than spending another read token.
		return e.record(ctx, p, it, resp.Body, resp.ETag)
	}
	return e.recordAfterRead(ctx, p, it)
}

// fullAnswer reports whether a write's own answer is the resource as a
// GET would return it, to be recorded as the baseline: a synchronous 200
// or 201 whose body is this resource, in a settled state, carrying every
// value the write meant to set. Anything less (a reduced body, an
// operation object, values that are not back yet, write-only values such
// as secrets that no answer returns) is read back instead.
func (e *Engine) fullAnswer(p *Prepared, it *item, resp *Response) bool {
	if resp.LRO || (resp.StatusCode != 200 && resp.StatusCode != 201) || resp.Body == nil {
		return false
	}
	if id, _ := resp.Body["id"].(string); !armid.Equal(id, it.id) {
		return false
	}
	return !failedState(resp.Body) && e.landed(p, it, resp.Body)
}

// settleWrite decides by reading what a write that ended in an error did.
// The error alone cannot tell: a 4xx may be ARM refusing the write, or the
// poll of a long-running operation ARM accepted answering 404 because the
// endpoint lost the operation; dropping the intent on the latter forgot
// resources this tool had created. So the resource is read:
//
//   - absent: nothing was created; the intent is dropped.
//   - present with the intended values: the write landed; it is recorded
//     and the resource counts as done.
//   - present, not as intended, never recorded (a create): it exists
//     because of this write (still provisioning); it is recorded without
//     a last-applied body, so the next plan writes it again instead of
//     asking for --adopt.
//   - present, not as intended, recorded before: the previous record
//     stays as it was; the intent is dropped.
//   - the read fails or the run was interrupted: the intent stays in the
//     journal and the next run settles it the same way.
func (e *Engine) settleWrite(ctx context.Context, p *Prepared, it *item, werr error) error {
	if ctx.Err() != nil || errors.Is(werr, ErrOperationEnded) {
		// Interrupted, or the operation itself ended Failed or Canceled
		// (an answer, not a lost one): the intent stays for the next run,
		// which records what exists without trusting the write.
		return werr
	}
	resp, err := e.getItem(ctx, it)
	switch {
	case errors.Is(err, ErrNotFound):
		_ = e.Store.CommitIntent(ctx, it.id)
		return werr
	case err == nil && (resp == nil || resp.Body == nil):
		err = errNoBody
	}
	if err != nil {
		return fmt.Errorf("%w; reading it to see whether the write landed failed too (%v): the journal keeps the write and the next run settles it", werr, err)
	}
	if e.landed(p, it, resp.Body) && !failedState(resp.Body) {
		if err := e.record(ctx, p, it, resp.Body, resp.ETag); err != nil {
			return err
		}
		it.notes = append(it.notes, "the write's outcome could not be followed ("+oneLine(werr.Error())+"); the resource was read back and carries the intended values")
		return nil
	}
	if it.record == nil {
		rec, err := e.newRecord(p, it, resp.Body, resp.ETag)
		if err != nil {
			return err
		}
		rec.LastApplied = nil
		if err := e.Store.Put(ctx, rec); err != nil {
			return fmt.Errorf("%w; recording the resource it created failed too (%v): the journal keeps the write and the next run settles it", werr, err)
		}
		return fmt.Errorf("%w; the resource exists (created by this write) and is recorded: run apply again to finish it", werr)
	}
	_ = e.Store.CommitIntent(ctx, it.id)
	return werr
}

// failedState reports a resource whose provisioning failed: it may carry
// the intended values and still not be what was asked for.
func failedState(live map[string]any) bool {
	ps := provisioningState(live)
	return strings.EqualFold(ps, "Failed") || strings.EqualFold(ps, "Canceled")
}

func provisioningState(live map[string]any) string {
	props, _ := live["properties"].(map[string]any)
	if ps, ok := props["provisioningState"].(string); ok {
		return ps
	}
	// An envelope from ARM's generic list read with
	// $expand=provisioningState carries it at the top level.
	ps, _ := live["provisioningState"].(string)
	return ps
}

// landed reports whether live carries what the item meant to write,
// judged by the diff's rules as a first plan judges a manifest.
func (e *Engine) landed(p *Prepared, it *item, live map[string]any) bool {
	in := diff.Input{Desired: it.desired(), Live: live, Schema: it.schema, Plugin: it.plugin, SecretKey: p.key,
		ID: it.id, OwnedElsewhere: p.ownedElsewhere, SecretPaths: it.secrets, Unknown: it.unknown}
	if it.res != nil {
		in.IgnoreChanges = ignoreChanges(it.res)
	}
	return len(diff.Compute(in).Changes) == 0
}

// recordAfterRead GETs the resource and records L = D and B = projection of
// live on owned paths.
func (e *Engine) recordAfterRead(ctx context.Context, p *Prepared, it *item) error {
	resp, err := e.getItem(ctx, it)
	if err == nil && (resp == nil || resp.Body == nil) {
		err = errNoBody
	}
	if err != nil {
		return fmt.Errorf("reading %s back after the write (the write succeeded; the next run records it): %w", it.display(), err)
	}
	return e.record(ctx, p, it, resp.Body, resp.ETag)
}

// refreshRecord accepts a resource's drift (--refresh-only): it reads the
// resource again and records what Azure holds as the new baseline, through
// the same record builder a write's read-back uses. What was last applied
// (L), the set and the protection stay as recorded, so a manifest edit not
// yet applied is still planned next time. Nothing is written to Azure.
func (e *Engine) refreshRecord(ctx context.Context, p *Prepared, it *item) error {
	if it.planned.Action != plan.ActionUpdate || it.record == nil || it.result == nil {
		return nil
	}
	resp, err := e.getItem(ctx, it)
	if err == nil && (resp == nil || resp.Body == nil) {
		err = errNoBody
	}
	if err != nil {
		return fmt.Errorf("reading %s to refresh its record (nothing was recorded): %w", it.display(), err)
	}
	rec, err := e.newRecord(p, it, resp.Body, resp.ETag)
	if err != nil {
		return err
	}
	rec.LastApplied, rec.Set, rec.PreventDestroy = it.record.LastApplied, it.record.Set, it.record.PreventDestroy
	// What this refresh accepts joins what earlier ones did, as long as
	// Azure and the manifest still differ there.
	var drifted []string
	for _, c := range it.planned.Changes {
		drifted = append(drifted, c.Path)
	}
	rec.Accepted = stillDiffer(append(slices.Clone(it.record.Accepted), drifted...), it.desired(), resp.Body)
	if err := e.Store.Put(ctx, rec); err != nil {
		return fmt.Errorf("recording the refreshed baseline of %s: %w", it.display(), err)
	}
	it.live = resp.Body
	e.event(it, StatusDone, "")
	return nil
}

// record stores the record for what was written and the live body read
// right after, and notes every removed property Azure kept.
func (e *Engine) record(ctx context.Context, p *Prepared, it *item, live map[string]any, etag string) error {
	rec, err := e.newRecord(p, it, live, etag)
	if err != nil {
		return err
	}
	it.live = live
	it.notes = append(it.notes, diff.KeptAfterWrite(*it.result, live)...)
	if err := e.Store.Put(ctx, rec); err != nil {
		return fmt.Errorf("recording %s in state (it was written to Azure; the next run repairs the record): %w", it.display(), err)
	}
	return nil
}

// newRecord builds the state record through the one record builder; live
// nil builds the intent's record (L only).
func (e *Engine) newRecord(p *Prepared, it *item, live map[string]any, etag string) (*state.Record, error) {
	// The diff's owned paths carry array identifiers, which makes the
	// projection tighter than one from the body alone.
	rec, err := record.Build(record.Input{
		ID: it.id, Type: it.typ, APIVersion: it.ver, Set: e.set(), Origin: it.res.Origin.String(),
		Desired: it.desired(), SecretPaths: it.sensitivePaths(), Live: live, Owned: it.result.Owned, Etag: etag,
		Schema: it.schema, Plugin: it.plugin, Key: p.key,
	})
	if err != nil {
		return nil, fmt.Errorf("building the state record of %s: %w", it.display(), err)
	}
	rec.PreventDestroy = it.annotated
	if it.record != nil && live != nil {
		// Values a refresh accepted stay accepted while they still differ.
		rec.Accepted = stillDiffer(it.record.Accepted, it.desired(), live)
	}
	return rec, nil
}

// stillDiffer keeps the paths (deduplicated, in order) where the desired
// and live bodies still hold different values. A path that cannot be
// looked up in both (a keyed item) is kept: dropping it would claim a
// convergence nobody saw.
func stillDiffer(paths []string, desired, live map[string]any) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range paths {
		if seen[p] {
			continue
		}
		seen[p] = true
		d, okD := bodypath.Get(desired, p)
		l, okL := bodypath.Get(live, p)
		if okD && okL && sameJSON(d, l) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// sameJSON compares two decoded JSON values by their encoding.
func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// withTheirGroup takes out of deletes the resources inside a resource
// group that deletes also holds, and returns them by group.
func withTheirGroup(deletes []*item) ([]*item, map[*item][]*item) {
	groups := map[string]*item{}
	for _, it := range deletes {
		if x, err := armid.Parse(it.id); err == nil && x.IsResourceGroup() {
			groups[it.key] = it
		}
	}
	if len(groups) == 0 {
		return deletes, nil
	}
	members := map[*item][]*item{}
	out := deletes[:0:0]
	for _, it := range deletes {
		if strings.EqualFold(it.typ, lockType) {
			// A lock goes first, on its own: the group's DELETE waits
			// for it (planLocks), as ARM refuses a locked group's.
			out = append(out, it)
			continue
		}
		var g *item
		enclosing(it.key, func(pk string) bool {
			g = groups[pk]
			return g == nil
		})
		if g == nil {
			out = append(out, it)
			continue
		}
		members[g] = append(members[g], it)
	}
	return out, members
}

// memberOf names what a member goes with: its resource group, or its
// parent (a resource ARM cannot delete on its own).
func memberOf(g *item) string {
	if x, err := armid.Parse(g.id); err == nil && x.IsResourceGroup() {
		return "its resource group"
	}
	return "its parent"
}

// forgetMembers forgets the records of resources deleted with their group.
func (e *Engine) forgetMembers(ctx context.Context, g *item, members []*item) error {
	for _, m := range members {
		if err := e.Store.Delete(ctx, m.id); err != nil {
			return fmt.Errorf("forgetting %s, deleted by ARM with %s: %w", m.display(), g.display(), err)
		}
		m.notes = append(m.notes, "deleted with "+memberOf(g)+" "+g.display())
		e.event(m, StatusDone, "")
	}
	return nil
}

// settleDelete decides by reading what a DELETE that ended in an error
// did (a 404 from a lost operation's poll does not prove the resource is
// gone): nil when it is gone, the error otherwise. The intent is dropped
// when the read answers, kept for the next run when it fails.
func (e *Engine) settleDelete(ctx context.Context, it *item, derr error) error {
	if ctx.Err() != nil {
		return derr
	}
	_, err := e.getItem(ctx, it)
	switch {
	case errors.Is(err, ErrNotFound):
		return nil
	case err != nil:
		return fmt.Errorf("%w; reading it to see whether it is gone failed too (%v): the journal keeps the delete and the next run settles it", derr, err)
	}
	_ = e.Store.CommitIntent(ctx, it.id)
	return derr
}

// deleteOne deletes a resource and forgets it, and the records of the
// children ARM deleted with it.
func (e *Engine) deleteOne(ctx context.Context, p *Prepared, it *item) (err error) {
	if ctx.Err() != nil || p.stopped() {
		return skip("the run was interrupted before it started")
	}
	defer func() {
		if err != nil {
			e.event(it, StatusFailed, err.Error())
		}
	}()
	unlock, err := e.parentLock(ctx, it.id)
	if err != nil {
		return skip("the run was interrupted before it started")
	}
	defer unlock()
	if err := e.Store.BeginIntent(ctx, state.Intent{ID: it.id, Op: state.OpDelete, Type: it.typ, APIVersion: it.ver, Started: time.Now().UTC()}); err != nil {
		return fmt.Errorf("journaling the delete of %s: %w", it.display(), err)
	}
	e.event(it, StatusWriting, string(it.planned.Method))
	if err := e.sendDelete(ctx, it); err != nil {
		if err := e.settleDelete(ctx, it, fmt.Errorf("DELETE %s: %w", it.display(), err)); err != nil {
			return err
		}
	}
	if err := e.Store.Delete(ctx, it.id); err != nil {
		return fmt.Errorf("forgetting %s in state (it was deleted from Azure): %w", it.display(), err)
	}
	if err := e.dropCascaded(ctx, p, it); err != nil {
		return err
	}
	it.notes = append(it.notes, softDeleteNotes(it.planned, false)...)
	e.event(it, StatusDone, "")
	return nil
}
