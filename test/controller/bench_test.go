//go:build unix

package controller

import (
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
	"github.com/kubectl-azure/kubectl-azure/pkg/emulator/emulatortest"
	"github.com/kubectl-azure/kubectl-azure/pkg/reconcile"
	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

// BenchmarkWatch1000 is the 1,000-resource case under the
// default read budget (5%): 10 groups of 99 identities, applied fast,
// then observed against ARM's buckets and an ARM-like latency. It
// reports the time from a tag changed outside to the drift being
// reported, the loop's reads per second as a share of the read refill,
// and writes and 429s in the steady state (both must be 0).
//
//	go test -run '^$' -bench Watch1000 -benchtime 1x ./test/controller
func BenchmarkWatch1000(b *testing.B) { benchWatch(b, 10, 30*time.Second) }

// BenchmarkWatch10000 is the same with 100 groups (10,000 resources).
func BenchmarkWatch10000(b *testing.B) { benchWatch(b, 100, time.Minute) }

func benchWatch(b *testing.B, groups int, steady time.Duration) {
	n := groups * 100
	setup := harness.FastOptions()
	setup.Throttle.Reads = emulator.Bucket{Size: 100000, Refill: 100000}
	setup.Throttle.Writes = emulator.Bucket{Size: 100000, Refill: 100000}
	f := newFront(b, setup)
	dir, statePath := managed(b, f, "w", groups, 99)
	armLike := harness.FastOptions()
	armLike.Latency = 40 * time.Millisecond
	f.arm.Reconfigure(armLike)

	o := reconcile.DefaultOptions()
	o.SourceInterval = time.Second
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		l := startLoop(b, f.URL, dir, statePath, o)
		if _, ok := waitState(b, l, 10*time.Minute, inSync(n)); !ok {
			b.Fatal("not in sync within 10 minutes")
		}
		firstSweep := time.Since(start)
		readsBefore := f.Count(emulatortest.ClientLoop, "GET")
		steadyStart := time.Now()
		cpuBefore := cpuTime()
		time.Sleep(steady)
		cores := (cpuTime() - cpuBefore).Seconds() / time.Since(steadyStart).Seconds()
		reads := f.Count(emulatortest.ClientLoop, "GET") - readsBefore
		readRate := float64(reads) / time.Since(steadyStart).Seconds()
		size, _ := l.budget.Measured()
		if w := f.Writes(emulatortest.ClientLoop); w != 0 {
			b.Fatalf("steady state: %d writes", w)
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)

		id := identity("w", 7, 42)
		changed := time.Now()
		f.arm.Drift(id, "env", "changed")
		if _, ok := waitState(b, l, 2*time.Minute, func(st *reconcile.Status) bool {
			return stateOf(st, id) == reconcile.StateDrifted
		}); !ok {
			b.Fatal("drift not noticed within 2 minutes")
		}
		noticed := time.Since(changed)
		l.stop()
		if n := f.Throttled(emulatortest.ClientLoop); n != 0 {
			b.Fatalf("%d requests of the loop were throttled", n)
		}
		b.ReportMetric(noticed.Seconds(), "s-to-notice")
		b.ReportMetric(firstSweep.Seconds(), "s-first-sync")
		b.ReportMetric(readRate/(size*0.1)*100, "%-of-read-refill")
		b.ReportMetric(float64(f.Writes(emulatortest.ClientLoop)), "writes")
		b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "MB-heap")
		b.ReportMetric(cores, "cores-steady")
	}
}

// cpuTime is the process's user and system CPU time (the emulator runs in
// the same process, so this is an upper bound for the loop alone).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
