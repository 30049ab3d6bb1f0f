package crash

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

// BenchmarkApply1010 applies 1,010 new resources with the CLI binary against
// an emulator without throttling, latency or LRO delay. The client still
// paces itself to ARM's documented per-subscription buckets (writes: 200,
// then 10 a second), so the wall time is bound by that, not by state
// writes (BenchmarkLocalPut1010 in pkg/state measures those alone). It
// reports the state file's size.
func BenchmarkApply1010(b *testing.B) {
	d := harness.DAG{Prefix: "b", Groups: 10, Subnets: 5, Identities: 93}
	if d.Count() != 1010 {
		b.Fatalf("set has %d resources, want 1010", d.Count())
	}
	o := harness.FastOptions()
	o.Throttle.Enabled = false
	o.LRODuration = 0
	bin := harness.BuildCLI(b, b.TempDir())
	for b.Loop() {
		b.StopTimer()
		a := harness.StartARM(b, o)
		tmp := b.TempDir()
		dir, stateFile := filepath.Join(tmp, "infra"), filepath.Join(tmp, "state.json")
		d.Write(b, dir)
		c := exec.Command(bin, "--endpoint", a.URL, "--subscription", harness.Sub, "--state", stateFile, "apply", "-f", dir, "--yes")
		c.Env = append(os.Environ(), "NO_COLOR=1")
		b.StartTimer()
		start := time.Now()
		out, err := c.CombinedOutput()
		elapsed := time.Since(start)
		b.StopTimer()
		if err != nil {
			b.Fatalf("apply: %v\n%s", err, out)
		}
		fi, err := os.Stat(stateFile)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(fi.Size()), "state-bytes")
		b.Logf("1,010 creates applied in %s; state file %d bytes", elapsed.Round(time.Millisecond), fi.Size())
		a.Stop()
		b.StartTimer()
	}
}
