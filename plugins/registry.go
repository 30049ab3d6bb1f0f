// Package plugins holds per-resource-type knowledge the ARM specs get wrong
// or do not carry (see docs/architecture.md, "Named rules"), as diff.Plugin
// values registered by type.
// Each provider has one small file; every rule cites the corpus record it
// was derived from.
package plugins

import (
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
)

// Registry maps a lower-cased resource type ("microsoft.network/virtualnetworks")
// to its plugin. Provider files add to it in init.
var Registry = map[string]diff.Plugin{}

// hookPaths lists, per lower-cased type, the schema paths the type's hooks
// read or rewrite. Hooks are code a test cannot look into, so each one
// names its paths when it registers (registerHooks) and TestRulePathsExist
// checks them like rule paths: a renamed property must not silently turn a
// hook into a no-op.
var hookPaths = map[string][]string{}

// hooked records the types registered with a hook, so the test can insist
// that every hook declared its paths.
var hooked = map[string]bool{}

// register adds a plugin for a type; a second registration for the same
// type is chained after the first.
func register(typ string, p diff.Plugin) {
	k := strings.ToLower(typ)
	if f, ok := p.(*diff.Funcs); ok && (f.AfterGetFn != nil || f.BeforeCompareFn != nil || f.BeforeWriteFn != nil) {
		hooked[k] = true
	}
	Registry[k] = diff.Chain(Registry[k], p)
}

// registerHooks registers a plugin with hooks and the schema paths those
// hooks read or rewrite ("properties.groups[].replicationProtectedItems[].virtualMachineId").
func registerHooks(typ string, p *diff.Funcs, paths ...string) {
	k := strings.ToLower(typ)
	hookPaths[k] = append(hookPaths[k], paths...)
	register(typ, p)
}

// For returns the plugin for a resource type, or nil when there is none
// (diff treats a nil Plugin as "no per-type knowledge").
func For(typ string) diff.Plugin {
	if p, ok := Registry[strings.ToLower(typ)]; ok && p != nil {
		return p
	}
	return nil
}
