package arm

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
)

// Issue 34: a bucket that refills slower than ARM's default must slow the
// client down, never fail it; 429s stay under 1% of requests.
func TestPacingLearnsSlowerRefillNeverFails(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs for several seconds of real time")
	}
	srv := newBucketServer(t, Bucket{Size: 10, Refill: 8}, Bucket{Size: 10, Refill: 4}, Bucket{Size: 10, Refill: 4}, 5*time.Millisecond)
	c, err := New(testOptions(srv.srv.URL)) // ARM's defaults: 250 + 25/s
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := runPlan(context.Background(), c, http.MethodGet, 100, 16); err != nil {
		t.Fatalf("a throttled plan failed: %v", err)
	}
	total := srv.served.Load() + srv.throttled.Load()
	t.Logf("100 GETs at 10+8/s: %s, %d 429s of %d requests", time.Since(start).Round(time.Millisecond), srv.throttled.Load(), total)
	if n := srv.throttled.Load(); float64(n) > 0.01*float64(total) {
		t.Errorf("%d 429s of %d requests (more than 1%%)", n, total)
	}
}

// Two clients share one subscription's bucket: both finish, few 429s.
func TestPacingSharesSubscriptionWithAnotherClient(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs for several seconds of real time")
	}
	// ARM's small-bucket shape (60 tokens) at a refill fast enough for a
	// unit test; each client alone would spend it all.
	srv := newBucketServer(t, Bucket{Size: 60, Refill: 30}, Bucket{Size: 30, Refill: 5}, Bucket{Size: 30, Refill: 5}, 5*time.Millisecond)
	var g errgroup.Group
	for range 2 {
		c, err := New(testOptions(srv.srv.URL))
		if err != nil {
			t.Fatal(err)
		}
		g.Go(func() error { return runPlan(context.Background(), c, http.MethodGet, 200, 16) })
	}
	start := time.Now()
	if err := g.Wait(); err != nil {
		t.Fatalf("one of two plans failed: %v", err)
	}
	total := srv.served.Load() + srv.throttled.Load()
	t.Logf("2x200 GETs at 60+30/s (ideal 11.3 s): %s, %d 429s of %d requests", time.Since(start).Round(time.Millisecond), srv.throttled.Load(), total)
	// Both plans succeed (checked above: throttling slows a run, never
	// fails it), and issue 34's bound holds: at most 1% of the requests
	// are answered 429. Before the pacer bounded a shared bucket's
	// in-flight attempts by a quarter of what is left above a reserve and
	// re-probed after a 429, this drew 6-89 429s of 400 (1.5-18%),
	// mostly when the waiters of both clients were released together at
	// the end of a Retry-After.
	if n := srv.throttled.Load(); n*100 > total {
		t.Errorf("%d 429s of %d requests (more than 1%%)", n, total)
	}
}

// providerServer throttles like a resource provider with its own limit
// under ARM's roomy subscription bucket: Microsoft.Compute allows a burst
// of 10 and 5/s, answers 429 TooManyRequests beyond, and reports what is
// left in x-ms-ratelimit-remaining-resource; Microsoft.Network is not
// limited.
type providerServer struct {
	srv       *httptest.Server
	mu        sync.Mutex
	tokens    float64
	last      time.Time
	throttled atomic.Int64
	served    atomic.Int64
}

