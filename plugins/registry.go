// Package plugins holds per-resource-type knowledge the ARM specs get wrong
// or do not carry (see docs/architecture.md, "Named rules"), as diff.Plugin
// values looked up by type.
// Each provider has one small file; every rule cites the corpus record it
// was derived from.
package plugins

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// providers lists every provider file's declarations, once. A provider
// is a function that adds its plugins to the table being built; nothing
// is registered as a side effect of importing the package.
var providers = []func(*builder){
	appPlugins,
	appPlatformPlugins,
	azureStackHCIPlugins,
	computePlugins,
	containerServicePlugins,
	dataProtectionPlugins,
	documentDBPlugins,
	helpPlugins,
	hybridComputePlugins,
	keyVaultPlugins,
	kubernetesConfigurationPlugins,
	logicPlugins,
	logzPlugins,
	networkCollectionPlugins,
	applicationGatewayPlugins,
	firewallPolicyPlugins,
	networkCloudPlugins,
	notificationHubsPlugins,
	operationsManagementPlugins,
	quotaPlugins,
	recoveryPlanPlugins,
	protectedItemPlugins,
	subscriptionPlugins,
	supportPlugins,
	webPlugins,
}

// table is the built registry; it is never modified after build.
type table struct {
	// plugins maps a lower-cased resource type
	// ("microsoft.network/virtualnetworks") to its plugin.
	plugins map[string]diff.Plugin
	// hookPaths lists, per lower-cased type, the schema paths the type's
	// hooks read or rewrite. Hooks are code a test cannot look into, so
	// each one names its paths (builder.addHooks) and TestRulePathsExist
	// checks them like rule paths: a renamed property must not silently
	// turn a hook into a no-op.
	hookPaths map[string][]schema.Path
	// hooked records the types declared with a hook, so the test can
	// insist that every hook named its paths.
	hooked map[string]bool
}

// registry is the table of every provider, built on first use.
var registry = sync.OnceValue(func() table {
	t, err := build(providers)
	if err != nil {
		// A programming error that TestRegistryBuilds reports first.
		panic(err)
	}
	return t
})

// builder collects the providers' declarations.
type builder struct {
	t    table
	dups []string
}

// add declares the plugin of a type. A type has one plugin: a second
// declaration is an error, so two providers cannot silently merge rules.
func (b *builder) add(typ string, p *diff.Funcs) {
	k := strings.ToLower(typ)
	if _, ok := b.t.plugins[k]; ok {
		b.dups = append(b.dups, typ)
		return
	}
	if p.AfterGetFn != nil || p.BeforeCompareFn != nil || p.BeforeWriteFn != nil {
		b.t.hooked[k] = true
	}
	b.t.plugins[k] = p
}

// addHooks declares a plugin with hooks and the schema paths those hooks
// read or rewrite ("properties.groups[].replicationProtectedItems[].virtualMachineId").
func (b *builder) addHooks(typ string, p *diff.Funcs, paths ...schema.Path) {
	k := strings.ToLower(typ)
	if _, ok := b.t.plugins[k]; !ok {
		b.t.hookPaths[k] = paths
	}
	b.add(typ, p)
}

// build runs the providers into a new table; it fails when a type is
// declared twice.
func build(providers []func(*builder)) (table, error) {
	b := &builder{t: table{plugins: map[string]diff.Plugin{}, hookPaths: map[string][]schema.Path{}, hooked: map[string]bool{}}}
	for _, p := range providers {
		p(b)
	}
	if len(b.dups) > 0 {
		sort.Strings(b.dups)
		return table{}, fmt.Errorf("plugins: declared more than once: %s; merge the rules into one declaration", strings.Join(b.dups, ", "))
	}
	return b.t, nil
}

// For returns the plugin for a resource type, or nil when there is none
// (diff treats a nil Plugin as "no per-type knowledge").
func For(typ string) diff.Plugin {
	if p, ok := registry().plugins[strings.ToLower(typ)]; ok && p != nil {
		return p
	}
	return nil
}
