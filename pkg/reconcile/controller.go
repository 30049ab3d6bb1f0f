package reconcile

// The loop: what it holds, how a term of it starts and stops. The
// observer (observer.go) judges what it reads by the policies
// (policy.go); workers (worker.go) write; report.go says what happened.

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/client-go/util/workqueue"

	"github.com/kubectl-azure/kubectl-azure/pkg/apply"
	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// Controller is the loop. Fill the exported fields, then Run.
type Controller struct {
	Options   Options
	Reflector *Reflector
	Store     state.Store
	// ObserveARM reads for the observer (its transport is a Budget);
	// WriteARM serves the workers. Two clients, so a long write never
	// waits behind the observer's read budget.
	ObserveARM apply.Client
	WriteARM   apply.Client
	Schemas    apply.SchemaSource
	Plugins    func(typ string) diff.Plugin
	// Engine are the apply options every plan uses (set, subscription,
	// concurrency). Its Consent is forced to apply.NoConsent and its Mode
	// to normal: the loop never deletes, adopts or replaces.
	Engine apply.Options
	// PlanSource is how the manifests are loaded again by `apply PLAN`
	// (Options.PlanFile).
	PlanSource apply.Source
	Metrics    *Metrics
	// Log receives one line per event worth a person's attention.
	Log io.Writer
	// Events, when set, also receives those events (Kubernetes Events on
	// the state objects in a cluster). It is called on a goroutine of its
	// own: a slow API server never holds the loop up.
	Events func(e Event)
	// Now is the clock (tests inject one).
	Now func() time.Time
	// History, when set, gives the status an earlier term left where
	// there is no status file to read it from (KubeStatus.History): the
	// contest counting a new term starts from.
	History func() *Status
	// Secrets is the registry the loop's long-lived parts scrub with: the
	// ARM clients' logs and errors, the state store's hashing, the log
	// writer. Give them all the same one. It holds no value of its own: it
	// includes the registry of the manifest set the loop observes
	// (Set.Secrets) while it observes it, and the registry of each plan or
	// batch (one over its set's) while that runs. The secrets of a set the
	// loop replaced and the keys a batch read go with them instead of
	// piling up for the life of the process. Nil: Run makes one; holding
	// nothing of its own, it is the same whether it lives for a term or
	// for the process.
	Secrets *secret.Registry

	metricsOnce sync.Once
	budget      *Budget // the observer's, when New made the loop
	tracker     *Tracker
	queue       workqueue.TypedRateLimitingInterface[string]
	writeLim    *rate.Limiter
	// lockMu keeps this process's workers from queueing on the state lock
	// against each other; other processes (a CLI apply) still take turns
	// with them through the store's lock.
	lockMu sync.Mutex
	// inflight counts, by key, the writes batches wait for with the locks
	// let go; their intents are hidden from other batches' repair.
	inflight map[string]int
	logMu    sync.Mutex
	warned   map[string]bool

	mu       sync.Mutex
	res      map[string]*resState
	set      *manifest.Set
	swept    int
	sweepErr error
	// heads are the record serials read at the start of the current
	// sweep; nil when they could not be read (nothing is judged foreign).
	heads    map[string]recordHead
	loadedAt time.Time
	leader   *bool
	// fence, under leader election, gates every write on the Lease.
	fence *Fence
	// releaseSet ends the inclusion of c.set's registry in c.Secrets.
	releaseSet func()
	// srcSet is the reflector's set; c.set is it without the retired
	// resources (deletion.go), whose objects are being deleted.
	srcSet  *manifest.Set
	retired map[string]bool
	// refs are the paths the set's references read, by resource key;
	// outputs what the loop last read there (outputs.go).
	refs    map[string][]string
	outputs map[string]Outputs
	byKey   map[string]*manifest.Resource // srcSet's resources and existing ones, for outputs
	// existing are the keys of srcSet's existing (read-only) resources;
	// existingReads what the loop's last read of each found (outputs.go).
	existing      map[string]bool
	existingReads map[string]ExistingRead
	statusMu      sync.Mutex
}

