// Package reliability is the fault matrix: for each way ARM misbehaves
// (throttling storms, 5xx, connection resets, failed and endless
// long-running operations, ARM disappearing mid-apply) one apply runs
// against the broken endpoint, then the suite checks the outcome the user
// relies on: a clear error or success, state consistent with Azure, a
// healthy rerun that converges, and a quiet diff after it.
package reliability

import (
	"context"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

// fixture is one manifest set (10 resources with parent, scope and
// reference edges) against one emulated ARM endpoint.
type fixture struct {
	t     *testing.T
	a     *harness.ARM
	dir   string
	state string
	want  []string
}

func newFixture(t *testing.T, opts emulator.Options) *fixture {
	tmp := t.TempDir()
	d := harness.DAG{Prefix: "f", Groups: 1, Subnets: 2, Identities: 5}
	f := &fixture{t: t, a: harness.StartARM(t, opts), dir: filepath.Join(tmp, "infra"), state: filepath.Join(tmp, "state.json"), want: d.IDs()}
	d.Write(t, f.dir)
	return f
}

func (f *fixture) run(args ...string) harness.Result {
	return harness.Run(f.a.URL, f.state, args...)
}

func (f *fixture) apply() harness.Result { return f.run("apply", "-f", f.dir, "--yes") }

// consistent checks the invariant that must hold after any run, however it
// ended: every resource ARM accepted a write for is recorded in state or
// journalled as an open intent (which the next run repairs), and nothing is
// recorded that is not in Azure.
func (f *fixture) consistent() {
	f.t.Helper()
	recs, intents := harness.StateRecords(f.t, f.state, state.Options{})
	live := f.a.LiveIDs()
	for id, n := range f.a.WritesTo() {
		if n > 0 && live[id] && !recs[id] && !intents[id] {
			f.t.Errorf("ARM accepted a write to %s and holds it, but state neither records nor journals it: a rerun would not know it created it", id)
		}
	}
	for id := range recs {
		if !live[id] {
			f.t.Errorf("state records %s, which is not in Azure", id)
		}
	}
}

// converge heals ARM, reruns apply, and checks the end state: exactly the
// declared resources in Azure and in state, nothing created twice, no open
// intent, and a diff that is quiet and writes nothing.
func (f *fixture) converge() {
	f.t.Helper()
	f.a.Reconfigure(harness.FastOptions())
	f.apply().Must(f.t, 0)
	recs, intents := harness.StateRecords(f.t, f.state, state.Options{})
	if len(intents) != 0 {
		f.t.Errorf("open intents after a successful rerun: %v", keys(intents))
	}
	live := f.a.LiveIDs()
	for _, id := range f.want {
		if !live[id] {
			f.t.Errorf("%s not in Azure after the rerun", id)
		}
		if !recs[id] {
			f.t.Errorf("%s not in state after the rerun", id)
		}
	}
	if len(recs) != len(f.want) {
		f.t.Errorf("state holds %d records, want %d: %v", len(recs), len(f.want), keys(recs))
	}
	for id, n := range f.a.Creates() {
		if n > 1 {
			f.t.Errorf("%s was created %d times", id, n)
		}
	}
	before := harness.Writes(f.a.Stats())
	r := f.run("diff", "-f", f.dir, "-o", "json")
	p := harness.ParsePlan(f.t, r.Stdout)
	if r.Code != 0 || len(p.Noisy()) > 0 {
		f.t.Errorf("diff after convergence: exit %d, not quiet: %v\n%s", r.Code, p.Noisy(), r.Stderr)
	}
	if w := harness.Writes(f.a.Stats()); w != before {
		f.t.Errorf("diff wrote %d times to ARM", w-before)
	}
}

// settle ends a faulty run: state must be consistent with Azure as the run
// left it, and a healthy rerun must converge.
func (f *fixture) settle() {
	f.t.Helper()
	f.consistent()
	f.t.Logf("ARM stats after the faulty run: %+v", f.a.Stats())
	f.converge()
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// succeededOrExplained accepts an apply that either absorbed the faults
// (exit 0, everything done) or failed with an error that names the cause,
// so a user knows to rerun. Retries make success the normal outcome; a
// seeded emulator still cannot pin which goroutine draws which fault.
func succeededOrExplained(t *testing.T, r harness.Result, causes ...string) {
	t.Helper()
	t.Logf("apply under faults: exit %d; stderr: %s", r.Code, strings.TrimSpace(r.Stderr))
	if r.Code == 0 {
		if !strings.Contains(r.Stdout, "0 failed") {
			t.Errorf("exit 0 but the summary reports failures:\n%s", r.Stdout)
		}
		return
	}
	all := r.Stdout + r.Stderr
	if !strings.Contains(r.Stderr, "error:") {
		t.Errorf("exit %d without an error line:\n%s", r.Code, all)
	}
	for _, c := range causes {
		if strings.Contains(all, c) {
			return
		}
	}
	t.Errorf("apply failed (exit %d) without naming the cause (%v):\n%s", r.Code, causes, all)
}

// Faults injected at random into ARM's answers (429s, 5xx, connection
// resets): the apply absorbs them or fails naming the cause.
func TestFaultInjected(t *testing.T) {
	for _, tc := range []struct {
		name   string
		faults func(*emulator.FaultOptions)
		causes []string
		none   string // the failure when nothing was injected
	}{
		{"429Storm", func(o *emulator.FaultOptions) { o.Status = map[int]float64{429: 0.25} },
			[]string{"429", "TooManyRequests"}, "the storm injected no 429: the test exercised nothing"},
		{"5xx", func(o *emulator.FaultOptions) { o.Status = map[int]float64{500: 0.15, 503: 0.15} },
			[]string{"500", "503", "InternalServerError", "ServiceUnavailable"}, "no 5xx injected"},
		{"ConnectionResets", func(o *emulator.FaultOptions) { o.Reset = 0.25 },
			[]string{"reset", "EOF", "connection"}, "no connection reset injected"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := harness.FastOptions()
			tc.faults(&opts.Faults)
			f := newFixture(t, opts)
			r := f.apply()
			succeededOrExplained(t, r, tc.causes...)
			if f.a.Stats().Faults == 0 {
				t.Fatal(tc.none)
			}
			f.settle()
		})
	}
}

// Small buckets, no injected fault: the client must learn the real bucket
// from x-ms-ratelimit-remaining-* and slow down instead of hammering ARM.
func TestFaultThrottleBucketsSmallerThanModel(t *testing.T) {
	opts := harness.FastOptions()
	opts.Throttle.Reads = emulator.Bucket{Size: 12, Refill: 6}
	opts.Throttle.Writes = emulator.Bucket{Size: 4, Refill: 3}
	f := newFixture(t, opts)
	r := f.apply()
	r.Must(t, 0)
	s := f.a.Stats()
	// Before the first response the client only knows ARM's documented
	// buckets, so each class may overrun once by what it had in flight
	// (its concurrency); after that it must not provoke 429s.
	if s.Throttled > 2*arm.DefaultConcurrency {
		t.Errorf("%d requests throttled: the client did not follow the server's remaining-token headers (stats %v)", s.Throttled, s.Requests)
	}
	f.settle()
}

// Every long-running operation ends Failed: the apply must fail, name the
// resources, skip their dependants, record the synchronous ones, and a
// healthy rerun must finish the rest without creating anything twice.
func TestFaultLROFailed(t *testing.T) {
	opts := harness.FastOptions()
	opts.Faults.LROFailure = 1
	opts.LROByType = map[string]time.Duration{"Microsoft.Network/virtualNetworks": 30 * time.Millisecond}
	f := newFixture(t, opts)
	r := f.apply()
	if r.Code == 0 {
		t.Fatalf("apply succeeded although every long-running operation failed:\n%s", r.Stdout)
	}
	if !strings.Contains(r.Stdout+r.Stderr, "vnet-f-00") || !strings.Contains(strings.ToLower(r.Stdout+r.Stderr), "fail") {
		t.Errorf("the error does not name the failed vnet:\n%s\n%s", r.Stdout, r.Stderr)
	}
	recs, _ := harness.StateRecords(t, f.state, state.Options{})
	id := f.want[len(f.want)-1] // an identity: synchronous, unaffected
	if !strings.Contains(id, "userassignedidentities") || !recs[id] {
		t.Errorf("independent resource %s not recorded after a partial failure; state: %v", id, keys(recs))
	}
	for rid := range recs {
		if strings.Contains(rid, "/subnets/") {
			t.Errorf("subnet %s recorded although its vnet failed", rid)
		}
	}
	f.settle()
}

// An operation that never finishes must end in a clear timeout error, not a
// hang. The CLI has no flag for the operation timeout (60 min by default),
// so this drives the same engine with a short one.
func TestFaultLRONeverFinishes(t *testing.T) {
	opts := harness.FastOptions()
	opts.LROByType = map[string]time.Duration{"Microsoft.Network/virtualNetworks": time.Hour}
	f := newFixture(t, opts)
	start := time.Now()
	out, err := harness.ApplyWithClient(context.Background(), t, f.a.URL, f.state, f.dir, func(o *arm.Options) {
		o.Timeout = 1500 * time.Millisecond
		o.PollInterval = 100 * time.Millisecond
	})
	if err == nil {
		t.Fatalf("apply returned no error although an operation never finished:\n%s", out)
	}
	if el := time.Since(start); el > 20*time.Second {
		t.Errorf("gave up after %s with a 1.5s operation timeout", el)
	}
	msg := strings.ToLower(out + err.Error())
	if !strings.Contains(msg, "vnet-f-00") || !(strings.Contains(msg, "deadline") || strings.Contains(msg, "timed out") || strings.Contains(msg, "timeout")) {
		t.Errorf("error does not say the vnet timed out:\n%s\n%v", out, err)
	}
	f.settle()
}

// outageFixture is a fixture whose ARM is slow enough (latency, vnet
// operations of 0.8 s) for a test to take it away while an apply runs.
func outageFixture(t *testing.T) *fixture {
	opts := harness.FastOptions()
	opts.Latency = 20 * time.Millisecond
	opts.LROByType = map[string]time.Duration{"Microsoft.Network/virtualNetworks": 800 * time.Millisecond}
	return newFixture(t, opts)
}

// ARM goes away mid-apply for two seconds and comes back: retries must
// carry the run through, or it must fail clearly and leave state consistent.
func TestFaultARMOutageMidApply(t *testing.T) {
	f := outageFixture(t)
	done := make(chan harness.Result, 1)
	go func() { done <- f.apply() }()
	waitFor(t, func() bool { return f.a.Stats().Requests["PUT"] >= 3 })
	f.a.Stop()
	time.Sleep(2 * time.Second)
	f.a.Restart()
	r := <-done
	succeededOrExplained(t, r, "connection refused", "EOF", "connection reset")
	f.settle()
}

// ARM goes away mid-apply and stays away: the run must end with an error
// naming the connection failure, and the records must stay consistent for
// the rerun once ARM is back. Retries are shortened through the client
// options: with the CLI's defaults the run retries for about a minute.
func TestFaultARMKilledMidApply(t *testing.T) {
	f := outageFixture(t)
	type res struct {
		out string
		err error
	}
	done := make(chan res, 1)
	go func() {
		out, err := harness.ApplyWithClient(context.Background(), t, f.a.URL, f.state, f.dir, func(o *arm.Options) {
			o.MaxRetries = 2
			o.RetryDelay = 50 * time.Millisecond
			o.PollInterval = 100 * time.Millisecond
		})
		done <- res{out, err}
	}()
	waitFor(t, func() bool { return f.a.Stats().Requests["PUT"] >= 3 })
	f.a.Stop()
	var r res
	select {
	case r = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("apply still running 30s after ARM went away")
	}
	if r.err == nil {
		t.Fatalf("apply succeeded with ARM gone:\n%s", r.out)
	}
	if msg := r.out + r.err.Error(); !strings.Contains(msg, "connection refused") && !strings.Contains(msg, "EOF") {
		t.Errorf("error does not name the lost connection:\n%s\n%v", r.out, r.err)
	}
	f.consistent()
	f.a.Restart()
	f.converge()
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached within 20s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
