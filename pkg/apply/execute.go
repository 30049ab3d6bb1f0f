package apply

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/printer"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// Check refuses a plan that needs a permission the options do not grant.
// It runs before any write, so a refused plan writes nothing.
func (e *Engine) Check(p *Prepared) error {
	var adopt, replace []string
	for _, it := range p.items {
		switch it.planned.Action {
		case plan.ActionAdopt:
			if !e.Options.Adopt {
				adopt = append(adopt, it.display())
			}
		case plan.ActionReplace:
			if !e.Options.AllowReplace {
				replace = append(replace, it.display())
			}
		}
	}
	var msgs []string
	if len(adopt) > 0 {
		msgs = append(msgs, fmt.Sprintf("%d resource(s) exist in Azure but are not in state; nothing was written. Review the plan, then rerun with --adopt to take them over, or run `kubectl azure import` first:\n  %s",
			len(adopt), strings.Join(adopt, "\n  ")))
	}
	if len(replace) > 0 {
		msgs = append(msgs, fmt.Sprintf("%d resource(s) need replacing because a create-only property changed; nothing was written. Rerun with --allow-replace to delete and recreate them (their data is lost), or revert the change:\n  %s",
			len(replace), strings.Join(replace, "\n  ")))
	}
	if len(msgs) > 0 {
		return errors.New(strings.Join(msgs, "\n"))
	}
	return nil
}

// ExecuteError reports that some resources failed; the others were applied.
type ExecuteError struct {
	Failed  []string
	Skipped []string
}

func (e *ExecuteError) Error() string {
	msg := fmt.Sprintf("%d resource(s) failed", len(e.Failed))
	if len(e.Skipped) > 0 {
		msg += fmt.Sprintf(", %d skipped because a dependency failed", len(e.Skipped))
	}
	return msg + "; fix the errors above and run apply again (finished resources are recorded and will not be written again)"
}

// Execute carries out a checked plan: creates and updates parents first,
// deletes children first; independent resources in parallel. A failure stops
// its dependants, not independent resources.
func (e *Engine) Execute(ctx context.Context, p *Prepared) error {
	if err := e.Check(p); err != nil {
		return err
	}
	var writes, deletes []*item
	for _, it := range p.items {
		if it.planned.Action == plan.ActionDelete {
			deletes = append(deletes, it)
		} else {
			writes = append(writes, it)
		}
	}
	errs := e.runDAG(ctx, writes, func(it *item) []*item { return it.deps }, func(ctx context.Context, it *item) error {
		return e.applyOne(ctx, p, it)
	})
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
	for it, err := range e.runDAG(ctx, deletes, func(it *item) []*item { return dependants[it] }, e.deleteOne) {
		errs[it] = err
	}

	ee := &ExecuteError{}
	for _, it := range p.items {
		switch err := errs[it]; {
		case errors.Is(err, errSkipped):
			ee.Skipped = append(ee.Skipped, it.display())
		case err != nil && !errors.Is(err, context.Canceled):
			ee.Failed = append(ee.Failed, it.display())
		}
	}
	if len(ee.Failed)+len(ee.Skipped) > 0 {
		return ee
	}
	return ctx.Err()
}

var errSkipped = errors.New("skipped: a dependency failed")

// runDAG runs fn for every item once all of its prerequisites succeeded, with
// bounded parallelism, and returns each item's error. An item whose
// prerequisite failed is not run: its error is errSkipped.
func (e *Engine) runDAG(ctx context.Context, items []*item, prereqs func(*item) []*item, fn func(context.Context, *item) error) map[*item]error {
	type slot struct {
		done chan struct{}
		err  error
	}
	slots := make(map[*item]*slot, len(items))
	for _, it := range items {
		slots[it] = &slot{done: make(chan struct{})}
	}
	sem := make(chan struct{}, e.concurrency())
	var wg sync.WaitGroup
	for _, it := range items {
		wg.Add(1)
		go func(it *item, s *slot) {
			defer wg.Done()
			defer close(s.done)
			if it.planned.Action != plan.ActionNoOp {
				e.event(it, printer.StatusWaiting, "")
			}
			for _, d := range prereqs(it) {
				ds, ok := slots[d]
				if !ok {
					continue // not part of this phase
				}
				<-ds.done
				if ds.err != nil {
					s.err = errSkipped
					e.event(it, printer.StatusSkipped, "dependency "+d.display()+" failed")
					return
				}
			}
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				s.err = ctx.Err()
				return
			}
			s.err = fn(ctx, it)
			<-sem
		}(it, slots[it])
	}
	wg.Wait()
	out := make(map[*item]error, len(items))
	for it, s := range slots {
		out[it] = s.err
	}
	return out
}

