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

import "time"

// Options configure planning and execution. DefaultOptions is the one place
// their defaults live; the CLI fills fields from flags.
type Options struct {
	// Concurrency bounds parallel ARM operations; 0 takes the ARM client's
	// measured default.
	Concurrency int
	// AllowReplace permits delete-and-recreate when a create-only property changed.
	AllowReplace bool
	// Replace holds the ARM IDs of resources to delete and create again
	// although nothing forces it (--replace). Naming a resource is the
	// consent to replace it; prevent-destroy and the cascade check still
	// refuse.
	Replace []string
	// RefreshOnly plans only drift and, on apply, records the live bodies
	// as the new baseline without writing to Azure (--refresh-only).
	RefreshOnly bool
	// Prune deletes resources the state holds for this set that the
	// manifests no longer declare.
	Prune bool
	// Adopt permits writing resources that exist in Azure but not in state.
	Adopt bool
	// Explain records, per owned path judged equal, the rule that made it equal.
	Explain bool
	// Set names the manifest set in state (what --prune considers).
	Set string
	// Holder identifies this run in the state lock.
	Holder string
	// LockTimeout is how long to wait for another run's lock.
	LockTimeout time.Duration
	// Delete plans the removal of every manifest resource (the delete command).
	Delete bool

	// Subscription is the subscription the run targets: prune and delete
	// consider only state records in it (and in Set).
	Subscription string
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

// DefaultSet is the set name used when none is given.
const DefaultSet = "default"

// DefaultOptions returns the defaults.
func DefaultOptions() Options {
	return Options{Set: DefaultSet, LockTimeout: time.Minute, CollectionReads: true}
}
