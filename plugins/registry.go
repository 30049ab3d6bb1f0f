// Package plugins holds per-resource-type knowledge the ARM specs get wrong
// or do not carry (see docs/architecture.md, "Named rules"), as diff.Plugin
// values registered by type.
// Each provider has one small file; every rule cites the corpus record it
// was derived from.
package plugins

import (
	"sort"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
)

// Registry maps a lower-cased resource type ("microsoft.network/virtualnetworks")
// to its plugin. Provider files add to it in init.
var Registry = map[string]diff.Plugin{}

// register adds a plugin for a type; a second registration for the same
// type is chained after the first.
func register(typ string, p diff.Plugin) {
	k := strings.ToLower(typ)
	Registry[k] = diff.Chain(Registry[k], p)
}

// For returns the plugin for a resource type, or nil when there is none
// (diff treats a nil Plugin as "no per-type knowledge").
func For(typ string) diff.Plugin {
	if p, ok := Registry[strings.ToLower(typ)]; ok && p != nil {
		return p
	}
	return nil
}

// Types lists the registered types, sorted.
func Types() []string {
	out := make([]string, 0, len(Registry))
	for k := range Registry {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
