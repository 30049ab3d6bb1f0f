package arm_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
)

// Whole runs against the emulator with its default buckets (ARM's):
//
//	go test ./pkg/arm -run '^$' -bench Emulator -benchtime 1x
//
// Metrics: s/run, 429s (counted by the emulator; must be 0), and the
// emulator's request counters per run.

func benchEmulator(b *testing.B, mut func(*emulator.Options), seed func(*arm.Client) []string, run func(context.Context, *arm.Client, []string) error, ideal float64) {
	var total time.Duration
	var throttled, gets, polls, puts int64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		srv := newEmulator(b, mut)
		ao := arm.DefaultOptions()
		ao.Endpoint = srv.URL()
		c, err := arm.New(ao)
		if err != nil {
			b.Fatal(err)
		}
		ids := seed(c)
		before := srv.Stats()
		b.StartTimer()
		start := time.Now()
		if err := run(context.Background(), c, ids); err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
		st := srv.Stats()
		throttled += st.Throttled - before.Throttled
		gets += st.Requests["GET"] - before.Requests["GET"]
		polls += st.Requests["POLL"] - before.Requests["POLL"]
		puts += st.Requests["PUT"] - before.Requests["PUT"]
		_ = srv.Close()
	}
	n := float64(b.N)
	b.ReportMetric(total.Seconds()/n, "s/run")
	b.ReportMetric(ideal, "ideal-s")
	b.ReportMetric(total.Seconds()/n/ideal, "x-ideal")
	b.ReportMetric(float64(throttled)/n, "429s")
	b.ReportMetric(float64(gets)/n, "GETs")
	b.ReportMetric(float64(polls)/n, "POLLs")
	b.ReportMetric(float64(puts)/n, "PUTs")
}

func seedGroups(n int) func(*arm.Client) []string {
	return func(c *arm.Client) []string {
		ids := make([]string, n)
		for i := range ids {
			ids[i] = fmt.Sprintf("/subscriptions/%s/resourceGroups/rg-%d", emuSub, i)
		}
		return ids
	}
}

// A plan of 1,000 GETs with 50 ms latency: 250 burst + 750 at 25/s = 30 s.
// The emulator answers GETs of missing resources with 404, which costs
// the same token; the plan treats 404 as "create".
func BenchmarkEmulatorPlan1000GETs(b *testing.B) {
	benchEmulator(b, func(o *emulator.Options) { o.Latency = 50 * time.Millisecond }, seedGroups(1000),
		func(ctx context.Context, c *arm.Client, ids []string) error {
			g, ctx := errgroup.WithContext(ctx)
			g.SetLimit(c.Concurrency())
			for _, id := range ids {
				g.Go(func() error {
					if _, err := c.Get(ctx, id, rgAPI); err != nil && !arm.IsNotFound(err) {
						return err
					}
					return nil
				})
			}
			return g.Wait()
		}, 30)
}

// An apply of 200 long-running creates (2 s each, the emulator default),
// one worker per resource as the apply engine's DAG allows: 198 PUTs fit
// the write burst; each LRO then costs a poll and azcore's final GET, 400
// reads = 250 burst + 150 at 25/s = 6 s, after the 2 s operation.
func BenchmarkEmulatorApply200LROWrites(b *testing.B) {
	benchEmulator(b, func(o *emulator.Options) {
		o.Latency = 50 * time.Millisecond
		o.LROByType = map[string]time.Duration{"Microsoft.Storage/storageAccounts": 2 * time.Second}
	}, func(c *arm.Client) []string {
		rg := "/subscriptions/" + emuSub + "/resourceGroups/rg-bench"
		if _, err := c.Put(context.Background(), rg, rgAPI, map[string]any{"location": "westeurope"}, nil); err != nil {
			b.Fatal(err)
		}
		ids := make([]string, 200)
		for i := range ids {
			ids[i] = fmt.Sprintf("%s/providers/Microsoft.Storage/storageAccounts/st%03d", rg, i)
		}
		return ids
	}, func(ctx context.Context, c *arm.Client, ids []string) error {
		g, ctx := errgroup.WithContext(ctx)
		for _, id := range ids {
			g.Go(func() error {
				_, err := c.Put(ctx, id, stAPI, map[string]any{"location": "westeurope", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}}, nil)
				return err
			})
		}
		return g.Wait()
	}, 8)
}
