// Package controller tests the reconcile loop (apply --watch and the
// controller) end to end against the emulated ARM: per-client request
// counts tell the loop's requests from another client's. The long runs at
// 1,000 resources are benchmarks (go test -bench . ./test/controller), so
// `make test` stays fast.
package controller

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/apply"
	"github.com/kubectl-azure/kubectl-azure/pkg/apply/armclient"
	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
	"github.com/kubectl-azure/kubectl-azure/pkg/emulator/emulatortest"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/reconcile"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
	"github.com/kubectl-azure/kubectl-azure/plugins"
	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

// other is every client but the loop and the CLI (a person, a script).
const other = "other"

// front is the emulator behind emulatortest's per-client counting front.
type front struct {
	*emulatortest.Front
	arm *harness.ARM
}

func newFront(t testing.TB, opts emulator.Options) *front {
	t.Helper()
	a := harness.StartARM(t, opts)
	return &front{Front: emulatortest.StartFront(t, func() http.Handler { return a.Server().Handler() }, other), arm: a}
}

// loopWritesOf is how many writes to id the loops sent: every resource
// of these tests was created once, by the initial apply.
func (f *front) loopWritesOf(id string) int { return f.WritesOf(id) - 1 }

// applied applies the manifests of dir as `apply` would and returns the
// state's path.
func applied(t testing.TB, f *front, dir string) string {
	t.Helper()
	statePath := filepath.Join(t.TempDir(), "state.json")
	if out, err := harness.ApplyWithClient(t.Context(), t, f.URL, statePath, dir, nil); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	return statePath
}

// managed writes groups resource groups of perGroup identities (prefix
// names them, see identity), applies them and returns the manifests'
// directory and the state's path.
func managed(t testing.TB, f *front, prefix string, groups, perGroup int) (dir, statePath string) {
	t.Helper()
	dir = t.TempDir()
	harness.ManagedGroups(t, dir, prefix, groups, perGroup)
	return dir, applied(t, f, dir)
}

// loop is one running reconcile loop, wired as the CLI wires it.
type loop struct {
	ctl    *reconcile.Controller
	budget *reconcile.Budget
	stop   func()
	done   chan error
}

func startLoop(t testing.TB, endpoint, dir, statePath string, o reconcile.Options) *loop {
	t.Helper()
	return startLoopWith(t, endpoint, dir, statePath, o, loopConfig{})
}

// loopConfig is what differs between the loops of one test.
type loopConfig struct {
	// Name goes into the loop's User-Agent (kubectl-azure/test reconcile
	// NAME), so the emulator's per-client counts tell replicas apart.
	Name string
	// Elect runs the loop under leader election (its stop then behaves as
	// a kill: the Lease is not released).
	Elect  *reconcile.Election
	Events func(reconcile.Event)
	// Log receives the loop's log lines (default: discarded).
	Log io.Writer
}

// userAgent is the User-Agent of the loop named name.
func userAgent(name string) string { return strings.TrimSpace("kubectl-azure/test reconcile " + name) }

// newController wires a loop as the CLI wires it (also in a replica
// process, hence an error rather than a testing.TB).
func newController(endpoint, dir, statePath string, o reconcile.Options, lc loopConfig) (*reconcile.Controller, *reconcile.Budget, error) {
	st, err := state.Open(context.Background(), statePath, state.DefaultOptions())
	if err != nil {
		return nil, nil, err
	}
	src := &reconcile.DirSource{Paths: []string{dir}, LoadFunc: func(ctx context.Context) (*manifest.Set, error) {
		lo := manifest.NewLoadOptions()
		lo.Filenames = []string{dir}
		lo.Subscription = harness.Sub
		return manifest.Load(ctx, lo)
	}}
	eo := apply.DefaultOptions()
	eo.Subscription = harness.Sub
	ctl, err := reconcile.New(reconcile.Config{Options: o, Reflector: reconcile.NewReflector(src), Store: st,
		ARM: func(rt http.RoundTripper, concurrency int) (apply.Client, error) {
			ao := arm.DefaultOptions()
			ao.Endpoint = endpoint
			ao.Version = strings.TrimPrefix(userAgent(lc.Name), "kubectl-azure/")
			ao.Concurrency = cmp.Or(concurrency, 16)
			ao.HTTPClient = &http.Client{Transport: rt}
			c, err := arm.New(ao)
			if err != nil {
				return nil, err
			}
			return armclient.New(c), nil
		},
		Schemas: schema.Default(), Plugins: plugins.For, Engine: eo, Log: lc.Log, Events: lc.Events})
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return ctl, ctl.Budget(), nil
}

