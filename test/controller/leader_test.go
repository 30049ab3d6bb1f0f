package controller

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-azure/kubectl-azure/pkg/reconcile"
	"github.com/kubectl-azure/kubectl-azure/pkg/state/statetest"
	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

func TestMain(m *testing.M) {
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
	cfg, err := env.ConfigFlags().ToRESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	f := newFront(t, harness.FastOptions())
	dir := t.TempDir()
	harness.ManagedGroups(t, dir, "ha", 1, 3)
	statePath := filepath.Join(t.TempDir(), "state.json")
	if out, err := harness.ApplyWithClient(t.Context(), t, f.URL, statePath, dir, nil); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	o := fastLoop()
	o.ReadBudget = 0.5
	o.DriftPolicy = reconcile.PolicyCorrect
	const lease = 2 * time.Second
	elect := func(id string) *reconcile.Election {
		return &reconcile.Election{Client: cs, Namespace: ns, Name: "kubectl-azure-controller-test", Identity: id,
			LeaseDuration: lease, RenewDeadline: 1500 * time.Millisecond, RetryPeriod: 200 * time.Millisecond}
	}
	a := startLoopWith(t, f.URL, dir, statePath, o, elect("a"), nil)
	b := startLoopWith(t, f.URL, dir, statePath, o, elect("b"), nil)

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
	if w := f.writes("loop"); w != 1 {
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
	if w := f.writes("loop"); w != 2 {
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
