// Package scenario holds the end-to-end benchmarks `make bench` runs
// (hack/bench.sh): the CLI binary against the emulator with realistic
// latency and ARM's throttle buckets. They are Go benchmarks, so `make test`
// never runs them; run one with
//
//	go test ./test/scenario -run '^$' -bench Plan1000 -benchtime 1x -timeout 30m
//
// Each reports its counts (GETs, writes, 429s) and times as custom metrics,
// which hack/bench.sh turns into BENCHMARKS.md.
package scenario

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
	"github.com/kubectl-azure/kubectl-azure/pkg/emulator/emulatortest"
	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

var (
	buildOnce sync.Once
	binPath   string
	// binDir outlives each benchmark's TempDir, which is removed when that
	// benchmark ends: set by TestMain.
	binDir string
)

func cli(b *testing.B) string {
	buildOnce.Do(func() { binPath = harness.BuildCLI(b, binDir) })
	return binPath
}

// realistic is the emulator the measured runs face: about 50 ms per read and
// 150 ms per write (means; the emulator jitters ±50%), ARM's default
// buckets, and long-running operations of 2-20 s depending on the type.
func realistic() emulator.Options {
	o := emulator.DefaultOptions()
	o.Seed = 42
	o.Latency = 50 * time.Millisecond
	o.LatencyByMethod = map[string]time.Duration{"PUT": 150 * time.Millisecond, "PATCH": 150 * time.Millisecond, "DELETE": 150 * time.Millisecond}
	o.LRODuration = 2 * time.Second
	// ARM's generic resource list follows writes from a cache, seconds
	// behind them.
	o.CacheLag = 2 * time.Second
	o.LROByType = map[string]time.Duration{
		"Microsoft.Network/networkSecurityGroups":          5 * time.Second,
		"Microsoft.Network/virtualNetworks":                20 * time.Second,
		"Microsoft.Network/virtualNetworks/subnets":        2 * time.Second,
		"Microsoft.ManagedIdentity/userAssignedIdentities": 2 * time.Second,
	}
	return o
}

// run executes the CLI binary and returns its wall time and its own peak
// RSS (measured by the launcher: see peakrss_test.go).
func run(b *testing.B, bin string, args ...string) (wall time.Duration, rssKB int64, out string, code int) {
	b.Helper()
	r := runMeasured(b, bin, args...)
	return r.wall, r.rssKB, r.out, r.code
}

// measured is one CLI run as the launcher saw it.
type measured struct {
	wall   time.Duration
	rssKB  int64 // maxrss: the process's peak, the executable's mapped pages included
	anonKB int64 // peak anonymous memory (heap, stacks), sampled every 5 ms
	out    string
	code   int
}

// runMeasured is run with the anonymous-memory peak as well.
func runMeasured(b *testing.B, bin string, args ...string) measured {
	b.Helper()
	rssFile := filepath.Join(b.TempDir(), "rss")
	c := harness.Launched(b, rssFile, 5*time.Millisecond, append([]string{bin}, args...)...)
	c.Env = append(c.Env, "NO_COLOR=1")
	start := time.Now()
	o, err := c.CombinedOutput()
	r := measured{wall: time.Since(start), out: string(o)}
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			b.Fatalf("running the CLI: %v", err)
		}
		r.code = ee.ExitCode()
	}
	if r.code == 125 {
		b.Fatalf("the launcher failed:\n%s", o)
	}
	if r.rssKB, r.anonKB, err = harness.ReadRSS(rssFile); err != nil {
		b.Fatalf("the launcher reported no peak RSS: %v\n%s", err, o)
	}
	return r
}

func global(a *harness.ARM, state string) []string {
	return []string{"--endpoint", a.URL, "--subscription", harness.Sub, "--state", state}
}

// steadyState builds n applied, unchanged identities: applied against an
// unthrottled emulator, then carried over to one with opts.
func steadyState(b *testing.B, n int, opts emulator.Options) (a *harness.ARM, dir, state string) {
	b.Helper()
	a, dir, state = startFixture(b)
	for _, g := range harness.Identities(b, dir, "bench", n, 10) {
		a.SeedGroup(g)
	}
	applyFixture(b, a, dir, state, fmt.Sprintf("%d resources", n))
	a.Reconfigure(opts)
	return a, dir, state
}

// startFixture starts an unthrottled emulator for a fixture and names
// where its manifests and state go.
func startFixture(b *testing.B) (a *harness.ARM, dir, state string) {
	b.Helper()
	tmp := b.TempDir()
	return harness.StartARM(b, emulatortest.Unthrottled()), filepath.Join(tmp, "infra"), filepath.Join(tmp, "state.json")
}

// applyFixture applies the manifests in dir, failing the benchmark unless
// the apply succeeds; what names the fixture in the log.
func applyFixture(b *testing.B, a *harness.ARM, dir, state, what string) {
	b.Helper()
	start := time.Now()
	if _, _, out, code := run(b, cli(b), append(global(a, state), "apply", "-f", dir, "--yes", "-o", "json")...); code != 0 {
		b.Fatalf("building the fixture: apply exited %d:\n%s", code, tail(out))
	}
	b.Logf("fixture: %s applied in %s", what, time.Since(start).Round(time.Millisecond))
}

func tail(s string) string {
	if len(s) > 3000 {
		return "..." + s[len(s)-3000:]
	}
	return s
}

