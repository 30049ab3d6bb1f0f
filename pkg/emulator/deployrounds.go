package emulator

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/convert"
)

// A template whose resources read each other (reference(), list*() of a
// resource the same deployment makes) is deployed as ARM's engine does
// it: a resource's expressions are evaluated once the resources they read
// are deployed, which makes a reference() an implicit dependsOn
// (Template functions - resources, "reference": "the referenced resource
// is deployed first"; "Define the order for deploying resources"). The
// engine evaluates the template in rounds with the same evaluator as
// `kubectl azure convert`, its reads answered by this emulator's own ARM:
// each round deploys the resources whose values are all known, until
// nothing waits and the outputs are known, or nothing more can be made.

// readsDeployed says whether an evaluation without a reader failed only
// because the template reads resources at deploy time.
func readsDeployed(e *armError) bool {
	if strings.Contains(e.Message, "unknown function") {
		return false
	}
	return strings.Contains(e.Message, "known only while deploying") || strings.Contains(e.Message, "known only at deploy time")
}

// roundsMax bounds the rounds of one deployment: each deploys at least
// one resource, so a template of more resources than this is refused by
// ARM's limit (800 resources) first.
const roundsMax = 800

// deployInRounds deploys t's resources round by round and settles the
// deployment at id.
func (s *Server) deployInRounds(base, id string, t *convert.Template, scope convert.Scope) {
	s.setDeployment(id, func(props map[string]any) { props["provisioningState"] = "Running" })
	start := time.Now()
	e := &roundEngine{s: s, base: base, deployed: map[string]bool{}, names: map[string]string{}, apis: map[string]string{}}
	outputs, failure := e.run(t, scope)
	var failures []any
	if failure != nil {
		failures = []any{failure}
	}
	s.setDeployment(id, func(props map[string]any) {
		s.settle(props, start, e.written, failures, outputs)
	})
}

// roundEngine is one deployment's interleaved evaluation.
type roundEngine struct {
	s    *Server
	base string
	// deployed and written: the resources made so far (lower-cased IDs),
	// in order.
	deployed map[string]bool
	written  []any
	// names and apis: what the last round gave of each resource, for
	// reads that name a resource alone and reads without api-version.
	names, apis map[string]string
	// missing: IDs the last round read and did not find.
	missing []string
}

// run evaluates and deploys until the template is done; it gives the
// outputs, or the failure ARM's error details report.
func (e *roundEngine) run(t *convert.Template, scope convert.Scope) (map[string]any, map[string]any) {
	// A survey with every read waiting names what the template deploys,
	// so that a read of one of them waits for this deployment to make it
	// even where an earlier one did.
	survey, err := t.EvaluateRound(context.Background(), scope, convert.WithReader(func(context.Context, convert.Read) (any, error) {
		return nil, convert.ErrNotDeployed
	}))
	if err != nil {
		return nil, evaluationFailure(templateError(err))
	}
	e.learn(survey)
	for range roundsMax {
		e.missing = nil
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		r, err := t.EvaluateRound(ctx, scope, convert.WithReader(e.read))
		cancel()
		if err != nil {
			return nil, evaluationFailure(templateError(err))
		}
		e.learn(r)
		next := e.readyNow(r)
		if len(next) == 0 && r.Done {
			return r.Outputs, nil
		}
		if len(next) == 0 {
			return nil, e.stuck(r)
		}
		for _, res := range orderResources(next) {
			if derr := e.s.deployOne(e.base, res); derr != nil {
				// ARM starts nothing that depends on a failed resource.
				return nil, map[string]any{"code": derr.code, "message": derr.message, "target": res.ID}
			}
			e.deployed[strings.ToLower(res.ID)] = true
			e.written = append(e.written, map[string]any{"id": res.ID})
		}
	}
	return nil, map[string]any{"code": "DeploymentFailed", "message": "The template did not finish deploying in the rounds the emulator allows."}
}

func evaluationFailure(aerr *armError) map[string]any {
	if beyondEmulator(aerr) && !readsDeployed(aerr) {
		return cannotEvaluate(aerr.Message)
	}
	return map[string]any{"code": aerr.Code, "message": aerr.Message}
}

// learn records the names, IDs and api-versions a round gave.
func (e *roundEngine) learn(r *convert.Round) {
	for _, list := range [][]convert.Resource{r.Ready, r.Waiting} {
		for _, res := range list {
			if res.ID == "" {
				continue
			}
			e.names[strings.ToLower(res.Name)] = res.ID
			e.names[strings.ToLower(lastSegment(res.Name))] = res.ID
			e.apis[strings.ToLower(res.ID)] = res.APIVersion
		}
	}
}

