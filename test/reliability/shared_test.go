package reliability

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

// Issue 34: two applies at once into one subscription whose buckets are
// smaller than ARM's defaults (as resource providers with their own
// limits behave). Each client learns the buckets and the other client from
// the remaining-headers: both applies succeed, no resource fails, and at
// most 1% of all requests are answered 429.
//
// The buckets have the sizes (reads 60, writes 30); their refill
// is scaled up (reads 50/s, writes 15/s instead of 10/s and 3/s) so two
// applies of a few hundred resources finish in well under a minute.
// KUBECTL_AZURE_SHARED_FULL=1 runs the exact refill (reads 60/10,
// writes 30/3, a few minutes); KUBECTL_AZURE_SHARED_GROUPS sets the groups
// per apply (56 resources each).
func TestTwoAppliesShareSmallBuckets(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for tens of seconds of real time")
	}
	opts := harness.FastOptions()
	opts.Latency = 5 * time.Millisecond
	opts.Throttle = emulator.ThrottleOptions{Enabled: true,
		Reads:   emulator.Bucket{Size: 60, Refill: 50},
		Writes:  emulator.Bucket{Size: 30, Refill: 15},
		Deletes: emulator.Bucket{Size: 30, Refill: 15}}
	if os.Getenv("KUBECTL_AZURE_SHARED_FULL") != "" {
		opts.Throttle.Reads.Refill, opts.Throttle.Writes.Refill, opts.Throttle.Deletes.Refill = 10, 3, 3
	}
	groups := 4
	if n, err := strconv.Atoi(os.Getenv("KUBECTL_AZURE_SHARED_GROUPS")); err == nil && n > 0 {
		groups = n
	}
	a := harness.StartARM(t, opts)

	type run struct {
		dir, state string
		want       []string
		res        harness.Result
	}
	runs := make([]*run, 2)
	for i := range runs {
		tmp := t.TempDir()
		d := harness.DAG{Prefix: string(rune('a' + i)), Groups: groups, Subnets: 3, Identities: 50}
		runs[i] = &run{dir: filepath.Join(tmp, "infra"), state: filepath.Join(tmp, "state.json"), want: d.IDs()}
		d.Write(t, runs[i].dir)
	}
	start := time.Now()
	var wg sync.WaitGroup
	for _, r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.res = harness.Run(a.URL, r.state, "apply", "-f", r.dir, "--yes")
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)

	s := a.Stats()
	var total int64
	for _, n := range s.Requests {
		total += n
	}
	t.Logf("two applies of %d resources each in %s: %d 429s of %d requests (%.2f%%); requests %v",
		len(runs[0].want), elapsed.Round(time.Millisecond), s.Throttled, total, 100*float64(s.Throttled)/float64(total), s.Requests)

	live := a.LiveIDs()
	for i, r := range runs {
		r.res.Must(t, 0)
		if !strings.Contains(r.res.Stdout, "0 failed") {
			t.Errorf("apply %d: the summary reports failures:\n%s", i, r.res.Stdout)
		}
		recs, intents := harness.StateRecords(t, r.state, state.Options{})
		if len(intents) != 0 {
			t.Errorf("apply %d left open intents: %v", i, keys(intents))
		}
		for _, id := range r.want {
			if !live[id] || !recs[id] {
				t.Errorf("apply %d: %s in Azure %v, in state %v", i, id, live[id], recs[id])
			}
		}
	}
	if s.Throttled*100 > total {
		t.Errorf("%d 429s of %d requests: more than 1%%", s.Throttled, total)
	}
}