// BenchmarkPlan1000Unchanged: a steady-state plan of 1,000 resources nobody
// changed. Target: exactly 1,000 GETs, no write, no 429, wall within 1.15x
// of the read bucket's bound (250 burst, then 25/s: (1000-250)/25 = 30 s).
func BenchmarkPlan1000Unchanged(b *testing.B) {
	const n = 1000
	bin := cli(b)
	a, dir, state := steadyState(b, n, realistic())
	for i := 0; i < b.N; i++ {
		if i > 0 {
			// Let the read bucket refill, as between two CI runs.
			time.Sleep(12 * time.Second)
		}
		before := a.Stats()
		b.ResetTimer()
		wall, _, out, code := run(b, bin, append(global(a, state), "diff", "-f", dir)...)
		b.StopTimer()
		after := a.Stats()
		if code != 0 {
			b.Fatalf("steady-state diff exited %d (want 0: nothing changed):\n%s", code, tail(out))
		}
		gets := after.Requests["GET"] - before.Requests["GET"]
		writes := harness.Writes(after) - harness.Writes(before)
		throttled := after.Throttled - before.Throttled
		ideal := float64(n-250) / 25
		b.ReportMetric(float64(gets), "GETs")
		b.ReportMetric(float64(writes), "writes")
		b.ReportMetric(float64(throttled), "429s")
		b.ReportMetric(wall.Seconds(), "wall-s")
		b.ReportMetric(ideal, "ideal-s")
		b.ReportMetric(wall.Seconds()/ideal, "x-ideal")
	}
}

// BenchmarkApply200DAG: 200 new resources in 10 groups, each group a chain
// resource group -> NSG and vnet -> 5 subnets referencing the NSG, plus 12
// identities. Target: 200 writes, wall within 1.2x of the critical path
// plus the write bucket's bound.
func BenchmarkApply200DAG(b *testing.B) {
	bin := cli(b)
	opts := realistic()
	d := harness.DAG{Prefix: "bench", Groups: 10, Subnets: 5, Identities: 12}
	if d.Count() != 200 {
		b.Fatalf("DAG has %d resources", d.Count())
	}
	// Critical path: the plan's GET, then per level PUT + LRO + the GET
	// that follows the write: group (synchronous) -> vnet (20 s) -> the
	// vnet's subnets (2 s each) one after another, because ARM refuses a
	// second write under one virtual network while one is in flight
	// (409 AnotherOperationInProgress) and the engine serialises them.
	get, put := 0.050, 0.150
	critical := get + (put + get) + (put + opts.LROByType["Microsoft.Network/virtualNetworks"].Seconds() + get) +
		float64(d.Subnets)*(put+opts.LROByType["Microsoft.Network/virtualNetworks/subnets"].Seconds()+get)
	writeBound := max(0, float64(d.Count())-200) / 10
	bound := critical + writeBound
	// The default run is the target. The second shows how much of the
	// remaining gap is the engine's bound on resources in progress, which
	// today also counts resources merely waiting for their LRO.
	for _, conc := range []int{0, 200} {
		name := "default"
		if conc > 0 {
			name = fmt.Sprintf("concurrency-%d", conc)
		}
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				tmp := b.TempDir()
				dir, state := filepath.Join(tmp, "infra"), filepath.Join(tmp, "state.json")
				d.Write(b, dir)
				a := harness.StartARM(b, opts)
				args := append(global(a, state), "apply", "-f", dir, "--yes")
				if conc > 0 {
					args = append(args, "--concurrency", fmt.Sprint(conc))
				}
				b.ResetTimer()
				wall, _, out, code := run(b, bin, args...)
				b.StopTimer()
				if code != 0 {
					b.Fatalf("apply exited %d:\n%s", code, tail(out))
				}
				s := a.Stats()
				b.ReportMetric(float64(harness.Writes(s)), "writes")
				b.ReportMetric(float64(s.Requests["POLL"]), "polls")
				b.ReportMetric(float64(s.Requests["GET"]), "GETs")
				b.ReportMetric(float64(s.Throttled), "429s")
				b.ReportMetric(wall.Seconds(), "wall-s")
				b.ReportMetric(critical, "critical-s")
				b.ReportMetric(bound, "bound-s")
				b.ReportMetric(wall.Seconds()/bound, "x-bound")
				if i == 0 {
					keepLog(b, "apply200-"+name+".log", out)
				}
			}
		})
	}
}

// BenchmarkPlan10000Memory: the CLI's peak RSS for a steady-state plan of
// 10,000 resources. Throttling is lifted for this one (at 25 reads/s the
// plan would take 6.5 minutes and memory does not depend on pacing).
// Target: 150 MB. The RSS is the CLI's own, measured through the launcher
// (peakrss_test.go).
func BenchmarkPlan10000Memory(b *testing.B) {
	const n = 10000
	bin := cli(b)
	a, dir, state := steadyState(b, n, emulatortest.Unthrottled())
	for i := 0; i < b.N; i++ {
		before := a.Stats()
		b.ResetTimer()
		r := runMeasured(b, bin, append(global(a, state), "diff", "-f", dir, "-o", "json")...)
		b.StopTimer()
		if r.code != 0 {
			b.Fatalf("diff exited %d:\n%s", r.code, tail(r.out))
		}
		b.ReportMetric(float64(r.rssKB)/1024, "peak-RSS-MB")
		b.ReportMetric(float64(r.anonKB)/1024, "peak-anon-MB")
		b.ReportMetric(float64(a.Stats().Requests["GET"]-before.Requests["GET"]), "GETs")
		b.ReportMetric(r.wall.Seconds(), "wall-s")
	}
}

// keepLog saves a run's full output under $KUBECTL_AZURE_BENCH_LOGS, so a
// missed target can be analysed from the per-resource timeline.
func keepLog(b *testing.B, name, out string) {
	dir := os.Getenv("KUBECTL_AZURE_BENCH_LOGS")
	if dir == "" {
		return
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(out), 0o644); err != nil {
		b.Logf("keeping %s: %v", name, err)
	}
}
