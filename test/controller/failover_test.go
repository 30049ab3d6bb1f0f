package controller

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-azure/kubectl-azure/pkg/emulator/emulatortest"
	"github.com/kubectl-azure/kubectl-azure/pkg/reconcile"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
	"github.com/kubectl-azure/kubectl-azure/pkg/state/statetest"
	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

// replicaEnv, when set in the environment, makes the test binary run one
// controller replica (replicaConfig, as JSON) instead of the tests.
const replicaEnv = "KUBECTL_AZURE_TEST_REPLICA"

// replicaConfig is what a replica process needs.
type replicaConfig struct {
	Name, Endpoint, Dir, State, StatusFile string
	Kubeconfig, Namespace, Lease           string
}

// replicaMain runs one replica under leader election with the production
// lease timings until SIGTERM; SIGKILL is the point of the test.
func replicaMain(raw string) int {
	var rc replicaConfig
	if err := json.Unmarshal([]byte(raw), &rc); err != nil {
		fmt.Fprintln(os.Stderr, "replica:", err)
		return 2
	}
	cfg, err := statetest.ConfigFlags(rc.Kubeconfig).ToRESTConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, "replica:", err)
		return 1
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "replica:", err)
		return 1
	}
	o := reconcile.DefaultOptions()
	o.MinSweepInterval, o.SourceInterval = 200*time.Millisecond, 200*time.Millisecond
	o.ReadBudget = 0.5
	o.DriftPolicy = reconcile.PolicyCorrect
	o.StatusFile = rc.StatusFile
	o.Holder = "replica-" + rc.Name
	ctl, _, err := newController(rc.Endpoint, rc.Dir, rc.State, o, loopConfig{Name: rc.Name, Log: os.Stderr})
	if err != nil {
		fmt.Fprintln(os.Stderr, "replica:", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	if err := ctl.RunElected(ctx, reconcile.Election{Client: cs, Namespace: rc.Namespace, Name: rc.Lease, Identity: "replica-" + rc.Name}); err != nil {
		fmt.Fprintln(os.Stderr, "replica:", err)
		return 1
	}
	return 0
}

// replica is a controller replica running as a process of its own.
type replica struct {
	name   string
	cmd    *exec.Cmd
	status string
	log    *bytes.Buffer
}

func startReplica(t *testing.T, rc replicaConfig) *replica {
	t.Helper()
	raw, err := json.Marshal(rc)
	if err != nil {
		t.Fatal(err)
	}
	r := &replica{name: rc.Name, status: rc.StatusFile, log: &bytes.Buffer{}}
	r.cmd = exec.Command(os.Args[0], "-test.run=^$")
	r.cmd.Env = append(os.Environ(), replicaEnv+"="+string(raw))
	r.cmd.Stderr = r.log
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = r.cmd.Process.Kill()
		_ = r.cmd.Wait()
		if t.Failed() {
			t.Logf("replica %s log:\n%s", r.name, r.log)
		}
	})
	return r
}

// snapshot reads the replica's status file (nil before its first write).
func (r *replica) snapshot() *reconcile.Status {
	data, err := os.ReadFile(r.status)
	if err != nil {
		return nil
	}
	var st reconcile.Status
	if json.Unmarshal(data, &st) != nil {
		return nil
	}
	return &st
}