// startLoopWith starts a loop in this process.
func startLoopWith(t testing.TB, endpoint, dir, statePath string, o reconcile.Options, lc loopConfig) *loop {
	t.Helper()
	ctl, budget, err := newController(endpoint, dir, statePath, o, lc)
	if err != nil {
		t.Fatal(err)
	}
	st, elect := ctl.Store, lc.Elect
	ctx, cancel := context.WithCancel(context.Background())
	l := &loop{ctl: ctl, budget: budget, done: make(chan error, 1)}
	go func() {
		if elect != nil {
			l.done <- ctl.RunElected(ctx, *elect)
			return
		}
		l.done <- ctl.Run(ctx)
	}()
	var once sync.Once
	l.stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-l.done:
				if err != nil {
					t.Errorf("the loop ended with %v", err)
				}
			case <-time.After(30 * time.Second):
				t.Errorf("the loop did not stop")
			}
			st.Close()
		})
	}
	t.Cleanup(l.stop)
	return l
}

// waitState polls the loop's snapshot until ok holds or within passes.
func waitState(t testing.TB, l *loop, within time.Duration, ok func(*reconcile.Status) bool) (*reconcile.Status, bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		st := l.ctl.Snapshot()
		if ok(st) {
			return st, true
		}
		if time.Now().After(deadline) {
			return st, false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func inSync(n int) func(*reconcile.Status) bool {
	return func(st *reconcile.Status) bool { return len(st.Resources) == n && st.InSync() }
}

func stateOf(st *reconcile.Status, id string) string {
	for _, r := range st.Resources {
		if strings.EqualFold(r.ID, id) {
			return r.State
		}
	}
	return ""
}

func identity(prefix string, g, i int) string {
	return fmt.Sprintf("/subscriptions/%s/resourceGroups/rg-%s-%02d/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-%s-%02d-%04d", harness.Sub, prefix, g, prefix, g, i)
}

// drain is another client spending the read bucket down to about floor
// remaining reads and holding it there, as a busy portal or script would.
func drain(ctx context.Context, url string, floor int) {
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/subscriptions/"+harness.Sub+"/resourcegroups?api-version=2021-04-01", nil)
				req.Header.Set("User-Agent", "busy-script/1.0")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				rem, _ := strconv.Atoi(resp.Header.Get("x-ms-ratelimit-remaining-subscription-reads"))
				if rem < floor || resp.StatusCode == http.StatusTooManyRequests {
					time.Sleep(200 * time.Millisecond)
				}
			}
		}()
	}
	wg.Wait()
}

func fastLoop() reconcile.Options {
	o := reconcile.DefaultOptions()
	o.MinSweepInterval = 100 * time.Millisecond
	o.SourceInterval = 50 * time.Millisecond
	o.RetryBase = 20 * time.Millisecond
	return o
}

