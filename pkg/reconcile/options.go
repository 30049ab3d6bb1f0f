// Package reconcile keeps Azure matching a manifest set continuously: the
// loop behind `kubectl azure apply --watch` and `kubectl azure controller`.
//
// One loop, built from the pieces a one-shot apply already has:
//
//   - a Reflector holds the last good manifest set of a source (a directory
//     scanned for changes, or ConfigMaps through an informer); an invalid
//     or empty set never replaces it, so nothing is pruned or rewritten
//     because a bad commit was pushed;
//   - the Observer sweeps the set through the apply engine's plan, which
//     reads by collection, on a read budget that is a fraction of ARM's
//     measured read bucket (ReadBudget), and confirms drift seen in a list
//     with one GET before it counts;
//   - Workers take resources from client-go's rate-limited work queue (one
//     resource is never held by two workers), take the state lock for one
//     batch only, and write through the engine's execute, on a write budget;
//   - a Tracker is the worker/observer lock: an observation taken while the
//     resource was being written is discarded, so the two never fight.
//
// docs/controller.md describes the states, policies and metrics.
package reconcile

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Drift policies, per set (Options.DriftPolicy) and per resource
// (AnnotationDriftPolicy).
const (
	// PolicyDetect reports drift (status file, metrics) and writes nothing.
	PolicyDetect = "detect"
	// PolicyCorrect writes the manifest's values back, once per drift.
	PolicyCorrect = "correct"
)

// AnnotationDriftPolicy overrides the set's drift policy for one resource.
const AnnotationDriftPolicy = "azure.kubectl.io/drift-policy"

// States of a resource in the status file.
const (
	StateInSync         = "in-sync"
	StateDrifted        = "drifted"
	StateCorrecting     = "correcting"
	StateContested      = "contested"
	StateUnconvergeable = "unconvergeable"
	StateError          = "error"
)

// KubeQPS and KubeBurst are the client-side rate limit of the
// controller's Kubernetes client (client-go's default is 5/s, burst 10).
// Its steady state writes nothing; a first sync of 10,000 objects writes
// each one's finalizer and status once, which at 5/s would take over an
// hour. The API server's own priority and fairness still applies.
const (
	KubeQPS   = 200
	KubeBurst = 400
)

// Options tune the loop. DefaultOptions is the one place their defaults
// live; the CLI overwrites the fields its flags set.
type Options struct {
	// ReadBudget is the share of ARM's read bucket (size and refill) the
	// observer may spend, 0 < ReadBudget <= 1.
	ReadBudget float64
	// InitialReadBudget is the share the observer may spend until the
	// loop is first in sync (one sweep of every resource completed, in
	// each term of leadership), 0 < InitialReadBudget <= 1. A first sweep
	// of a large set reads what a one-shot diff would, and a 5% share of
	// it took 90 s at 10,000 resources; the steady share applies from the
	// end of that sweep. Below ReadBudget, ReadBudget is used.
	InitialReadBudget float64
	// DriftPolicy is detect or correct for every resource without the
	// annotation.
	DriftPolicy string
	// StatusFile, when set, is replaced atomically after every sweep and
	// every write.
	StatusFile string
	// PlanFile, when set, receives the plan of every sweep that finds
	// drift, as a saved plan; it is removed when a sweep finds none.
	PlanFile string
	// MinSweepInterval is the least time between the starts of two sweeps;
	// the read budget usually spaces them further.
	MinSweepInterval time.Duration
	// SourceInterval is how often the manifest source is checked for
	// changes (a directory scan costs no ARM request).
	SourceInterval time.Duration
	// Workers is how many resources are written at once.
	Workers int
	// WriteBudget is writes per second the workers may send (burst
	// WriteBurst); ARM's write bucket refills at 10/s and other tools need
	// it too.
	WriteBudget float64
	WriteBurst  int
	// RetryBase and RetryMax bound the per-resource backoff after a failed
	// write.
	RetryBase, RetryMax time.Duration
	// ContestWindow and ContestLimit define contested drift: a path that
	// drifts again after ContestLimit corrections within ContestWindow is
	// being written by someone else. It is then left alone for
	// ContestBackoff (doubling each time it is contested again).
	ContestWindow  time.Duration
	ContestLimit   int
	ContestBackoff time.Duration
	// Holder names this process in the state lock.
	Holder string
	// LockTimeout bounds the wait for the state lock per batch: a CLI
	// apply holding it delays the batch, it does not fail the loop.
	LockTimeout time.Duration
	// Once stops after the first sweep has settled (tests, cron jobs).
	Once bool
}

// DefaultOptions returns the defaults.
func DefaultOptions() Options {
	return Options{
		ReadBudget:        0.05,
		InitialReadBudget: 0.5,
		DriftPolicy:       PolicyDetect,
		MinSweepInterval:  5 * time.Second,
		SourceInterval:    2 * time.Second,
		Workers:           4,
		WriteBudget:       1,
		WriteBurst:        10,
		RetryBase:         time.Second,
		RetryMax:          5 * time.Minute,
		ContestWindow:     10 * time.Minute,
		ContestLimit:      2,
		ContestBackoff:    time.Hour,
		LockTimeout:       time.Minute,
	}
}

// Validate rejects option values the loop cannot honour.
func (o Options) Validate() error {
	if o.ReadBudget <= 0 || o.ReadBudget > 1 {
		return fmt.Errorf("--read-budget must be above 0%% and at most 100%%, got %s", strconv.FormatFloat(o.ReadBudget*100, 'g', -1, 64)+"%")
	}
	if o.InitialReadBudget <= 0 || o.InitialReadBudget > 1 {
		return fmt.Errorf("--initial-read-budget must be above 0%% and at most 100%%, got %s", strconv.FormatFloat(o.InitialReadBudget*100, 'g', -1, 64)+"%")
	}
	if err := ValidatePolicy(o.DriftPolicy); err != nil {
		return fmt.Errorf("--drift-policy: %w", err)
	}
	if o.Workers < 1 {
		return fmt.Errorf("workers must be at least 1, got %d", o.Workers)
	}
	if o.WriteBudget <= 0 {
		return fmt.Errorf("the write budget must be above 0 writes per second, got %g", o.WriteBudget)
	}
	return nil
}

// ValidatePolicy accepts detect and correct.
func ValidatePolicy(p string) error {
	switch p {
	case PolicyDetect, PolicyCorrect:
		return nil
	}
	return fmt.Errorf("unknown drift policy %q: use detect or correct", p)
}

// initialShare is the read share of a sweep before the loop was first in
// sync: never below the steady one.
func (o Options) initialShare() float64 {
	return max(o.InitialReadBudget, o.ReadBudget)
}

// ParseBudget reads a read budget: "5%", "5" (percent) or "0.05".
func ParseBudget(s string) (float64, error) { return ParseShare("--read-budget", s) }

// ParseShare is ParseBudget for the flag named flag (its errors name it).
func ParseShare(flag, s string) (float64, error) {
	t := strings.TrimSpace(s)
	pct := strings.HasSuffix(t, "%")
	t = strings.TrimSuffix(t, "%")
	v, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil {
		return 0, fmt.Errorf("%s %q: give a percentage such as 5%%", flag, s)
	}
	if pct || v > 1 {
		v /= 100
	}
	if v <= 0 || v > 1 {
		return 0, fmt.Errorf("%s %q: must be above 0%% and at most 100%%", flag, s)
	}
	return v, nil
}