func (e *Engine) event(it *item, st printer.Status, detail string) {
	if e.Progress != nil {
		e.Progress.Event(it.id, "", st, detail)
	}
}

// applyOne writes one resource, waits, reads it back and records it.
func (e *Engine) applyOne(ctx context.Context, p *Prepared, it *item) (err error) {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if it.res != nil && it.live != nil {
		for _, d := range it.deps {
			if d.replaced {
				if err := e.read(ctx, it); err != nil {
					return err
				}
				e.decide(it, p.key)
				break
			}
		}
	}
	action := it.planned.Action
	if action == plan.ActionNoOp && !(it.record == nil && it.live != nil) {
		return nil
	}
	defer func() {
		if err != nil {
			e.event(it, printer.StatusFailed, err.Error())
		}
	}()
	switch action {
	case plan.ActionCreate:
		err = e.put(ctx, p, it, it.res.Body, "")
	case plan.ActionReplace:
		e.event(it, printer.StatusWriting, "DELETE")
		if _, err = e.ARM.Delete(ctx, it.id, it.ver, nil); err != nil && !arm.IsNotFound(err) {
			return fmt.Errorf("replace %s: delete: %w", it.display(), err)
		}
		if err = e.put(ctx, p, it, it.res.Body, ""); err == nil {
			it.replaced = true
		}
	case plan.ActionUpdate, plan.ActionAdopt:
		if len(it.result.Changes) == 0 {
			// Adopt with nothing to change: record only.
			err = e.recordAfterRead(ctx, p, it)
		} else {
			err = e.update(ctx, p, it, true)
		}
	case plan.ActionNoOp:
		// Exists, not in state, nothing to change, and --adopt given.
		err = e.recordAfterRead(ctx, p, it)
	}
	if err != nil {
		return err
	}
	e.event(it, printer.StatusDone, "")
	return nil
}