// TestNoThrottleWhileAnotherClientDrainsTheBucket: another client keeps
// ARM's read bucket nearly empty; the loop slows down instead of being
// answered 429, and still notices drift.
func TestNoThrottleWhileAnotherClientDrainsTheBucket(t *testing.T) {
	f := newFront(t, harness.FastOptions())
	dir, statePath := managed(t, f, "drain", 2, 10)
	o := fastLoop()
	o.ReadBudget = 0.2
	l := startLoop(t, f.URL, dir, statePath, o)
	if st, ok := waitState(t, l, 20*time.Second, inSync(22)); !ok {
		t.Fatalf("not in sync: %+v", st.Resources)
	}
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); drain(ctx, f.URL, 40) }()
	time.Sleep(3 * time.Second)
	f.arm.Drift(identity("drain", 1, 3), "env", "changed")
	st, ok := waitState(t, l, 30*time.Second, func(st *reconcile.Status) bool {
		return stateOf(st, identity("drain", 1, 3)) == reconcile.StateDrifted
	})
	cancel()
	wg.Wait()
	if !ok {
		t.Fatalf("drift not noticed while the bucket was drained: %s", stateOf(st, identity("drain", 1, 3)))
	}
	if n := f.Throttled(emulatortest.ClientLoop); n != 0 {
		t.Fatalf("the loop was answered 429 %d times (the other client %d)", n, f.Throttled(other))
	}
	if f.Count(other, "GET") < 100 {
		t.Fatalf("the other client sent only %d reads: the bucket was not drained", f.Count(other, "GET"))
	}
	if w := f.Writes(emulatortest.ClientLoop); w != 0 {
		t.Fatalf("detect policy: %d writes", w)
	}
	t.Logf("loop reads %d, other client reads %d (429s: %d)", f.Count(emulatortest.ClientLoop, "GET"), f.Count(other, "GET"), f.Throttled(other))
}

// TestCorrectAtModestScaleWritesOncePerDrift: with correct, each drifted
// resource is written once, and the loop's own writes are never judged as
// drift by sweeps that overlap them (it would correct its own correction).
func TestCorrectAtModestScaleWritesOncePerDrift(t *testing.T) {
	f := newFront(t, harness.FastOptions())
	dir, statePath := managed(t, f, "fix", 3, 10)
	o := fastLoop()
	o.ReadBudget = 0.5
	o.DriftPolicy = reconcile.PolicyCorrect
	var evMu sync.Mutex
	events := map[string]int{}
	l := startLoopWith(t, f.URL, dir, statePath, o, loopConfig{Events: func(e reconcile.Event) {
		evMu.Lock()
		events[e.Reason]++
		evMu.Unlock()
	}})
	if _, ok := waitState(t, l, 20*time.Second, inSync(33)); !ok {
		t.Fatal("not in sync")
	}
	drifted := []string{identity("fix", 0, 1), identity("fix", 1, 5), identity("fix", 2, 9)}
	for _, id := range drifted {
		f.arm.Drift(id, "env", "changed")
	}
	if _, ok := waitState(t, l, 20*time.Second, func(st *reconcile.Status) bool {
		if !inSync(33)(st) {
			return false
		}
		n := 0
		for _, r := range st.Resources {
			n += r.Corrections
		}
		return n == len(drifted)
	}); !ok {
		t.Fatalf("drift not corrected: %+v", l.ctl.Snapshot().Resources)
	}
	if w := f.Writes(emulatortest.ClientLoop); w != len(drifted) {
		t.Fatalf("%d writes for %d drifted resources", w, len(drifted))
	}
	time.Sleep(time.Second) // several more sweeps
	if w := f.Writes(emulatortest.ClientLoop); w != len(drifted) {
		t.Fatalf("sweeps after the corrections wrote %d more times", w-len(drifted))
	}
	evMu.Lock()
	if events[reconcile.EventDriftDetected] != len(drifted) || events[reconcile.EventDriftCorrected] != len(drifted) || len(events) != 2 {
		t.Errorf("events %v, want %d DriftDetected and %d DriftCorrected", events, len(drifted), len(drifted))
	}
	evMu.Unlock()
	if n := f.Throttled(emulatortest.ClientLoop); n != 0 {
		t.Fatalf("%d throttled", n)
	}
}

