// Package crash kills the CLI with SIGKILL at random points of an apply and
// checks what docs/state.md promises: the next run repairs and converges,
// everything in Azure is in state, the next diff is quiet, and nothing is
// created twice. The CLI runs as a real binary so that the kill is a real
// process death (no deferred cleanup, no flushed buffers).
package crash

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
	"github.com/kubectl-azure/kubectl-azure/pkg/state/statetest"
	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

var (
	buildOnce sync.Once
	binPath   string
	binDir    string
)

func TestMain(m *testing.M) {
	code := m.Run()
	statetest.StopShared()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// cliBinary builds the CLI once per test binary.
func cliBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "kubectl-azure-crash-")
		if err != nil {
			t.Fatal(err)
		}
		binDir = dir
		binPath = harness.BuildCLI(t, dir)
	})
	if binPath == "" {
		t.Fatal("building the CLI failed earlier")
	}
	return binPath
}

// crashOptions give an apply of 30 resources that lasts about a second:
// long enough for kills to land in every phase (planning, writes in flight,
// LRO polling, the GET after a write, the state write), short enough for 20
// rounds within the time budget.
func crashOptions() emulator.Options {
	o := harness.FastOptions()
	o.LatencyByMethod = map[string]time.Duration{"GET": 15 * time.Millisecond, "PUT": 40 * time.Millisecond}
	o.LRODuration = 150 * time.Millisecond
	o.LROByType = map[string]time.Duration{"Microsoft.Network/virtualNetworks": 400 * time.Millisecond}
	return o
}

// round is one manifest set, one ARM and one state, killed once.
type round struct {
	t        *testing.T
	bin      string
	a        *harness.ARM
	dir      string
	stateRef string
	stateOpt state.Options
	extra    []string // backend flags (--kubeconfig)
	want     []string
}

func newRound(t *testing.T, stateRef string, stateOpt state.Options, extra ...string) *round {
	tmp := t.TempDir()
	d := harness.DAG{Prefix: "c", Groups: 2, Subnets: 3, Identities: 9}
	if d.Count() != 30 {
		t.Fatalf("crash set has %d resources, want 30", d.Count())
	}
	r := &round{t: t, bin: cliBinary(t), a: harness.StartARM(t, crashOptions()), dir: filepath.Join(tmp, "infra"),
		stateRef: stateRef, stateOpt: stateOpt, extra: extra, want: d.IDs()}
	if r.stateRef == "" {
		r.stateRef = filepath.Join(tmp, "state", "state.json")
	}
	d.Write(t, r.dir)
	return r
}

func (r *round) cmd(args ...string) *exec.Cmd {
	full := append([]string{"--endpoint", r.a.URL, "--subscription", harness.Sub, "--state", r.stateRef}, r.extra...)
	c := exec.Command(r.bin, append(full, args...)...)
	c.Env = append(os.Environ(), "NO_COLOR=1")
	return c
}

// run runs the CLI to completion.
func (r *round) run(args ...string) (string, int) {
	c := r.cmd(args...)
	out, err := c.CombinedOutput()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return string(out), ee.ExitCode()
		}
		r.t.Fatalf("running the CLI: %v", err)
	}
	return string(out), 0
}

// killAfter starts an apply and SIGKILLs it after d. It reports whether the
// process was still running when killed (a kill after a finished apply
// tests nothing and is reported as such).
func (r *round) killAfter(d time.Duration) bool {
	c := r.cmd("apply", "-f", r.dir, "--yes")
	if err := c.Start(); err != nil {
		r.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case <-done:
		return false
	case <-time.After(d):
	}
	_ = c.Process.Signal(syscall.SIGKILL)
	<-done
	return true
}

