package controller

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-azure/kubectl-azure/pkg/emulator/emulatortest"
	"github.com/kubectl-azure/kubectl-azure/pkg/reconcile"
	"github.com/kubectl-azure/kubectl-azure/pkg/state/statetest"
	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

func TestMain(m *testing.M) {
	if rc := os.Getenv(replicaEnv); rc != "" {
		os.Exit(replicaMain(rc))
	}
	if code, launched := harness.LaunchMain(); launched {
		os.Exit(code)
	}
	code := m.Run()
	statetest.StopShared()
	os.Exit(code)
}

// TestLeaderFailover runs two replicas under leader election on the real
// kube-apiserver: one leads and corrects drift once; when it dies without
// releasing the Lease, the other takes over within the lease duration and
// corrects the next drift, once.
func TestLeaderFailover(t *testing.T) {
	env := statetest.Shared(t)
	ns := env.NewNamespace(t)
	cs := kubeClient(t, env, nil)
	f := newFront(t, harness.FastOptions())
	dir, statePath := managed(t, f, "ha", 1, 3)
	o := fastLoop()
	o.ReadBudget = 0.5
	o.DriftPolicy = reconcile.PolicyCorrect
	const lease = 2 * time.Second
	elect := func(id string) *reconcile.Election {
		return &reconcile.Election{Client: cs, Namespace: ns, Name: "kubectl-azure-controller-test", Identity: id,
			LeaseDuration: lease, RenewDeadline: 1500 * time.Millisecond, RetryPeriod: 200 * time.Millisecond}
	}
	a := startLoopWith(t, f.URL, dir, statePath, o, loopConfig{Elect: elect("a")})
	b := startLoopWith(t, f.URL, dir, statePath, o, loopConfig{Elect: elect("b")})

	leader := func() (lead, standby *loop, ok bool) {
		la, lb := a.ctl.Leader(), b.ctl.Leader()
		switch {
		case la && !lb:
			return a, b, true
		case lb && !la:
			return b, a, true
		}
		return nil, nil, false
	}
	deadline := time.Now().Add(20 * time.Second)
	var lead, standby *loop
	for {
		var ok bool
		if lead, standby, ok = leader(); ok {
			if _, synced := waitState(t, lead, 10*time.Second, inSync(4)); synced {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no single leader in sync (a leads: %v, b leads: %v)", a.ctl.Leader(), b.ctl.Leader())
		}
		time.Sleep(50 * time.Millisecond)
	}

	first := identity("ha", 0, 1)
	f.arm.Drift(first, "env", "changed")
	if _, ok := waitState(t, lead, 10*time.Second, func(st *reconcile.Status) bool { return inSync(4)(st) && corrections(st) == 1 }); !ok {
		t.Fatalf("the leader did not correct the drift: %+v", lead.ctl.Snapshot().Resources)
	}
	if w := f.Writes(emulatortest.ClientLoop); w != 1 {
		t.Fatalf("%d writes for one drift with two replicas", w)
	}

	// The leader dies: its Lease is not released.
	killed := time.Now()
	lead.stop()
	for !standby.ctl.Leader() {
		if time.Since(killed) > 20*time.Second {
			t.Fatal("the standby did not take over within 20 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	takeover := time.Since(killed)
	t.Logf("took over %s after the leader died (lease %s)", takeover.Round(time.Millisecond), lease)
	if takeover > lease+2*time.Second {
		t.Fatalf("takeover took %s, lease is %s", takeover, lease)
	}
	if _, ok := waitState(t, standby, 10*time.Second, inSync(4)); !ok {
		t.Fatal("the new leader is not in sync")
	}
	f.arm.Drift(identity("ha", 0, 2), "env", "changed")
	if _, ok := waitState(t, standby, 10*time.Second, func(st *reconcile.Status) bool { return inSync(4)(st) && corrections(st) == 1 }); !ok {
		t.Fatalf("the new leader did not correct the drift: %+v", standby.ctl.Snapshot().Resources)
	}
	time.Sleep(500 * time.Millisecond)
	if w := f.Writes(emulatortest.ClientLoop); w != 2 {
		t.Fatalf("%d writes for two drifts across a failover, want 2", w)
	}
}

func corrections(st *reconcile.Status) int {
	n := 0
	for _, r := range st.Resources {
		n += r.Corrections
	}
	return n
}

// kubeClient is a clientset for the test cluster; wrap, when set, wraps
// its transport.
func kubeClient(t *testing.T, env *statetest.Env, wrap func(http.RoundTripper) http.RoundTripper) kubernetes.Interface {
	t.Helper()
	cfg, err := env.ConfigFlags().ToRESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	if wrap != nil {
		cfg.Wrap(wrap)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// leaseGate is a transport in front of one replica's API server client:
// while blocked, every write of a Lease fails, as when the replica is cut
// off from the API server; it remembers when the last successful one was
// sent.
type leaseGate struct {
	next    http.RoundTripper
	blocked atomic.Bool
	mu      sync.Mutex
	lastOK  time.Time
}

func (g *leaseGate) RoundTrip(req *http.Request) (*http.Response, error) {
	write := req.Method != http.MethodGet && strings.Contains(req.URL.Path, "/leases")
	if write && g.blocked.Load() {
		return nil, errors.New("lease writes blocked by the test")
	}
	sent := time.Now()
	resp, err := g.next.RoundTrip(req)
	if write && err == nil && resp.StatusCode < 300 {
		g.mu.Lock()
		if sent.After(g.lastOK) {
			g.lastOK = sent
		}
		g.mu.Unlock()
	}
	return resp, err
}

func (g *leaseGate) renewed() time.Time {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.lastOK
}

// clientWrites counts one User-Agent's writes in the emulator's
// per-client statistics.
func clientWrites(f *front, ua string) int64 {
	by := f.arm.Server().Stats().ByClient[ua]
	return by["PUT"] + by["PATCH"] + by["DELETE"] + by["POST"]
}

// TestDeposedLeaderStopsWritingAtItsRenewDeadline: the leader's Lease
// renewals start failing while drift keeps arriving under the correct
// policy. client-go's elector gives up only a retry period after the
// renew deadline; the fence must stop the leader's writes at the deadline
// itself. The standby takes over at the lease's expiry and corrects what
// is left: no drifted resource is written twice.
func TestDeposedLeaderStopsWritingAtItsRenewDeadline(t *testing.T) {
	env := statetest.Shared(t)
	ns := env.NewNamespace(t)
	gate := &leaseGate{}
	csA := kubeClient(t, env, func(rt http.RoundTripper) http.RoundTripper { gate.next = rt; return gate })
	csB := kubeClient(t, env, nil)

	f := newFront(t, harness.FastOptions())
	dir := t.TempDir()
	const n = 60
	harness.ManagedGroups(t, dir, "fence", 1, n)
	statePath := filepath.Join(t.TempDir(), "state.json")
	if out, err := harness.ApplyWithClient(t.Context(), t, f.URL, statePath, dir, nil); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	o := fastLoop()
	o.ReadBudget = 1
	o.DriftPolicy = reconcile.PolicyCorrect
	o.WriteBudget, o.WriteBurst = 100, 100
	// client-go gives up at the last renewal + retry period + renew
	// deadline: a window of RetryPeriod after the renew deadline in which,
	// unfenced, the old leader still writes.
	const (
		leaseDuration = 4 * time.Second
		renewDeadline = 2 * time.Second
		retryPeriod   = 1500 * time.Millisecond
	)
	elect := func(id string, cs kubernetes.Interface) *reconcile.Election {
		return &reconcile.Election{Client: cs, Namespace: ns, Name: "kubectl-azure-controller-fence", Identity: id,
			LeaseDuration: leaseDuration, RenewDeadline: renewDeadline, RetryPeriod: retryPeriod}
	}
	a := startLoopWith(t, f.URL, dir, statePath, o, loopConfig{Name: "a", Elect: elect("a", csA)})
	if _, ok := waitState(t, a, 20*time.Second, func(st *reconcile.Status) bool { return a.ctl.Leader() && inSync(n+1)(st) }); !ok {
		t.Fatal("replica a did not lead and sync")
	}
	b := startLoopWith(t, f.URL, dir, statePath, o, loopConfig{Name: "b", Elect: elect("b", csB)})
	uaA, uaB := userAgent("a"), userAgent("b")

	// a leads and corrects.
	f.arm.Drift(identity("fence", 0, 0), "env", "changed")
	if _, ok := waitState(t, a, 10*time.Second, func(st *reconcile.Status) bool { return corrections(st) == 1 }); !ok {
		t.Fatalf("the leader did not correct the drift: %+v", a.ctl.Snapshot().Resources)
	}
	if w := clientWrites(f, uaA); w != 1 {
		t.Fatalf("replica a wrote %d times for one drift", w)
	}

	// a is cut off from the API server; drift keeps coming.
	gate.blocked.Store(true)
	time.Sleep(100 * time.Millisecond) // a renewal in flight lands
	deadline := gate.renewed().Add(renewDeadline)
	var atDeadline atomic.Int64
	sampled := make(chan struct{})
	time.AfterFunc(time.Until(deadline), func() { atDeadline.Store(clientWrites(f, uaA)); close(sampled) })
	var drifted []string
	for i := 1; time.Now().Before(deadline.Add(retryPeriod + time.Second)); i++ {
		id := identity("fence", 0, i)
		f.arm.Drift(id, "env", "changed")
		drifted = append(drifted, id)
		time.Sleep(100 * time.Millisecond)
	}
	<-sampled
	if _, ok := waitState(t, b, 20*time.Second, func(st *reconcile.Status) bool {
		return b.ctl.Leader() && inSync(n+1)(st)
	}); !ok {
		t.Fatalf("replica b did not take over and correct: %+v", b.ctl.Snapshot().Resources)
	}
	time.Sleep(500 * time.Millisecond)
	after := clientWrites(f, uaA) - atDeadline.Load()
	t.Logf("replica a wrote %d times before its renew deadline, %d after; replica b %d; %d resources drifted",
		atDeadline.Load(), after, clientWrites(f, uaB), len(drifted))
	if after != 0 {
		t.Fatalf("the deposed leader wrote %d times after its renew deadline", after)
	}
	if a.ctl.Leader() {
		t.Fatal("replica a still reports itself leader")
	}
	// Exactly once. A correction the fence cut off after its intent was
	// journaled is settled by the next leader's repair, which keeps the
	// previous baseline (pkg/state), so the drift is still seen and
	// corrected: never absorbed, never written twice.
	for _, id := range append(drifted, identity("fence", 0, 0)) {
		if w := f.loopWritesOf(id); w != 1 {
			t.Errorf("%s written %d times, want 1", id, w)
		}
	}
	if clientWrites(f, uaB) == 0 {
		t.Error("replica b never wrote: the test did not exercise a takeover")
	}
}