// TestObservationDuringAWriteIsDiscarded: writes are slow, sweeps are
// frequent, so sweeps overlap the correction. Without the worker/observer
// lock a sweep reads the body mid-write, sees the drift again and counts
// (and queues) it a second time.
func TestObservationDuringAWriteIsDiscarded(t *testing.T) {
	opts := harness.FastOptions()
	opts.LatencyByMethod = map[string]time.Duration{"PUT": 600 * time.Millisecond, "PATCH": 600 * time.Millisecond}
	f := newFront(t, opts)
	dir, statePath := managed(t, f, "busy", 1, 3)
	o := fastLoop()
	o.ReadBudget = 1
	o.MinSweepInterval = 20 * time.Millisecond
	o.DriftPolicy = reconcile.PolicyCorrect
	l := startLoop(t, f.URL, dir, statePath, o)
	if _, ok := waitState(t, l, 20*time.Second, inSync(4)); !ok {
		t.Fatal("not in sync")
	}
	id := identity("busy", 0, 1)
	f.arm.Drift(id, "env", "changed")
	if _, ok := waitState(t, l, 20*time.Second, func(st *reconcile.Status) bool {
		for _, r := range st.Resources {
			if strings.EqualFold(r.ID, id) {
				return r.State == reconcile.StateInSync && r.Corrections == 1
			}
		}
		return false
	}); !ok {
		t.Fatalf("not corrected: %+v", l.ctl.Snapshot().Resources)
	}
	time.Sleep(300 * time.Millisecond)
	if got := counter(t, l, "kubectl_azure_drift_detected_total"); got != 1 {
		t.Fatalf("drift counted %v times for one change: an observation taken during the write was judged", got)
	}
	if got := counter(t, l, "kubectl_azure_observations_discarded_total"); got == 0 {
		t.Fatal("no observation was discarded although sweeps overlapped the write")
	}
	if w := f.Writes(emulatortest.ClientLoop); w != 1 {
		t.Fatalf("%d writes", w)
	}
}

// counter sums a metric's samples.
func counter(t *testing.T, l *loop, name string) float64 {
	t.Helper()
	mfs, err := l.ctl.Metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			sum += m.GetCounter().GetValue()
		}
	}
	return sum
}

// TestRuleAddedOutsideIsNoticed: an NSG security rule created by another
// client (a child resource of its own) is drift of the NSG's declared
// rules; the vnet, whose storage subnet is declared on its own, stays in
// sync (the subnet is not an item "added outside").
func TestRuleAddedOutsideIsNoticed(t *testing.T) {
	f := newFront(t, harness.FastOptions())
	dir := t.TempDir()
	emulatortest.CopyDir(t, filepath.Join("..", "..", "testdata", "landing-zone"), dir)
	statePath := applied(t, f, dir)
	o := fastLoop()
	o.ReadBudget = 0.5
	l := startLoop(t, f.URL, dir, statePath, o)
	st, ok := waitState(t, l, 20*time.Second, func(st *reconcile.Status) bool { return len(st.Resources) > 0 && inSync(len(st.Resources))(st) })
	if !ok {
		t.Fatalf("not in sync: %+v", st.Resources)
	}
	nsg := "/subscriptions/" + harness.Sub + "/resourceGroups/rg-demo/providers/Microsoft.Network/networkSecurityGroups/nsg-app"
	rule := `{"properties":{"priority":200,"direction":"Inbound","access":"Allow","protocol":"Tcp","sourceAddressPrefix":"*","sourcePortRange":"*","destinationAddressPrefix":"*","destinationPortRange":"22"}}`
	req, _ := http.NewRequest(http.MethodPut, f.URL+nsg+"/securityRules/allow-ssh?api-version=2024-01-01", strings.NewReader(rule))
	req.Header.Set("User-Agent", "portal/1.0")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		t.Fatalf("adding the rule: %d", resp.StatusCode)
	}
	added := time.Now()
	st, ok = waitState(t, l, 15*time.Second, func(st *reconcile.Status) bool { return stateOf(st, nsg) == reconcile.StateDrifted })
	if !ok {
		t.Fatalf("the added rule was not noticed within 15 s: %+v", st.Resources)
	}
	t.Logf("noticed %s after the rule was added", time.Since(added).Round(time.Millisecond))
	for _, r := range st.Resources {
		switch {
		case strings.EqualFold(r.ID, nsg):
			if len(r.Changes) != 1 || !strings.Contains(r.Changes[0].Path, "allow-ssh") || !r.Changes[0].IsDrift() {
				t.Fatalf("NSG changes = %+v, want the added rule as drift", r.Changes)
			}
		case r.State != reconcile.StateInSync:
			t.Fatalf("%s is %s (%+v): only the NSG drifted", r.ID, r.State, r.Changes)
		}
	}
	if w := f.Writes(emulatortest.ClientLoop); w != 0 {
		t.Fatalf("detect: %d writes", w)
	}
}
