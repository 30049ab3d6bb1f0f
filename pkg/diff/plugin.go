package diff

import "github.com/kubectl-azure/kubectl-azure/pkg/schema"

// Plugin carries one resource type's knowledge that the specs lack
// (docs/plugins.md). Hooks run at named points; Rules are declarative facts the
// engine consults while comparing and writing. Every method must tolerate
// nil maps and must not modify its arguments in place: the engine passes
// its own copies but callers may share bodies between resources.
type Plugin interface {
	// AfterGet rewrites a live body as returned by GET (S, and the
	// baseline B which was projected from a GET) before anything else.
	AfterGet(live map[string]any) map[string]any
	// BeforeCompare may rewrite the desired and live bodies just before a
	// comparison (e.g. canonicalise a field both sides spell differently).
	BeforeCompare(desired, live map[string]any) (map[string]any, map[string]any)
	// BeforeWrite rewrites a PATCH or PUT body before it is sent.
	BeforeWrite(body map[string]any) map[string]any
	// Rules returns the declarative rules; nil means none.
	Rules() *Rules
}

// Normalizer maps a value to a canonical form; two values are equal when
// their canonical forms are. It must accept any JSON value.
type Normalizer func(v any) any

// Rules are declarative per-type facts. Paths use the schema path syntax
// ("properties.subnets[].name", "tags.*").
type Rules struct {
	// ReadOnly paths are server-computed though the spec does not say so:
	// never owned, stripped from PUT bodies.
	ReadOnly []schema.Path
	// Defaults are server defaults the spec does not declare: a desired value
	// equal to the default matches an absent live value.
	Defaults map[schema.Path]any
	// Unset lists, per path, desired values that mean "let the server
	// decide" (0, ""), so any live value matches them.
	Unset map[schema.Path][]any
	// Normalizers canonicalise values at a path before comparison.
	Normalizers map[schema.Path]Normalizer
	// Identifiers overrides how items of an array of objects are matched.
	Identifiers map[schema.Path][]string
	// Ordered scalar arrays are compared in order instead of as sets.
	Ordered []schema.Path
	// WriteOnly paths are accepted on PUT but never returned by GET:
	// unverifiable rather than changed when absent from live.
	WriteOnly []schema.Path
	// CreateOnly paths force a replace when changed.
	CreateOnly []schema.Path
	// TagsOnlyPatch: the type's PATCH accepts only tags; anything else must
	// be written with GET-modify-PUT.
	TagsOnlyPatch bool
	// NoPatch: the type has no usable PATCH at all.
	NoPatch bool
	// ChildCollections are arrays whose items are also child resources
	// with their own ARM IDs (vnet subnets, NSG securityRules, route-table
	// routes). Items not owned by this manifest are always kept from live
	// in a write, so a child managed as its own resource is never removed
	// by a write of its parent.
	ChildCollections []schema.Path
	// MergeCollections are arrays whose PUT behaves like PATCH: items absent
	// from the body are kept by the server, so removing one needs its own
	// DELETE; the engine warns instead of promising a removal.
	MergeCollections []schema.Path
}

// Funcs is a ready-made Plugin built from optional functions and rules, so
// a provider file only declares what it needs.
type Funcs struct {
	AfterGetFn      func(live map[string]any) map[string]any
	BeforeCompareFn func(desired, live map[string]any) (map[string]any, map[string]any)
	BeforeWriteFn   func(body map[string]any) map[string]any
	R               Rules
}

func (f *Funcs) AfterGet(live map[string]any) map[string]any {
	if f == nil || f.AfterGetFn == nil || live == nil {
		return live
	}
	return f.AfterGetFn(live)
}

func (f *Funcs) BeforeCompare(desired, live map[string]any) (map[string]any, map[string]any) {
	if f == nil || f.BeforeCompareFn == nil {
		return desired, live
	}
	return f.BeforeCompareFn(desired, live)
}