// check asserts the invariants after the kill and after the rerun.
func (r *round) check(label string) {
	t := r.t
	// Right after the kill: every write ARM accepted is recorded or journalled.
	recs, intents := harness.StateRecords(t, r.stateRef, r.stateOpt)
	live := r.a.LiveIDs()
	for id, n := range r.a.WritesTo() {
		if n > 0 && live[id] && !recs[id] && !intents[id] {
			t.Errorf("%s: ARM holds %s after an accepted write, but state neither records nor journals it", label, id)
		}
	}
	killedWrites := harness.Writes(r.a.Stats())
	atKill := fmt.Sprintf("%d recorded, %d journalled", len(recs), len(intents))

	out, code := r.run("apply", "-f", r.dir, "--yes")
	if code != 0 {
		t.Fatalf("%s: rerun after the kill exited %d:\n%s", label, code, out)
	}
	recs, intents = harness.StateRecords(t, r.stateRef, r.stateOpt)
	live = r.a.LiveIDs()
	if len(intents) > 0 {
		t.Errorf("%s: intents left after the rerun: %v", label, sorted(intents))
	}
	for _, id := range r.want {
		if !live[id] || !recs[id] {
			t.Errorf("%s: %s in Azure=%v, in state=%v after the rerun", label, id, live[id], recs[id])
		}
	}
	for id := range live {
		if !recs[id] {
			t.Errorf("%s: %s is in Azure but not in state", label, id)
		}
	}
	for id, n := range r.a.Creates() {
		if n > 1 {
			t.Errorf("%s: %s created %d times", label, id, n)
		}
	}
	before := harness.Writes(r.a.Stats())
	out, code = r.run("diff", "-f", r.dir, "-o", "json")
	if code != 0 {
		t.Errorf("%s: diff after the rerun exited %d, want 0 (quiet):\n%s", label, code, out)
	}
	if w := harness.Writes(r.a.Stats()); w != before {
		t.Errorf("%s: diff wrote %d times", label, w-before)
	}
	t.Logf("%s: %d writes before the kill (%s), %d in the rerun", label, killedWrites, atKill, before-killedWrites)
}

func sorted(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// calibrate measures how long an uninterrupted apply takes, so kill points
// spread over the whole run. It takes the shorter of two runs: one slowed
// by a busy machine would put kill points after the end of later runs.
func calibrate(t *testing.T) time.Duration {
	var best time.Duration
	for range 2 {
		r := newRound(t, "", state.Options{})
		start := time.Now()
		if out, code := r.run("apply", "-f", r.dir, "--yes"); code != 0 {
			t.Fatalf("calibration apply exited %d:\n%s", code, out)
		}
		if d := time.Since(start); best == 0 || d < best {
			best = d
		}
	}
	return best
}

// killPoints returns n seeded delays uniform in (lo, hi) × full, so every
// phase of the run gets hit; hi above 1 adds a few kills after the end to
// confirm that a finished run is safe too.
func killPoints(seed int64, n int, full time.Duration, lo, hi float64) []time.Duration {
	rnd := rand.New(rand.NewSource(seed))
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = time.Duration((lo + rnd.Float64()*(hi-lo)) * float64(full))
	}
	return out
}

func TestCrashConsistencyLocalState(t *testing.T) {
	full := calibrate(t)
	points := killPoints(7, 20, full, 0, 1.1)
	t.Logf("uninterrupted apply of 30 resources: %s; kill points: %v", full.Round(time.Millisecond), points)
	interrupted := 0
	for i, d := range points {
		r := newRound(t, "", state.Options{})
		if r.killAfter(d) {
			interrupted++
		}
		r.check(fmt.Sprintf("kill %d at %s", i, d.Round(time.Millisecond)))
		if t.Failed() {
			return
		}
	}
	t.Logf("%d of %d kills interrupted a running apply", interrupted, len(points))
	// Kill points past the end of a run test little: most must interrupt.
	if interrupted < 15 {
		t.Fatalf("only %d of %d kills interrupted a running apply; the kill points do not cover the run", interrupted, len(points))
	}
}

// The Kubernetes backend at 5 kill points: ConfigMaps and a Lease instead of
// a file. A killed holder leaves its Lease behind until it expires (30 s,
// not settable from the CLI); pkg/state tests that takeover, so here the
// operator's documented remedy, `state unlock`, releases it to keep the
// suite fast.
func TestCrashConsistencyKubernetesState(t *testing.T) {
	env := statetest.Shared(t)
	full := calibrate(t)
	// With only 5 points, skip the first fifth of the run (planning, before
	// any write), which the local variant covers.
	points := killPoints(11, 5, full, 0.2, 1.0)
	for i, d := range points {
		ns := env.NewNamespace(t)
		ref := "kubernetes://" + ns + "/crash"
		r := newRound(t, ref, state.Options{KubeConfig: env.ConfigFlags()}, "--kubeconfig", env.Kubeconfig, "--lock-timeout", "90s")
		r.killAfter(d)
		if out, code := r.run("state", "unlock"); code != 0 {
			t.Fatalf("state unlock after the kill exited %d:\n%s", code, out)
		}
		r.check(fmt.Sprintf("kubernetes kill %d at %s", i, d.Round(time.Millisecond)))
		if t.Failed() {
			return
		}
	}
}