// resState is what the loop knows of one resource between sweeps.
type resState struct {
	id           string
	state        string
	lastObserved time.Time
	changes      []plan.Change
	message      string
	policy       string
	// corrections are recent writes that undid drift, oldest first.
	corrections []correction
	contested   int // times contested so far
	until       time.Time
	total       int // corrections ever
	// stuckOn is the set an unconvergeable verdict was reached with, and
	// stuckManifest the fingerprint of the resource's manifest in it: the
	// record now holds Azure's value, so later sweeps look in sync, and
	// the verdict stands until that manifest changes. The fingerprint is
	// what a new term (a restart, a new leader) restores it by.
	stuckOn       *manifest.Set
	stuckManifest string
	// serial is the state record's serial as the loop last took it (known:
	// there was one), with the manifest it took it under (foreign.go).
	serial     int64
	known      bool
	manifest   string
	manifestOf *manifest.Resource
}

type correction struct {
	at    time.Time
	paths []string
}

func (c *Controller) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// engine builds the engine for one plan or batch of set with this loop's
// options and a registry of its own over set's (see Secrets); release
// ends its inclusion in c.Secrets once the plan or batch is done.
func (c *Controller) engine(a apply.Client, collectionReads bool, set *manifest.Set) (eng *apply.Engine, release func()) {
	o := c.Engine
	o.Mode, o.Consent = plan.ModeNormal, apply.NoConsent()
	o.CollectionReads = collectionReads
	o.Holder = c.Options.Holder
	c.mu.Lock()
	if c.fence != nil {
		a = c.fence.Client(a)
	}
	c.mu.Unlock()
	a = outputsClient{a, c}
	var parent *secret.Registry
	if set != nil {
		parent = set.Secrets
	}
	reg := secret.NewRegistry(parent)
	c.mu.Lock()
	run := c.Secrets
	c.mu.Unlock()
	release = run.Include(reg)
	return &apply.Engine{Client: a, Store: c.Store, Schemas: c.Schemas, Plugins: c.Plugins, Options: o, Warn: warnWriter{c}, Secrets: reg}, release
}

// adopt makes set the one the loop observes and returns it as observed
// (without retired resources). Its registry is included in c.Secrets
// while it is (a line logged after a batch ended may still quote the
// set's values), and the one it replaces is released.
func (c *Controller) adopt(set *manifest.Set, loadedAt time.Time) *manifest.Set {
	c.mu.Lock()
	defer c.mu.Unlock()
	if set == c.srcSet && set != nil {
		c.loadedAt = loadedAt
		return c.set
	}
	if c.releaseSet != nil {
		c.releaseSet()
		c.releaseSet = nil
	}
	if set != nil {
		c.unretire(c.srcSet, set)
		c.srcSet, c.loadedAt = set, loadedAt
		c.set = c.observed(set)
		c.refs, c.byKey, c.existing = refPaths(set), byKeyOf(set), existingKeys(set)
		c.releaseSet = c.Secrets.Include(set.Secrets)
	}
	return c.set
}

// SetLeader records leadership for the status file and metrics.
func (c *Controller) SetLeader(on bool) {
	c.mu.Lock()
	c.leader = &on
	c.mu.Unlock()
	c.metrics().SetLeader(on)
}