// update sends the PATCH or GET-modify-PUT the plan chose. A 412 (someone
// wrote the resource since we read it) re-plans once from a fresh GET.
func (e *Engine) update(ctx context.Context, p *Prepared, it *item, retry412 bool) error {
	method := it.planned.Method
	if method == "PATCH" && e.ARM.PatchUnsupported(it.typ) {
		method = "PUT"
	}
	var err error
	if method == "PATCH" {
		body := diff.Patch(it.input, it.result)
		err = e.write(ctx, p, it, "PATCH", body, "")
		if arm.IsMethodNotAllowed(err) {
			// The client remembers this for the type; fall back to PUT.
			e.ARM.MarkPatchUnsupported(it.typ)
			e.warnf("%s: PATCH is not supported for %s; using GET-modify-PUT", it.display(), it.typ)
			method = "PUT"
		}
	}
	if method == "PUT" {
		body := diff.PutBody(it.input, it.result)
		err = e.write(ctx, p, it, "PUT", body, it.liveEtag)
	}
	if arm.IsPreconditionFailed(err) && retry412 {
		e.warnf("%s changed in Azure while we planned (etag mismatch): re-reading and planning it again once", it.display())
		if rerr := e.read(ctx, it); rerr != nil {
			return rerr
		}
		if it.live == nil {
			return fmt.Errorf("%s was deleted in Azure while we applied; run diff again", it.display())
		}
		e.decide(it, p.key)
		if len(it.result.Changes) == 0 {
			return e.recordAfterRead(ctx, p, it)
		}
		return e.update(ctx, p, it, false)
	}
	if arm.IsPreconditionFailed(err) {
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
	return e.write(ctx, p, it, "PUT", body, ifMatch)
}

// write journals the intent, sends the write (waiting for an LRO), reads the
// resource back and records L and B.
func (e *Engine) write(ctx context.Context, p *Prepared, it *item, method string, body map[string]any, ifMatch string) error {
	rec := e.newRecord(p, it)
	op := state.OpPut
	if method == "PATCH" {
		op = state.OpPatch
	}
	if err := e.Store.BeginIntent(ctx, state.Intent{ID: it.id, Op: op, Type: it.typ, APIVersion: it.ver, Started: time.Now().UTC(), Record: rec}); err != nil {
		return fmt.Errorf("journaling %s before writing it: %w", it.display(), err)
	}
	e.event(it, printer.StatusWriting, method)
	opts := &arm.RequestOptions{IfMatch: ifMatch}
	var (
		resp *arm.Response
		err  error
	)
	if method == "PATCH" {
		resp, err = e.ARM.Patch(ctx, it.id, it.ver, body, opts)
	} else {
		resp, err = e.ARM.Put(ctx, it.id, it.ver, body, opts)
	}
	if err != nil {
		if definitelyRejected(err) {
			// ARM refused the write: nothing changed, nothing to repair.
			_ = e.Store.CommitIntent(ctx, it.id)
		}
		return fmt.Errorf("%s %s: %w", method, it.display(), err)
	}
	if resp != nil && resp.ReadBack && resp.Body != nil {
		// The LRO poller's last step was a GET of the resource: record
		// from it rather than spending another read token.
		return e.record(ctx, p, it, resp.Body, resp.ETag)
	}
	return e.recordAfterRead(ctx, p, it)
}

// definitelyRejected is true for errors after which the resource certainly
// was not changed: a 4xx answer to the write itself.
func definitelyRejected(err error) bool {
	c := arm.StatusCode(err)
	return c >= 400 && c < 500
}

// recordAfterRead GETs the resource and records L = D and B = projection of
// live on owned paths (DESIGN §4, last step).
func (e *Engine) recordAfterRead(ctx context.Context, p *Prepared, it *item) error {
	resp, err := e.ARM.Get(ctx, it.id, it.ver)
	if err != nil {
		return fmt.Errorf("reading %s back after the write (the write succeeded; the next run records it): %w", it.display(), err)
	}
	return e.record(ctx, p, it, resp.Body, resp.ETag)
}

// record stores L = D (secrets hashed) and B = live projected on owned paths.
func (e *Engine) record(ctx context.Context, p *Prepared, it *item, live map[string]any, etag string) error {
	rec := e.newRecord(p, it)
	// The diff's owned paths carry array identifiers, which makes the
	// projection tighter than one from the body alone.
	owned := it.result.Owned
	if owned == nil {
		owned = diff.Owned(it.res.Body, nil)
	}
	rec.Baseline = diff.Project(live, owned)
	rec.Etag = etag
	if err := e.Store.Put(ctx, rec); err != nil {
		return fmt.Errorf("recording %s in state (it was written to Azure; the next run repairs the record): %w", it.display(), err)
	}
	return nil
}

func (e *Engine) newRecord(p *Prepared, it *item) *state.Record {
	return &state.Record{
		ID: it.id, Type: it.typ, APIVersion: it.ver, Origin: it.res.Origin.String(), Set: e.set(),
		LastApplied: diff.HashSecrets(it.res.Body, it.schema, p.key),
		Updated:     time.Now().UTC(),
	}
}

// deleteOne deletes a resource and forgets it.
func (e *Engine) deleteOne(ctx context.Context, it *item) (err error) {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	defer func() {
		if err != nil {
			e.event(it, printer.StatusFailed, err.Error())
		}
	}()
	if err := e.Store.BeginIntent(ctx, state.Intent{ID: it.id, Op: state.OpDelete, Type: it.typ, APIVersion: it.ver, Started: time.Now().UTC()}); err != nil {
		return fmt.Errorf("journaling the delete of %s: %w", it.display(), err)
	}
	e.event(it, printer.StatusWriting, "DELETE")
	if _, err := e.ARM.Delete(ctx, it.id, it.ver, nil); err != nil && !arm.IsNotFound(err) {
		if definitelyRejected(err) {
			_ = e.Store.CommitIntent(ctx, it.id)
		}
		return fmt.Errorf("DELETE %s: %w", it.display(), err)
	}
	if err := e.Store.Delete(ctx, it.id); err != nil {
		return fmt.Errorf("forgetting %s in state (it was deleted from Azure): %w", it.display(), err)
	}
	e.event(it, printer.StatusDone, "")
	return nil
}
