package arm

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"testing"
	"time"
)

// Benchmarks of whole runs against the fake bucket server with ARM's
// default buckets. Run them one iteration at a time:
//
//	go test ./pkg/arm -run '^$' -bench 'Plan|Apply' -benchtime 1x
//	go test ./pkg/arm -run '^$' -bench Concurrency -benchtime 1x
//
// Reported metrics: s/run (wall time), ideal-s (the bound set by the
// bucket and by latency at that parallelism), x-ideal (their ratio) and
// 429s (must be 0).

var armDefaults = DefaultOptions()

// idealSeconds is the larger of the bucket bound (tokens beyond the
// burst arrive at the refill rate) and the latency bound (n requests,
// parallel at a time, each taking latency).
func idealSeconds(n int, b Bucket, latency time.Duration, parallel int) float64 {
	bucket := math.Max(0, float64(n)-b.Size) / b.Refill
	lat := math.Ceil(float64(n)/float64(parallel)) * latency.Seconds()
	return math.Max(bucket, lat)
}

func benchRun(b *testing.B, method string, n, parallel int, latency time.Duration) {
	benchShared(b, method, n, parallel, latency, 0)
}

// benchShared runs with another client spending other tokens/s of the
// same bucket, which only the remaining headers reveal.
func benchShared(b *testing.B, method string, n, parallel int, latency time.Duration, other float64) {
	bucket := armDefaults.Reads
	switch method {
	case http.MethodPut:
		bucket = armDefaults.Writes
	case http.MethodDelete:
		bucket = armDefaults.Deletes
	}
	var total time.Duration
	var throttled int64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		srv := newBucketServer(b, armDefaults.Reads, armDefaults.Writes, armDefaults.Deletes, latency)
		o := DefaultOptions()
		o.Endpoint = srv.srv.URL
		o.Concurrency = parallel
		c, err := New(o)
		if err != nil {
			b.Fatal(err)
		}
		ctx, stop := context.WithCancel(context.Background())
		if other > 0 {
			srv.compete(ctx, classOf(method).String(), other)
		}
		b.StartTimer()
		start := time.Now()
		if err := runPlan(ctx, c, method, n, parallel); err != nil {
			b.Fatal(err)
		}
		stop()
		total += time.Since(start)
		throttled += srv.throttled.Load()
		srv.srv.Close()
	}
	per := total.Seconds() / float64(b.N)
	ideal := idealSeconds(n, Bucket{Size: bucket.Size, Refill: bucket.Refill - other}, latency, parallel)
	b.ReportMetric(per, "s/run")
	b.ReportMetric(ideal, "ideal-s")
	b.ReportMetric(per/ideal, "x-ideal")
	b.ReportMetric(float64(throttled)/float64(b.N), "429s")
}

// A 1,000-GET plan: 250 from the burst, 750 at 25/s, so 30 s ideal.
func BenchmarkPlan1000GETs(b *testing.B) {
	benchRun(b, http.MethodGet, 1000, DefaultConcurrency, 50*time.Millisecond)
}

// A 200-write apply fits the 200-token write bucket: latency-bound.
func BenchmarkApply200Writes(b *testing.B) {
	benchRun(b, http.MethodPut, 200, DefaultConcurrency, 250*time.Millisecond)
}

// A 400-write apply: 200 burst + 200 at 10/s, so 20 s ideal.
func BenchmarkApply400Writes(b *testing.B) {
	benchRun(b, http.MethodPut, 400, DefaultConcurrency, 250*time.Millisecond)
}

// The measurement behind DefaultConcurrency: how the two typical runs
// scale with in-flight requests.
func BenchmarkConcurrency(b *testing.B) {
	for _, p := range []int{4, 8, 16, 32, 64} {
		b.Run(fmt.Sprintf("writes200-lat250ms/c=%d", p), func(b *testing.B) {
			benchRun(b, http.MethodPut, 200, p, 250*time.Millisecond)
		})
		b.Run(fmt.Sprintf("gets500-lat100ms/c=%d", p), func(b *testing.B) {
			benchRun(b, http.MethodGet, 500, p, 100*time.Millisecond)
		})
		// Another pipeline spends 10 of the 25 reads/s: the pacer only
		// learns it from the headers, and every unanswered request is a
		// token it cannot see.
		b.Run(fmt.Sprintf("gets500-lat100ms-shared10/c=%d", p), func(b *testing.B) {
			benchShared(b, http.MethodGet, 500, p, 100*time.Millisecond, 10)
		})
	}
}
