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
