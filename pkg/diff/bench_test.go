package diff_test

import (
	"encoding/json"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
)

// BenchmarkComputeCorpus cycles through every CLI round trip (state-less,
// schema and plugins as in production) and reports diffs per second.
//
//	go test ./pkg/diff -run XXX -bench . -benchmem
func BenchmarkComputeCorpus(b *testing.B) {
	var ins []diff.Input
	for _, r := range cliCorpus(b) {
		if exclusion(r) == "" {
			ins = append(ins, input(r, true))
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	c0 := cpuTime()
	for i := 0; i < b.N; i++ {
		diff.Compute(ins[i%len(ins)])
	}
	reportRates(b, c0)
}

// cpuTime is this process's user+system CPU time. The build machine is
// shared, so wall-clock rates understate the engine; both are reported.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportRates(b *testing.B, c0 time.Duration) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "diffs/s")
	if cpu := cpuTime() - c0; cpu > 0 {
		// CPU time includes the garbage collector's share on every core.
		b.ReportMetric(float64(b.N)/cpu.Seconds(), "diffs/cpu-s")
	}
}

// BenchmarkComputeMedianBody measures the record whose putBody+getBody
// size is the corpus median, with state (the steady-state plan: D vs L,
// S vs B) and without.
func BenchmarkComputeMedianBody(b *testing.B) {
	recs := cliCorpus(b)
	type sized struct {
		n int
		r record
	}
	var all []sized
	for _, r := range recs {
		if exclusion(r) != "" {
			continue
		}
		p, _ := json.Marshal(r.PutBody)
		g, _ := json.Marshal(r.GetBody)
		all = append(all, sized{len(p) + len(g), r})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].n < all[j].n })
	med := all[len(all)/2]
	b.Logf("median record %s: %d bytes", med.r.Source, med.n)
	in := input(med.r, true)
	b.Run("no-state", func(b *testing.B) {
		b.ReportAllocs()
		c0 := cpuTime()
		for i := 0; i < b.N; i++ {
			diff.Compute(in)
		}
		reportRates(b, c0)
	})
	st := in
	st.LastApplied = med.r.PutBody
	st.Baseline = diff.Project(med.r.GetBody, diff.Compute(in).Owned)
	b.Run("with-state", func(b *testing.B) {
		b.ReportAllocs()
		c0 := cpuTime()
		for i := 0; i < b.N; i++ {
			diff.Compute(st)
		}
		reportRates(b, c0)
	})
}
