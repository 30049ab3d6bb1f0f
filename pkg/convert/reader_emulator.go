package convert

import (
	"context"
	"errors"
	"fmt"

	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
)

// ErrNotDeployed is what a Reader returns (wrapped) for a resource its
// deployment has not made yet. EvaluateRound then leaves each resource
// whose body needs that read waiting instead of failing the template, so
// a deployment engine can deploy what is ready and evaluate again: ARM
// evaluates a resource's reference() and list*() only once the resources
// they read are deployed.
var ErrNotDeployed = errors.New("not deployed yet")

// Round is one pass of a deployment engine's interleaved evaluation.
type Round struct {
	// Ready are the resources whose every value is known now.
	Ready []Resource
	// Waiting are the resources that read one not deployed yet. Their
	// bodies are not known; Type, APIVersion, Name, ID and DependsOn are
	// set when the template gives them without reads.
	Waiting []Resource
	// Done: nothing waits, and Outputs holds the template's outputs.
	Done    bool
	Outputs map[string]any
}

// EvaluateRound evaluates the template as Evaluate does, but a resource
// (or the outputs) whose read the Reader answers with ErrNotDeployed
// waits rather than failing. Any other problem is an error, as in
// Evaluate.
func (t *Template) EvaluateRound(ctx context.Context, s Scope, opts ...EvalOption) (*Round, error) {
	r := newRun(t, s, false)
	for _, o := range opts {
		o(r)
	}
	waiting := false
	if inner := r.reader; inner != nil {
		r.reader = func(ctx context.Context, q Read) (any, error) {
			v, err := inner(ctx, q)
			if errors.Is(err, ErrNotDeployed) {
				waiting = true
			}
			return v, err
		}
	}
	if s.Subscription == "" {
		return nil, fmt.Errorf("evaluating a template needs its subscription")
	}
	waits, err := r.evaluateWaiting(ctx, &waiting)
	if err != nil {
		return nil, err
	}
	round := r.round(waits)
	if len(round.Waiting) == 0 {
		waiting = false
		before := len(r.problems)
		round.Outputs = r.outputValues()
		round.Done = !waiting
		if waiting {
			// The outputs are evaluated again in a later round.
			round.Outputs, r.problems = nil, r.problems[:before]
		}
	}
	if r.errors() {
		return nil, &Problems{Problems: r.problems}
	}
	return round, nil
}

// evaluateWaiting is evaluate, noting which documents wait on a read.
func (r *run) evaluateWaiting(ctx context.Context, waiting *bool) (map[*doc]bool, error) {
	if err := r.start(ctx); err != nil {
		return nil, err
	}
	waits := map[*doc]bool{}
	for _, d := range r.docs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !d.declares() {
			continue
		}
		*waiting = false
		if err := d.evalBody(); err != nil {
			d.failed = true
			if *waiting {
				waits[d] = true
				continue
			}
			r.fail(err)
		}
	}
	return waits, nil
}

// round sorts the evaluated documents into ready and waiting resources.
func (r *run) round(waits map[*doc]bool) *Round {
	out := &Round{}
	for _, d := range r.docs {
		if !d.declares() {
			continue
		}
		if waits[d] {
			out.Waiting = append(out.Waiting, r.envelope(d))
			continue
		}
		if d.failed {
			continue
		}
		res, err := r.resource(d)
		if err != nil {
			r.problem(d.path, manifest.SeverityError, "%v", err)
			continue
		}
		out.Ready = append(out.Ready, res)
	}
	return out
}

// envelope is what a waiting resource's declaration gives without reads.
func (r *run) envelope(d *doc) Resource {
	res := Resource{Type: d.typ, APIVersion: d.apiVersion}
	if n, err := resolveDeep(concatParts(joinSegs(d.segs))); err == nil {
		res.Name, _ = n.(string)
	}
	if id, err := resolveDeep(r.docID(d)); err == nil {
		res.ID, _ = id.(string)
	}
	d.dependsOn = nil
	if d.evalDependsOn() == nil {
		for _, dep := range d.dependsOn {
			if v, err := resolveDeep(dep); err == nil {
				res.DependsOn = append(res.DependsOn, fmt.Sprint(v))
			}
		}
	}
	return res
}

// outputValues evaluates the top deployment's outputs; a problem with one
// is recorded and the others are still given.
func (r *run) outputValues() map[string]any {
	outs, err := r.top.outputsOf()
	if err != nil {
		r.fail(err)
		return nil
	}
	values := map[string]any{}
	for k, o := range outs {
		v, err := resolveDeep(o.(map[string]any)["value"])
		if err != nil {
			r.problem(joinPath("outputs", k), manifest.SeverityError, "%v", err)
			continue
		}
		values[k] = v
	}
	return values
}