// Ready is nil once a good manifest set loaded and a sweep completed.
func (c *Controller) Ready() error {
	if !c.Leader() {
		return nil // a standby is ready to take over
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.set == nil {
		return errors.New("no valid manifest set loaded yet")
	}
	if c.swept == 0 {
		return errors.New("first observation sweep not complete")
	}
	return nil
}

// metrics returns the metrics, creating them on first use.
func (c *Controller) metrics() *Metrics {
	c.metricsOnce.Do(func() {
		if c.Metrics == nil {
			c.Metrics = NewMetrics()
		}
	})
	return c.Metrics
}

// init resets what one run (one term of leadership) knows.
func (c *Controller) init() {
	c.metrics()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tracker = NewTracker()
	if c.Secrets == nil {
		c.Secrets = secret.NewRegistry()
	}
	c.res = map[string]*resState{}
	c.set, c.srcSet, c.swept, c.sweepErr = nil, nil, 0, nil
	c.writeLim = rate.NewLimiter(rate.Limit(c.Options.WriteBudget), max(1, c.Options.WriteBurst))
	base, maxDelay := c.Options.RetryBase, c.Options.RetryMax
	if base <= 0 {
		base = time.Second
	}
	if maxDelay < base {
		maxDelay = base
	}
	c.queue = workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](base, maxDelay),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "kubectl-azure"})
}

// Run reconciles until ctx ends, then returns nil: stopping is not an
// error. Writes in flight finish (or are journaled for the next run to
// settle by reading) before it returns.
func (c *Controller) Run(ctx context.Context) error {
	if err := c.Options.Validate(); err != nil {
		return err
	}
	c.init()
	c.restoreContests()
	c.repair(ctx)
	var wg sync.WaitGroup
	srcCtx, stopSrc := context.WithCancel(ctx)
	defer stopSrc()
	wg.Add(1)
	go func() {
		defer wg.Done()
		c.Reflector.Run(srcCtx, c.Options.SourceInterval, func(err error) {
			c.logf("manifests refused, still observing the last good set: %s", oneLine(err))
			c.writeStatus()
		})
	}()
	for range c.Options.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c.work(ctx) {
			}
		}()
	}
	defer func() {
		c.queue.ShutDown()
		stopSrc()
		wg.Wait()
		c.writeStatus()
		c.adopt(nil, time.Time{})
	}()

	var last time.Time
	for {
		set, loadedAt, _ := c.Reflector.Current()
		if set != nil {
			c.adopt(set, loadedAt)
			set = c.withNames()
			last = c.now()
			if err := c.Sweep(ctx, set); err != nil && ctx.Err() == nil {
				c.logf("observation failed (the next sweep retries): %s", oneLine(err))
			}
			if c.Options.Once && c.settle(ctx) {
				return nil
			}
		}
		wait := c.Options.MinSweepInterval - c.now().Sub(last)
		if set == nil {
			wait = c.Options.SourceInterval
		}
		if wait < 10*time.Millisecond {
			wait = 10 * time.Millisecond
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-c.Reflector.Changed():
			t.Stop()
		case <-t.C:
		}
	}
}

// repair settles the journal of an interrupted run (a leader killed
// mid-write, a crash) by reading, before this term's first sweep: the
// intent would otherwise stay open until the next write of any resource.
// A lock held elsewhere (a CLI apply) leaves it to the workers, which
// repair at every batch.
func (c *Controller) repair(ctx context.Context) {
	unlock, err := c.Store.Lock(ctx, c.Options.Holder, min(c.Options.LockTimeout, 5*time.Second))
	if err != nil {
		if ctx.Err() == nil {
			c.logf("the journal is settled with the first write (state lock: %s)", oneLine(err))
		}
		return
	}
	defer func() { _ = unlock() }()
	eng, release := c.engine(c.WriteARM, false, nil)
	defer release()
	if _, err := eng.Repair(ctx); err != nil && ctx.Err() == nil {
		c.logf("settling the journal of an interrupted run (the first write retries): %s", oneLine(err))
	}
}

// settle waits until the queue is empty and no worker holds a resource.
func (c *Controller) settle(ctx context.Context) bool {
	for ctx.Err() == nil {
		if c.queue.Len() == 0 && c.idle() {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

func (c *Controller) idle() bool {
	c.tracker.mu.Lock()
	defer c.tracker.mu.Unlock()
	return len(c.tracker.busy) == 0
}
