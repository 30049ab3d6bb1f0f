package apply

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/printer"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// SchemaSource looks up type facts; *schema.Registry implements it.
type SchemaSource interface {
	Lookup(typ, apiVersion string) (*schema.Type, schema.Resolution)
}

// Engine plans and applies. Its collaborators are explicit so tests can run it
// against the emulator with any state backend.
type Engine struct {
	ARM     *arm.Client
	Store   state.Store
	Schemas SchemaSource                 // nil: heuristics only
	Plugins func(typ string) diff.Plugin // nil: no plugins
	Options Options
	// Progress receives per-resource events during Execute; nil discards them.
	Progress printer.Progress
	// Warn receives one line per warning (schema fallbacks, repairs); nil discards.
	Warn io.Writer

	warnMu sync.Mutex
	warned map[string]bool
}

// item is one resource's planning and execution record.
type item struct {
	res  *manifest.Resource // nil for a prune or a state-only delete
	id   string
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
	input    diff.Input
	result   diff.Result
	planned  plan.Resource
	// replaced is set once this resource was deleted and created again:
	// resources inside it (children, extension resources scoped to it)
	// went with it and must be read again before they are judged.
	replaced bool
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
}

// Plan reads live state and recorded state for every manifest resource (and,
// with Prune or Delete, for recorded resources), diffs them and orders the
// result. It writes nothing anywhere.
func (e *Engine) Plan(ctx context.Context, set *manifest.Set) (*Prepared, error) {
	secretKey, err := e.Store.SecretKey(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the state's secret key: %w", err)
	}
	records, err := e.Store.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading state: %w", err)
	}
	recByKey := make(map[string]*state.Record, len(records))
	for _, r := range records {
		recByKey[key(r.ID)] = r
	}

	var items []*item
	declared := map[string]bool{}
	for _, r := range set.Resources {
		it := &item{res: r, id: r.ID, typ: r.Type, ver: r.APIVersion, name: r.Name,
			declaredDeps: r.DependsOn, secrets: r.SecretPaths, record: recByKey[key(r.ID)]}
		declared[key(r.ID)] = true
		items = append(items, it)
	}
	if e.Options.Prune && !e.Options.Delete {
		for _, r := range records {
			if declared[key(r.ID)] || !strings.EqualFold(r.Set, e.set()) {
				continue
			}
			items = append(items, &item{id: r.ID, typ: r.Type, ver: r.APIVersion, name: lastName(r.ID), record: r})
		}
	}
	if err := linkDeps(items); err != nil {
		return nil, err
	}

	for _, it := range items {
		it.schema, it.plugin = e.lookup(it.typ, it.ver)
		it.schema = withSecrets(it.schema, it.typ, it.ver, it.secrets)
	}
	if err := e.forEach(ctx, items, func(ctx context.Context, it *item) error {
		return e.read(ctx, it)
	}); err != nil {
		return nil, err
	}

	p := &plan.Plan{FormatVersion: plan.FormatVersion}
	for _, it := range items {
		e.decide(it, secretKey)
		p.Resources = append(p.Resources, it.planned)
	}
	order(p, items)
	p.Summarize()
	return &Prepared{Plan: p, items: items, key: secretKey}, nil
}

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
	resp, err := e.ARM.Get(ctx, it.id, it.ver)
	switch {
	case arm.IsNotFound(err):
		it.live, it.liveEtag = nil, ""
		return nil
	case err != nil:
		return fmt.Errorf("reading %s: %w", it.display(), err)
	}
	it.live, it.liveEtag = resp.Body, resp.ETag
	if it.live == nil {
		it.live = map[string]any{}
	}
	return nil
}

