package manifest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"
)

// writeIdentities writes n small documents (user-assigned identities with a
// location and two tags, spread over groups resource groups) into one file,
// the set the CLI's 10,000-resource memory target is measured on.
func writeIdentities(tb testing.TB, dir string, n, groups int) string {
	tb.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `---
apiVersion: azure.kubectl.io/v1alpha1
kind: Resource
metadata:
  name: id-bench-%05d
  labels: {suite: bench}
spec:
  type: Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31
  resourceGroup: rg-bench-%02d
  body:
    location: westeurope
    tags: {env: bench, index: "%d"}
`, i, i%groups, i)
	}
	path := filepath.Join(dir, "identities.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}

func benchOptions(path string) LoadOptions {
	return LoadOptions{
		Filenames: []string{path},
		Stdin:     strings.NewReader(""),
		LookupEnv: envOf(map[string]string{"AZURE_SUBSCRIPTION_ID": testSub}),
	}
}

// Heap metrics: live is what the last GC marked reachable, objects is
// everything allocated and not yet swept (HeapAlloc).
const (
	metricLive    = "/gc/heap/live:bytes"
	metricObjects = "/memory/classes/heap/objects:bytes"
)

func readHeap() (live, objects uint64) {
	s := []metrics.Sample{{Name: metricLive}, {Name: metricObjects}}
	metrics.Read(s)
	return s[0].Value.Uint64(), s[1].Value.Uint64()
}

// heapAfterGC is the heap still reachable after a full collection.
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC() // the second cycle frees what finalizers of the first released
	_, objects := readHeap()
	return objects
}

// measurePeak records the largest heap seen while f runs. The GC
// runs at GOGC=10 meanwhile, so a collection follows every 10% of growth
// and the live heap each one marks is close to the true peak of live
// memory; a goroutine samples the metrics every millisecond. peakLive (the
// largest heap a GC found reachable) is the number to compare; peakHeap
// (largest HeapAlloc, garbage included) bounds it from above.
func measurePeak(f func()) (peakLive, peakHeap uint64) {
	old := debug.SetGCPercent(10)
	defer debug.SetGCPercent(old)
	var mu sync.Mutex
	sample := func() {
		live, objects := readHeap()
		mu.Lock()
		peakLive, peakHeap = max(peakLive, live), max(peakHeap, objects)
		mu.Unlock()
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				sample()
			}
		}
	})
	f()
	close(done)
	wg.Wait()
	sample()
	return peakLive, peakHeap
}

// BenchmarkLoad10000 loads 10,000 documents from one file. Besides ns/op
// and allocs/op it reports, from one extra load measured with
// measurePeak, the heap Load needs at its peak and what the Set keeps
// after it (both above the heap before Load, in MB), and the retained
// bytes per resource.
func BenchmarkLoad10000(b *testing.B) {
	const n = 10000
	path := writeIdentities(b, b.TempDir(), n, 10)
	opts := benchOptions(path)
	ctx := context.Background()
	// Warm up once: the embedded schema is loaded lazily and cached, which
	// belongs to the process, not to this load.
	if _, err := Load(ctx, benchOptions(writeIdentities(b, b.TempDir(), 1, 1))); err != nil {
		b.Fatal(err)
	}

	base := heapAfterGC()
	var set *Set
	peakLive, peakHeap := measurePeak(func() {
		var err error
		if set, err = Load(ctx, opts); err != nil {
			b.Fatal(err)
		}
	})
	retained := heapAfterGC()
	if len(set.Resources) != n {
		b.Fatalf("loaded %d resources, want %d", len(set.Resources), n)
	}
	runtime.KeepAlive(set)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(ctx, opts); err != nil {
			b.Fatal(err)
		}
	}
	// After the loop: resetting the timer clears reported metrics.
	const mb = 1 << 20
	above := func(v uint64) float64 { return float64(v - min(v, base)) }
	b.ReportMetric(above(peakLive)/mb, "peak-live-MB")
	b.ReportMetric(above(peakHeap)/mb, "peak-heap-MB")
	b.ReportMetric(above(retained)/mb, "retained-MB")
	b.ReportMetric(above(retained)/n, "retained-B/resource")
}
