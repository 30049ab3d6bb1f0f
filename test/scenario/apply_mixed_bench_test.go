package scenario

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

// BenchmarkApplyMixed1000: a first apply of the mixed layout (50 groups x
// 20 resources of 11 types, 1,050 with the groups) against ARM-like
// latency, buckets and long-running operations. Targets (issue 34): at
// most 1,200 GETs, and a wall time within 1.1x the bound the write bucket
// and the long-running operations set: the writes beyond the bucket's
// burst at its refill rate, plus the longest operation after the last
// write.
func BenchmarkApplyMixed1000(b *testing.B) {
	bin := cli(b)
	opts := realistic()
	var longest time.Duration
	for _, d := range opts.LROByType {
		longest = max(longest, d)
	}
	longest = max(longest, opts.LRODuration)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		tmp := b.TempDir()
		dir, state := filepath.Join(tmp, "infra"), filepath.Join(tmp, "state.json")
		n := writeMixed(b, dir, "ap", 50)
		a := harness.StartARM(b, opts)
		before := a.Stats()
		b.StartTimer()
		wall, rss, out, code := run(b, bin, append(global(a, state), "apply", "-f", dir, "--yes", "-o", "json")...)
		b.StopTimer()
		if code != 0 {
			b.Fatalf("apply exited %d:\n%s", code, tail(out))
		}
		after := a.Stats()
		gets := after.Requests["GET"] - before.Requests["GET"]
		puts := after.Requests["PUT"] - before.Requests["PUT"]
		w := opts.Throttle.Writes
		bound := time.Duration(max(0, float64(harness.Writes(after)-harness.Writes(before))-w.Size)/w.Refill*float64(time.Second)) + longest
		b.ReportMetric(float64(gets), "GETs")
		b.ReportMetric(float64(gets)/float64(n), "GETs/resource")
		b.ReportMetric(float64(puts), "PUTs")
		b.ReportMetric(float64(after.Requests["POLL"]-before.Requests["POLL"]), "polls")
		b.ReportMetric(float64(after.Throttled-before.Throttled), "429s")
		b.ReportMetric(wall.Seconds(), "wall-s")
		b.ReportMetric(bound.Seconds(), "bound-s")
		b.ReportMetric(wall.Seconds()/bound.Seconds(), "x-bound")
		b.ReportMetric(float64(rss)/1024, "peak-MB")
		if gets > 1200 || wall > bound*11/10 {
			b.Logf("%d GETs (target 1,200) and %s (target %s) for %d creates", gets, wall.Round(time.Millisecond), (bound * 11 / 10).Round(time.Millisecond), n)
		}
	}
}