func (f *Funcs) BeforeWrite(body map[string]any) map[string]any {
	if f == nil || f.BeforeWriteFn == nil || body == nil {
		return body
	}
	return f.BeforeWriteFn(body)
}

// hooks reports which hooks are set, so the engine copies bodies only for
// plugins that rewrite them.
func (f *Funcs) hooks() (afterGet, beforeCompare bool) {
	if f == nil {
		return false, false
	}
	return f.AfterGetFn != nil, f.BeforeCompareFn != nil
}

// hookInfo is implemented by the plugins this package builds.
type hookInfo interface {
	hooks() (afterGet, beforeCompare bool)
}

// pluginHooks reports which hooks a plugin may run; unknown Plugin
// implementations are assumed to run all of them.
func pluginHooks(p Plugin) (afterGet, beforeCompare bool) {
	if h, ok := p.(hookInfo); ok {
		return h.hooks()
	}
	return true, true
}

func (f *Funcs) Rules() *Rules {
	if f == nil {
		return nil
	}
	return &f.R
}

// Chain combines plugins; hooks run in order and rules are merged.
func Chain(ps ...Plugin) Plugin {
	var live []Plugin
	for _, p := range ps {
		if p != nil {
			live = append(live, p)
		}
	}
	switch len(live) {
	case 0:
		return nil
	case 1:
		return live[0]
	}
	// Rules are merged once here: the engine caches facts by the Rules
	// pointer, so Rules() must return the same pointer on every call.
	return &chain{ps: live, r: mergeRules(live)}
}

type chain struct {
	ps []Plugin
	r  *Rules
}

func (c *chain) AfterGet(live map[string]any) map[string]any {
	for _, p := range c.ps {
		live = p.AfterGet(live)
	}
	return live
}

func (c *chain) BeforeCompare(d, l map[string]any) (map[string]any, map[string]any) {
	for _, p := range c.ps {
		d, l = p.BeforeCompare(d, l)
	}
	return d, l
}

func (c *chain) BeforeWrite(b map[string]any) map[string]any {
	for _, p := range c.ps {
		b = p.BeforeWrite(b)
	}
	return b
}

func (c *chain) Rules() *Rules { return c.r }

func (c *chain) hooks() (afterGet, beforeCompare bool) {
	for _, p := range c.ps {
		a, b := pluginHooks(p)
		afterGet, beforeCompare = afterGet || a, beforeCompare || b
	}
	return afterGet, beforeCompare
}

func mergeRules(ps []Plugin) *Rules {
	out := &Rules{}
	for _, p := range ps {
		r := p.Rules()
		if r == nil {
			continue
		}
		out.ReadOnly = append(out.ReadOnly, r.ReadOnly...)
		out.Ordered = append(out.Ordered, r.Ordered...)
		out.WriteOnly = append(out.WriteOnly, r.WriteOnly...)
		out.CreateOnly = append(out.CreateOnly, r.CreateOnly...)
		out.ChildCollections = append(out.ChildCollections, r.ChildCollections...)
		out.MergeCollections = append(out.MergeCollections, r.MergeCollections...)
		out.TagsOnlyPatch = out.TagsOnlyPatch || r.TagsOnlyPatch
		out.NoPatch = out.NoPatch || r.NoPatch
		for k, v := range r.Defaults {
			if out.Defaults == nil {
				out.Defaults = map[schema.Path]any{}
			}
			out.Defaults[k] = v
		}
		for k, v := range r.Unset {
			if out.Unset == nil {
				out.Unset = map[schema.Path][]any{}
			}
			out.Unset[k] = append(out.Unset[k], v...)
		}
		for k, v := range r.Normalizers {
			if out.Normalizers == nil {
				out.Normalizers = map[schema.Path]Normalizer{}
			}
			out.Normalizers[k] = v
		}
		for k, v := range r.Identifiers {
			if out.Identifiers == nil {
				out.Identifiers = map[schema.Path][]string{}
			}
			out.Identifiers[k] = v
		}
	}
	return out
}
