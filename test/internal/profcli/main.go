// Command profcli is kubectl-azure built for memory profiling: the same
// main, plus, when KUBECTL_AZURE_HEAP_PROFILE names a file, a heap profile
// written each time the live heap reaches a new high (FILE.01, FILE.02, ...:
// the last one the run wrote is its peak) and a timeline of the heap and
// the RSS every 20 ms (FILE.tsv). Point the scenario benchmarks at it with
// KUBECTL_AZURE_TEST_CLI (the fixture's apply writes profiles too: the
// diff's are the ones written last):
//
//	go build -o "$out/profcli" ./test/internal/profcli
//	KUBECTL_AZURE_TEST_CLI="$out/profcli" KUBECTL_AZURE_HEAP_PROFILE="$out/heap" \
//	  go test ./test/scenario -run '^$' -bench Plan10000Memory -benchtime 1x
//	go tool pprof -sample_index=inuse_space -top "$out/heap.NN"
package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/cli"
)

// gcPercent matches cmd/kubectl-azure, so the profile is of the same heap.
const gcPercent = 50

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if path := os.Getenv("KUBECTL_AZURE_HEAP_PROFILE"); path != "" {
		stop := watchPeak(path)
		code := cli.Main(os.Args[1:], cli.StdStreams())
		stop()
		os.Exit(code)
	}
	os.Exit(cli.Main(os.Args[1:], cli.StdStreams()))
}

// watchPeak samples the process every 20 ms. It writes a profile to
// path.01, path.02, ... each time the live heap (as the last collection
// measured it) grows 5% past the highest seen, and appends one line per sample to path+".tsv":
// milliseconds since start, live heap, heap in use, VmRSS and VmHWM (KB).
// The returned func stops sampling.
func watchPeak(path string) func() {
	done := make(chan struct{})
	finished := make(chan struct{})
	tsv, err := os.Create(path + ".tsv")
	if err != nil {
		return func() {}
	}
	go func() {
		defer close(finished)
		defer tsv.Close()
		var peak uint64
		n := 0
		start := time.Now()
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			metrics.Read(sample)
			live := sample[0].Value.Uint64()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			rss, hwm := procStatus()
			fmt.Fprintf(tsv, "%d\t%d\t%d\t%s\t%s\n", time.Since(start).Milliseconds(), live>>10, m.HeapInuse>>10, rss, hwm)
			if live < peak+peak/20 {
				continue
			}
			peak = live
			n++
			f, err := os.Create(fmt.Sprintf("%s.%02d", path, n))
			if err != nil {
				return
			}
			_ = pprof.WriteHeapProfile(f)
			f.Close()
		}
	}()
	return func() { close(done); <-finished }
}

// procStatus returns VmRSS and VmHWM from /proc/self/status (Linux only).
func procStatus() (rss, hwm string) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "-", "-"
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "VmRSS:":
			rss = f[1]
		case "VmHWM:":
			hwm = f[1]
		}
	}
	return rss, hwm
}