// readyNow is what a round may deploy: the ready resources not deployed
// yet that depend on no resource still waiting, directly or through
// another.
func (e *roundEngine) readyNow(r *convert.Round) []convert.Resource {
	blocked := map[string]bool{}
	for _, w := range r.Waiting {
		blocked[strings.ToLower(w.ID)] = true
		blocked[strings.ToLower(w.Name)] = true
	}
	var pending []convert.Resource
	for _, res := range r.Ready {
		if !e.deployed[strings.ToLower(res.ID)] {
			pending = append(pending, res)
		}
	}
	for changed := true; changed; {
		changed = false
		for _, res := range pending {
			if !blocked[strings.ToLower(res.ID)] && dependsOnAny(res, blocked) {
				blocked[strings.ToLower(res.ID)] = true
				blocked[strings.ToLower(res.Name)] = true
				changed = true
			}
		}
	}
	var out []convert.Resource
	for _, res := range pending {
		if !blocked[strings.ToLower(res.ID)] {
			out = append(out, res)
		}
	}
	return out
}

// dependsOnAny says whether res depends on (or is a child of) a resource
// in set, by ID or by name as dependsOn may give it.
func dependsOnAny(res convert.Resource, set map[string]bool) bool {
	for _, d := range res.DependsOn {
		k := strings.ToLower(strings.TrimSpace(d))
		if set[k] || set[lastSegment(k)] {
			return true
		}
	}
	if id, err := armid.Parse(res.ID); err == nil {
		for p, ok := id.Parent(); ok; p, ok = p.Parent() {
			if set[strings.ToLower(p.String())] {
				return true
			}
		}
	}
	return false
}

// stuck is the failure of a round that can deploy nothing while
// resources still wait: they read resources that neither exist nor are
// in the template, as ARM's ResourceNotFound says.
func (e *roundEngine) stuck(r *convert.Round) map[string]any {
	if len(e.missing) > 0 {
		return map[string]any{"code": "ResourceNotFound",
			"message": fmt.Sprintf("The Resource '%s' was not found: the template reads it, and neither deploys it nor finds it deployed.", e.missing[0])}
	}
	var names []string
	for _, w := range r.Waiting {
		names = append(names, w.Name)
	}
	return map[string]any{"code": "InvalidTemplate",
		"message": fmt.Sprintf("Deployment template validation failed: the resources %s read each other in a circle, which ARM refuses (Circular dependency detected).", strings.Join(names, ", "))}
}

// read answers a reference() or list*() from this emulator's ARM, as the
// deployment engine reads a deployed resource: GET for reference(), POST
// of the action for list*().
func (e *roundEngine) read(_ context.Context, q convert.Read) (any, error) {
	id := q.ID
	if id == "" {
		if id = e.names[strings.ToLower(q.Name)]; id == "" {
			return nil, fmt.Errorf("resource '%s': %w", q.Name, convert.ErrNotDeployed)
		}
	}
	if _, ours := e.apis[strings.ToLower(id)]; ours && !e.deployed[strings.ToLower(id)] {
		return nil, fmt.Errorf("resource '%s': %w", id, convert.ErrNotDeployed)
	}
	api := q.APIVersion
	if api == "" {
		api = e.apiVersionOf(id)
	}
	if q.Action != "" {
		return e.action(id, api, q)
	}
	rec := e.s.internal(http.MethodGet, e.base, id+"?api-version="+api, nil)
	if rec.Code == http.StatusNotFound {
		e.missing = append(e.missing, id)
		return nil, fmt.Errorf("resource '%s': %w", id, convert.ErrNotDeployed)
	}
	var body map[string]any
	if rec.Code >= 300 || json.Unmarshal(rec.Body.Bytes(), &body) != nil {
		_, msg := errorOf(rec.Body.Bytes())
		return nil, fmt.Errorf("reading '%s': %s", id, msg)
	}
	if q.Full {
		// The full form carries the api-version it was read with.
		body["apiVersion"] = api
		return body, nil
	}
	if p, ok := body["properties"]; ok {
		return p, nil
	}
	return map[string]any{}, nil
}

// action POSTs a list* action of a deployed resource.
func (e *roundEngine) action(id, api string, q convert.Read) (any, error) {
	if e.s.lookup(id) == nil {
		e.missing = append(e.missing, id)
		return nil, fmt.Errorf("resource '%s': %w", id, convert.ErrNotDeployed)
	}
	var raw []byte
	if q.Body != nil {
		raw, _ = json.Marshal(q.Body)
	}
	rec := e.s.internal(http.MethodPost, e.base, id+"/"+q.Action+"?api-version="+api, raw)
	var out any
	if rec.Code >= 300 || json.Unmarshal(rec.Body.Bytes(), &out) != nil {
		_, msg := errorOf(rec.Body.Bytes())
		return nil, fmt.Errorf("%s of '%s': %s", q.Action, id, msg)
	}
	return out, nil
}

// apiVersionOf is the api-version a read without one uses: the one the
// template deploys the resource with, else the one it was written with.
func (e *roundEngine) apiVersionOf(id string) string {
	if api := e.apis[strings.ToLower(id)]; api != "" {
		return api
	}
	if r := e.s.lookup(id); r != nil && r.APIVersion != "" {
		return r.APIVersion
	}
	return "2021-04-01"
}

// lookup is the stored resource at id, taking the lock.
func (s *Server) lookup(id string) *resource {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.store.get(id)
}