// TestKilledLeaderDuringALongRunningOperation runs two controller
// replicas as processes of their own under the production lease timings.
// The leader corrects a drifted vnet, whose write is a long-running
// operation; it is killed with SIGKILL while the operation is in flight.
// The other replica takes over within 20 s, settles the killed leader's
// journaled intent by reading, and the vnet is written exactly once.
func TestKilledLeaderDuringALongRunningOperation(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a lease to expire (about 20 s)")
	}
	env := statetest.Shared(t)
	ns := env.NewNamespace(t)
	f := newFront(t, harness.FastOptions())
	dir := t.TempDir()
	harness.WriteFile(t, filepath.Join(dir, "net.yaml"), emulatortest.Manifests(
		emulatortest.Group("rg-ko"),
		emulatortest.VNet("vnet-ko", "rg-ko", "10.9.0.0/16", "tags: {env: prod}"),
	))
	vnet := "/subscriptions/" + harness.Sub + "/resourceGroups/rg-ko/providers/Microsoft.Network/virtualNetworks/vnet-ko"
	statePath := applied(t, f, dir)
	// From now on a write of the vnet stays in progress for 40 s (the
	// emulator's --lro): longer than the takeover.
	slow := harness.FastOptions()
	slow.LRODuration = 40 * time.Second
	f.arm.Reconfigure(slow)

	const lease = "kubectl-azure-controller-ko"
	replicas := map[string]*replica{}
	for _, name := range []string{"a", "b"} {
		replicas["replica-"+name] = startReplica(t, replicaConfig{Name: name, Endpoint: f.URL, Dir: dir, State: statePath,
			StatusFile: filepath.Join(t.TempDir(), "status.json"), Kubeconfig: env.Kubeconfig, Namespace: ns, Lease: lease})
	}
	holder := func() string {
		l, err := env.Clientset.CoordinationV1().Leases(ns).Get(t.Context(), lease, metav1.GetOptions{})
		if err != nil || l.Spec.HolderIdentity == nil {
			return ""
		}
		return *l.Spec.HolderIdentity
	}
	synced := func(r *replica, after time.Time) bool {
		st := r.snapshot()
		return st != nil && st.Leader != nil && *st.Leader && st.ObservedAt.After(after) && inSync(2)(st)
	}
	wait := func(within time.Duration, what string, ok func() bool) {
		t.Helper()
		if !poll(within, ok) {
			t.Fatalf("%s: not within %s", what, within)
		}
	}
	var leader *replica
	wait(30*time.Second, "a replica leads and is in sync", func() bool {
		leader = replicas[holder()]
		return leader != nil && synced(leader, time.Time{})
	})

	f.arm.Drift(vnet, "env", "changed")
	wait(20*time.Second, "the leader writes the vnet", func() bool { return f.loopWritesOf(vnet) > 0 })
	if err := leader.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	if ps := provisioningState(f, vnet); ps != "Updating" {
		t.Fatalf("the vnet's operation is not in flight when the leader is killed (provisioningState %q)", ps)
	}
	var next *replica
	wait(30*time.Second, "another replica takes the Lease", func() bool {
		next = replicas[holder()]
		return next != nil && next != leader
	})
	takeover := time.Since(killed)
	t.Logf("replica %s took over %s after replica %s was killed", next.name, takeover.Round(time.Millisecond), leader.name)
	if takeover > 20*time.Second {
		t.Fatalf("takeover took %s, want at most 20 s", takeover)
	}
	after := time.Now().Add(time.Second)
	if !poll(20*time.Second, func() bool { return synced(next, after) }) {
		st, _ := json.MarshalIndent(next.snapshot(), "", "  ")
		t.Fatalf("the new leader is not in sync within 20 s:\n%s", st)
	}
	if ps := provisioningState(f, vnet); ps != "Updating" {
		t.Logf("the vnet's operation ended before the new leader settled it (provisioningState %q)", ps)
	}
	time.Sleep(2 * time.Second) // more sweeps
	if w := f.loopWritesOf(vnet); w != 1 {
		t.Fatalf("the vnet was written %d times across the failover, want exactly 1", w)
	}
	by := f.arm.Server().Stats().ByClient
	var writes int64
	for _, name := range []string{"a", "b"} {
		m := by[userAgent(name)]
		writes += m["PUT"] + m["PATCH"] + m["DELETE"] + m["POST"]
	}
	if writes != 1 {
		t.Fatalf("the replicas sent %d writes in all (per client: %v), want 1", writes, by)
	}
	if log := next.log.String(); !strings.Contains(log, "repaired an interrupted") || !strings.Contains(strings.ToLower(log), strings.ToLower(vnet)) {
		t.Fatalf("the new leader did not settle the killed leader's intent by reading; its log:\n%s", log)
	}
	if _, intents := harness.StateRecords(t, statePath, state.DefaultOptions()); len(intents) != 0 {
		t.Fatalf("intents left open: %v", intents)
	}
}

// poll polls ok until it holds (true) or within passed (false).
func poll(within time.Duration, ok func() bool) bool {
	deadline := time.Now().Add(within)
	for !ok() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// provisioningState is the vnet's state in the emulator.
func provisioningState(f *front, id string) string {
	for _, r := range f.arm.Live() {
		if strings.EqualFold(r.ID, id) {
			props, _ := r.Body["properties"].(map[string]any)
			s, _ := props["provisioningState"].(string)
			return s
		}
	}
	return ""
}