func newProviderServer(t *testing.T) *providerServer {
	s := &providerServer{tokens: 10, last: time.Now()}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(3 * time.Millisecond)
		w.Header().Set("x-ms-ratelimit-remaining-subscription-reads", "11999")
		w.Header().Set("Content-Type", "application/json")
		if strings.Contains(r.URL.Path, "Microsoft.Compute") {
			s.mu.Lock()
			now := time.Now()
			s.tokens = math.Min(10, s.tokens+now.Sub(s.last).Seconds()*5)
			s.last = now
			ok := s.tokens >= 1
			if ok {
				s.tokens--
			}
			left := int(s.tokens)
			s.mu.Unlock()
			w.Header().Set("x-ms-ratelimit-remaining-resource", "Microsoft.Compute/LowCostGet3Min;"+strconv.Itoa(left)+",Microsoft.Compute/LowCostGet30Min;"+strconv.Itoa(left+500))
			if !ok {
				s.throttled.Add(1)
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(http.StatusTooManyRequests)
				fmt.Fprint(w, `{"error":{"code":"TooManyRequests","message":"The operation could not be completed as it results in exceeding the allocated rate."}}`)
				return
			}
		}
		s.served.Add(1)
		fmt.Fprintf(w, `{"id":%q}`, r.URL.Path)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// Issue 34: a resource provider's own bucket is learned and paced per
// provider; other providers' requests do not wait for it; the waits are
// reported with the bucket's name.
func TestPacingLearnsProviderBucket(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs for several seconds of real time")
	}
	srv := newProviderServer(t)
	var mu sync.Mutex
	var events []WaitEvent
	o := testOptions(srv.srv.URL)
	o.OnWait = func(e WaitEvent) { mu.Lock(); events = append(events, e); mu.Unlock() }
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	get := func(ns, typ string, n int) func() error {
		return func() error {
			var g errgroup.Group
			g.SetLimit(16)
			for i := range n {
				id := fmt.Sprintf("/subscriptions/%s/resourceGroups/rg/providers/%s/%s/r%d", testSub, ns, typ, i)
				g.Go(func() error { _, err := c.Get(context.Background(), id, testAPI); return err })
			}
			return g.Wait()
		}
	}
	start := time.Now()
	var network time.Duration
	var g errgroup.Group
	g.Go(get("Microsoft.Compute", "virtualMachines", 40))
	g.Go(func() error {
		err := get("Microsoft.Network", "virtualNetworks", 100)()
		network = time.Since(start)
		return err
	})
	if err := g.Wait(); err != nil {
		t.Fatalf("throttling failed a read: %v", err)
	}
	compute := time.Since(start)
	t.Logf("40 Compute GETs (10 + 5/s) in %s with %d 429s; 100 Network GETs in %s", compute.Round(time.Millisecond), srv.throttled.Load(), network.Round(time.Millisecond))
	if network > 2*time.Second {
		t.Errorf("Network reads took %s: they waited for Compute's bucket", network)
	}
	if n := srv.throttled.Load(); n > 4 {
		t.Errorf("%d 429s from Compute; the pacer did not learn its bucket", n)
	}
	mu.Lock()
	defer mu.Unlock()
	found := false
	for _, e := range events {
		if e.Provider == "Microsoft.Compute" && e.Class == "reads" && e.Wait > 0 && e.Bucket() == "Microsoft.Compute reads" {
			found = true
		}
		if e.Provider == "Microsoft.Network" {
			t.Errorf("event for Network: %+v", e)
		}
	}
	if !found {
		t.Errorf("no wait event for Compute's bucket: %+v", events)
	}
}

// The wait hook: a plan that outruns the subscription's read bucket says
// so once per stall, naming the bucket and the wait.
func TestPacingReportsWaits(t *testing.T) {
	t.Parallel()
	srv := newBucketServer(t, Bucket{Size: 20, Refill: 20}, Bucket{Size: 20, Refill: 20}, Bucket{Size: 20, Refill: 20}, 2*time.Millisecond)
	var mu sync.Mutex
	var events []WaitEvent
	o := testOptions(srv.srv.URL)
	o.Reads = Bucket{Size: 20, Refill: 20}
	o.OnWait = func(e WaitEvent) { mu.Lock(); events = append(events, e); mu.Unlock() }
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := runPlan(context.Background(), c, http.MethodGet, 60, 16); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(events) == 0 || len(events) > 5 {
		t.Fatalf("%d wait events for one 2 s stall: %+v", len(events), events)
	}
	e := events[0]
	if e.Bucket() != "subscription reads" || e.Wait < minAnnounced || e.Until.IsZero() || e.Subscription != testSub {
		t.Errorf("event %+v", e)
	}
}

// The provider a request is paced under is its path's last provider
// block; ARM's own paths (groups, subscriptions, the providers API,
// Microsoft.Resources) have none.
func TestProviderOf(t *testing.T) {
	sub := "/subscriptions/" + testSub
	for path, want := range map[string]string{
		sub + "/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/vm":                                          "Microsoft.Compute",
		sub + "/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/s":                                 "Microsoft.Network",
		sub + "/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks":                                             "Microsoft.Network",
		sub + "/providers/Microsoft.Network/routeTables":                                                                   "Microsoft.Network",
		sub + "/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/sa/listKeys":                                 "Microsoft.Storage",
		sub + "/resourceGroups/rg/providers/Microsoft.KeyVault/vaults/v/providers/Microsoft.Insights/diagnosticSettings/d": "Microsoft.Insights",
		sub + "/providers/Microsoft.Network/locations/westeurope/operations/op-1":                                          "Microsoft.Network",
		sub + "/resourceGroups/rg":           "",
		sub + "/resourcegroups":              "",
		sub:                                  "",
		sub + "/providers/Microsoft.Network": "",
		sub + "/resourceGroups/rg/providers/Microsoft.Resources/deployments/d": "",
	} {
		if got := providerOf(path); got != want {
			t.Errorf("providerOf(%s) = %q, want %q", path, got, want)
		}
	}
}
