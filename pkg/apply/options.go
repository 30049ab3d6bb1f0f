// Package apply turns manifests into a plan (reads, state, diff per
// resource, ordered as a DAG) and executes it (writes, waits, GETs, records
// state).
//
// The engine talks to ARM and reports progress through the small ARM and
// Progress interfaces declared here, so its decisions are tested without
// HTTP. Nothing destructive happens by accident: Check refuses, before any
// write, a plan that adopts, replaces, deletes what the tool never applied,
// deletes unmanaged resources with their parent, prunes a whole set without
// a person confirming it, or destroys a resource annotated prevent-destroy;
// each refusal names the flag that lifts it. Values Azure generates
// (${ref:NAME.PATH}, deferred names, action secrets) are resolved from live
// bodies when the plan can know them and right before the write otherwise.
package apply

import (
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// Options configure planning and execution. DefaultOptions is the one place
// their defaults live; the CLI fills fields from flags.
type Options struct {
	// Mode is what the plan is for: normal, refresh-only or delete.
	Mode plan.Mode
	// Consent holds what the run permits beyond creating and updating
	// what it manages.
	Consent
	// Concurrency bounds parallel ARM operations; 0 takes the ARM client's
	// measured default.
	Concurrency int
	// Replace holds the ARM IDs of resources to delete and create again
	// although nothing forces it (--replace). Naming a resource is the
	// consent to replace it; prevent-destroy and the cascade check still
	// refuse.
	Replace []string
	// Explain records, per owned path judged equal, the rule that made it equal.
	Explain bool
	// Set names the manifest set in state (what --prune considers).
	Set string
	// Holder identifies this run in the state lock.
	Holder string
	// LockTimeout is how long to wait for another run's lock.
	LockTimeout time.Duration

	// Subscription is the subscription the run targets: prune and delete
	// consider only state records in it (and in Set).
	Subscription string
	// CollectionReads lets the plan read live state with collection GETs
	// where that needs fewer requests (on by default).
	CollectionReads bool
	// CacheLag is how long ARM's generic resource list may lag a write:
	// resources written more recently are not read from it (0: the ARM
	// client's default; negative: no lag, for an endpoint without a cache).
	CacheLag time.Duration
	// DrainTimeout bounds how long writes in flight may take to finish
	// after the first interrupt (ExecuteUntil); 0 means DefaultDrainTimeout.
	DrainTimeout time.Duration
}

// Consent is every permission a run may give beyond creating and updating
// the resources it manages; each refusal of Check names the flag that
// sets one. Its zero value, NoConsent, permits none of them.
type Consent struct {
	// Adopt permits writing resources that exist in Azure but not in state.
	Adopt bool
	// AllowReplace permits delete-and-recreate when a create-only property changed.
	AllowReplace bool
	// Prune deletes resources the state holds for this set that the
	// manifests no longer declare (normal mode only).
	Prune bool
	// AllowDeleteUnmanaged permits deleting a resource that exists in Azure
	// but was never applied by this tool (not in state).
	AllowDeleteUnmanaged bool
	// AllowCascade permits deleting a parent while resources no manifest or
	// state manages would be destroyed with it.
	AllowCascade bool
	// AllowPruneAll permits a non-interactive prune that deletes every
	// resource of the set.
	AllowPruneAll bool
	// Interactive is set when a person confirms the plan at a terminal.
	Interactive bool
}

// NoConsent is the consent of a run no person confirms (the controller):
// nothing beyond creating and updating what it manages. A permission added
// to Consent later is off there without anyone remembering to turn it off.
func NoConsent() Consent { return Consent{} }

// deletes reports whether the plan deletes what it declares.
func (o Options) deletes() bool { return o.Mode == plan.ModeDelete }

// refreshOnly reports whether the plan records drift only.
func (o Options) refreshOnly() bool { return o.Mode == plan.ModeRefreshOnly }

// prunes reports whether the plan deletes what the set no longer declares.
func (o Options) prunes() bool { return o.Mode == plan.ModeNormal && o.Prune }

// DefaultSet is the set name used when none is given.
const DefaultSet = "default"

// DefaultOptions returns the defaults.
func DefaultOptions() Options {
	return Options{Set: DefaultSet, LockTimeout: time.Minute, CollectionReads: true}
}