// forEach runs fn over items with bounded parallelism and returns the first error.
func (e *Engine) forEach(ctx context.Context, items []*item, fn func(context.Context, *item) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, e.concurrency())
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for _, it := range items {
		wg.Add(1)
		go func(it *item) {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			if err := fn(ctx, it); err != nil {
				mu.Lock()
				if first == nil {
					first = err
					cancel()
				}
				mu.Unlock()
			}
		}(it)
	}
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return first
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
func (e *Engine) decide(it *item, secretKey []byte) {
	pr := plan.Resource{ID: it.id, Type: it.typ, APIVersion: it.ver, Changes: []plan.Change{}}
	if it.res != nil {
		pr.Origin = it.res.Origin.String()
	}
	pr.LiveEtag = it.liveEtag
	pr.LiveHash = hashBody(it.live)
	for _, d := range it.deps {
		pr.DependsOn = append(pr.DependsOn, d.id)
	}

	if it.res == nil || e.Options.Delete {
		// A pruned resource, or the delete command.
		if it.live == nil {
			pr.Action = plan.ActionNoOp
			pr.Reason = "already absent from Azure"
		} else {
			pr.Action, pr.Method = plan.ActionDelete, "DELETE"
			pr.Reason = "declared by the manifests: delete"
			if it.res == nil {
				pr.Reason = "recorded in state for set " + e.set() + " but no longer declared (--prune)"
			}
			pr.Changes = []plan.Change{{Path: "", Before: "(exists)", After: nil, Kind: plan.KindRemove, Reason: pr.Reason}}
		}
		it.planned = pr
		return
	}

	in := diff.Input{Desired: it.res.Body, Live: it.live, Schema: it.schema, Plugin: it.plugin,
		SecretKey: secretKey, Explain: e.Options.Explain}
	if it.record != nil && it.live != nil {
		in.LastApplied, in.Baseline = it.record.LastApplied, it.record.Baseline
	}
	it.input = in
	it.result = diff.Compute(in)
	res := it.result
	pr.Changes = markSensitive(res.Changes, it.secrets)
	pr.Equal = res.Equal
	for _, w := range res.Warnings {
		e.warnf("%s: %s", it.display(), w)
	}

	switch {
	case it.live == nil:
		pr.Action, pr.Method = plan.ActionCreate, "PUT"
		pr.Reason = "not found in Azure"
		if it.record != nil {
			pr.Reason = "recorded in state but not found in Azure (deleted outside kubectl-azure): it will be created again"
		}
		if len(pr.Changes) == 0 {
			// Contract: a write must have changes; a create writes the whole body.
			pr.Changes = []plan.Change{{Path: "", Before: nil, After: "(new resource)", Kind: plan.KindAdd, Reason: pr.Reason}}
		}
	case it.record == nil:
		pr.Action = plan.ActionAdopt
		pr.Reason = "exists in Azure but not in state: written only with --adopt (or after import)"
		if len(pr.Changes) > 0 {
			pr.Method = e.method(it)
		}
	case res.Action == diff.ActionReplace:
		pr.Action, pr.Method = plan.ActionReplace, "DELETE+PUT"
		pr.Reason = "a create-only property changed: the resource must be deleted and created again (needs --allow-replace)"
	case len(pr.Changes) > 0:
		pr.Action = plan.ActionUpdate
		pr.Method = e.method(it)
	default:
		pr.Action = plan.ActionNoOp
	}
	it.planned = pr
}

// method picks PATCH when the type's PATCH model takes every changed path,
// else GET-modify-PUT (DESIGN §4); a type that answered 405 this run is PUT.
func (e *Engine) method(it *item) string {
	if e.ARM.PatchUnsupported(it.typ) {
		return "PUT"
	}
	if m := diff.WriteMethod(it.input, it.result); m != "" {
		return m
	}
	return "PUT"
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

// markSensitive hides values at manifest secret paths (valueFrom) in addition
// to those the diff already knows are secret.
func markSensitive(cs []plan.Change, secrets []string) []plan.Change {
	out := make([]plan.Change, 0, len(cs))
	for _, c := range cs {
		for _, s := range secrets {
			if c.Path == s || strings.HasPrefix(c.Path, s+".") || strings.HasPrefix(c.Path, s+"[") {
				c.Sensitive = true
			}
		}
		if c.Sensitive {
			if c.Before != nil {
				c.Before = plan.Sensitive
			}
			if c.After != nil {
				c.After = plan.Sensitive
			}
		}
		out = append(out, c)
	}
	return out
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
	depth := map[*item]int{}
	var d func(*item) int
	d = func(it *item) int {
		if v, ok := depth[it]; ok {
			return v
		}
		depth[it] = 0
		m := 0
		for _, x := range it.deps {
			if v := d(x) + 1; v > m {
				m = v
			}
		}
		depth[it] = m
		return m
	}
	idx := make([]int, len(items))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		da, db := d(items[idx[a]]), d(items[idx[b]])
		if da != db {
			return da < db
		}
		return key(items[idx[a]].id) < key(items[idx[b]].id)
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

func lastName(id string) string {
	parts := strings.Split(strings.TrimRight(id, "/"), "/")
	return parts[len(parts)-1]
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
