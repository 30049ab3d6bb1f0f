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

// bucketServer is a fake ARM that throttles like ARM: per subscription
// and class a continuously refilled token bucket, the remaining count in
// x-ms-ratelimit-remaining-subscription-<class>, 429 + Retry-After when
// empty. It answers every GET with a small resource and every write 200.
type bucketServer struct {
	srv     *httptest.Server
	latency time.Duration

	mu        sync.Mutex
	buckets   map[string]*fakeBucket
	sizes     map[string]Bucket
	throttled atomic.Int64
	served    atomic.Int64
	// hidden, when set, makes the server drop the remaining headers, so
	// only the client's default model can keep it under the limit.
	hidden bool
}

type fakeBucket struct {
	tokens float64
	last   time.Time
}

func newBucketServer(t testing.TB, reads, writes, deletes Bucket, latency time.Duration) *bucketServer {
	s := &bucketServer{
		latency: latency,
		buckets: map[string]*fakeBucket{},
		sizes:   map[string]Bucket{"reads": reads, "writes": writes, "deletes": deletes},
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *bucketServer) serve(w http.ResponseWriter, r *http.Request) {
	cls := classOf(r.Method).String()
	key := subscriptionOf(r.URL.Path) + "|" + cls
	cfg := s.sizes[cls]
	now := time.Now()
	s.mu.Lock()
	b := s.buckets[key]
	if b == nil {
		b = &fakeBucket{tokens: cfg.Size, last: now}
		s.buckets[key] = b
	}
	b.tokens = math.Min(cfg.Size, b.tokens+now.Sub(b.last).Seconds()*cfg.Refill)
	b.last = now
	ok := b.tokens >= 1
	var wait time.Duration
	if ok {
		b.tokens--
	} else {
		wait = time.Duration((1 - b.tokens) / cfg.Refill * float64(time.Second))
	}
	remaining := int(b.tokens)
	s.mu.Unlock()

	if s.latency > 0 {
		time.Sleep(s.latency)
	}
	if !s.hidden {
		w.Header().Set("x-ms-ratelimit-remaining-subscription-"+cls, strconv.Itoa(remaining))
	}
	w.Header().Set("Content-Type", "application/json")
	if !ok {
		s.throttled.Add(1)
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, `{"error":{"code":"SubscriptionRequestsThrottled","message":"too many"}}`)
		return
	}
	s.served.Add(1)
	fmt.Fprintf(w, `{"id":%q}`, r.URL.Path)
}

// compete makes another client spend rate tokens/s of the subscription's
// bucket for one class, as a second pipeline on the same subscription
// would, until ctx ends.
func (s *bucketServer) compete(ctx context.Context, cls string, rate float64) {
	const step = 20 * time.Millisecond
	go func() {
		t := time.NewTicker(step)
		defer t.Stop()
		owed := 0.0
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-t.C:
				owed += rate * step.Seconds()
				cfg := s.sizes[cls]
				key := subscriptionOf("/subscriptions/"+testSub) + "|" + cls
				s.mu.Lock()
				b := s.buckets[key]
				if b == nil {
					b = &fakeBucket{tokens: cfg.Size, last: now}
					s.buckets[key] = b
				}
				b.tokens = math.Min(cfg.Size, b.tokens+now.Sub(b.last).Seconds()*cfg.Refill)
				b.last = now
				for owed >= 1 && b.tokens >= 1 {
					b.tokens--
					owed--
				}
				s.mu.Unlock()
			}
		}
	}()
}

// run sends n requests of one method with the given parallelism.
func runPlan(ctx context.Context, c *Client, method string, n, parallel int) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(parallel)
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("/subscriptions/%s/resourceGroups/rg/providers/Microsoft.Web/sites/s%d", testSub, i)
		g.Go(func() error {
			var err error
			switch method {
			case http.MethodGet:
				_, err = c.Get(ctx, id, testAPI)
			case http.MethodPut:
				_, err = c.Put(ctx, id, testAPI, map[string]any{"location": "westeurope"}, nil)
			case http.MethodDelete:
				_, err = c.Delete(ctx, id, testAPI, nil)
			}
			return err
		})
	}
	return g.Wait()
}

// A server bucket much smaller than the client's default model: the
// remaining headers must bring the model down before the server runs dry.
func TestPacingLearnsFromRemainingHeadersNo429(t *testing.T) {
	srv := newBucketServer(t, Bucket{Size: 30, Refill: 200}, Bucket{Size: 20, Refill: 200}, Bucket{Size: 20, Refill: 200}, 2*time.Millisecond)
	o := testOptions(srv.srv.URL)
	o.Concurrency = 4
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := runPlan(context.Background(), c, http.MethodGet, 150, 4); err != nil {
		t.Fatal(err)
	}
	if err := runPlan(context.Background(), c, http.MethodPut, 100, 4); err != nil {
		t.Fatal(err)
	}
	if n := srv.throttled.Load(); n != 0 {
		t.Fatalf("server throttled %d requests; stats %+v", n, c.Stats())
	}
	s := c.Stats()
	if s.PacingWaits == 0 {
		t.Fatalf("pacer never waited although the server bucket is 5x smaller than the run: %+v", s)
	}
	if s.Requests["GET"] != 150 || s.Requests["PUT"] != 100 {
		t.Fatalf("stats %+v", s)
	}
}

// The control: with pacing off the same run is throttled, so the test
// above measures the pacer and not a lenient server.
func TestWithoutPacingTheSameRunIsThrottled(t *testing.T) {
	srv := newBucketServer(t, Bucket{Size: 30, Refill: 200}, Bucket{Size: 20, Refill: 200}, Bucket{Size: 20, Refill: 200}, 2*time.Millisecond)
	o := testOptions(srv.srv.URL)
	o.Concurrency = 4
	o.Pacing = false
	o.MaxRetries = -1 // the first 429 ends the run: all this test needs
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := runPlan(context.Background(), c, http.MethodGet, 150, 4); !isThrottled(err) {
		t.Fatalf("want a 429 error, got %v", err)
	}
	if srv.throttled.Load() == 0 || c.Stats().Throttled == 0 {
		t.Fatalf("no 429 without pacing: server %d, stats %+v", srv.throttled.Load(), c.Stats())
	}
}

// With no headers at all the model alone must keep a run within a bucket
// the client was configured for.
func TestPacingModelWithoutHeadersNo429(t *testing.T) {
	srv := newBucketServer(t, Bucket{Size: 20, Refill: 100}, Bucket{Size: 20, Refill: 100}, Bucket{Size: 20, Refill: 100}, time.Millisecond)
	srv.hidden = true
	o := testOptions(srv.srv.URL)
	o.Reads = Bucket{Size: 20, Refill: 100}
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := runPlan(context.Background(), c, http.MethodGet, 80, 8); err != nil {
		t.Fatal(err)
	}
	if n := srv.throttled.Load(); n != 0 {
		t.Fatalf("throttled %d", n)
	}
}

// Pacer unit behaviour on a fake clock.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (f *fakeClock) Now() time.Time { f.mu.Lock(); defer f.mu.Unlock(); return f.now }
func (f *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	f.mu.Lock()
	f.now = f.now.Add(d)
	f.mu.Unlock()
	return ctx.Err()
}

func newTestPacer(reads Bucket, reserve float64) (*pacer, *fakeClock) {
	o := DefaultOptions()
	o.Reads = reads
	o.PacingReserve = reserve
	p := newPacer(o, newStatsCollector())
	clk := &fakeClock{now: time.Unix(1000, 0)}
	p.now, p.sleep = clk.Now, clk.Sleep
	p.guards = false
	return p, clk
}

func TestPacerWaitsForRefillWhenModelEmpty(t *testing.T) {
	p, clk := newTestPacer(Bucket{Size: 10, Refill: 5}, 0)
	ctx := context.Background()
	start := clk.Now()
	for i := 0; i < 10; i++ {
		if _, err := p.acquire(ctx, "s", classRead); err != nil {
			t.Fatal(err)
		}
	}
	if clk.Now() != start {
		t.Fatalf("burst of bucket size waited %v", clk.Now().Sub(start))
	}
	for i := 0; i < 5; i++ {
		if _, err := p.acquire(ctx, "s", classRead); err != nil {
			t.Fatal(err)
		}
	}
	// 5 more tokens at 5/s: one second of fake time.
	if got := clk.Now().Sub(start); got < 990*time.Millisecond || got > 1010*time.Millisecond {
		t.Fatalf("waited %v for 5 tokens at 5/s", got)
	}
	// Other classes and subscriptions have their own buckets.
	before := clk.Now()
	if _, err := p.acquire(ctx, "s", classWrite); err != nil {
		t.Fatal(err)
	}
	if _, err := p.acquire(ctx, "other", classRead); err != nil {
		t.Fatal(err)
	}
	if clk.Now() != before {
		t.Fatal("separate bucket waited")
	}
}

func hdr(kv ...string) *http.Response {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return &http.Response{StatusCode: 200, Header: h}
}

// observe429 tells p that the attempt with ticket tk in subscription "s"
// was throttled: a 429 with the given Retry-After.
func observe429(p *pacer, k class, tk ticket, retryAfter string) {
	r := hdr("Retry-After", retryAfter)
	r.StatusCode = 429
	p.observe("s", k, tk, r)
}

func TestPacerFollowsRemainingHeader(t *testing.T) {
	p, clk := newTestPacer(Bucket{Size: 250, Refill: 25}, 0)
	ctx := context.Background()
	t1, _ := p.acquire(ctx, "s", classRead)
	t2, _ := p.acquire(ctx, "s", classRead)
	t3, _ := p.acquire(ctx, "s", classRead)
	b := p.buckets[bucketKey{sub: "s", class: classRead}]
	if b.tokens != 247 {
		t.Fatalf("model %v after 3 of 250", b.tokens)
	}
	// Another client drained the subscription: the server has 3 left
	// after our second attempt; the third may have reached it since.
	p.observe("s", classRead, t2, hdr("x-ms-ratelimit-remaining-subscription-reads", "3"))
	if b.tokens != 2 {
		t.Fatalf("model %v, want 3 - 1 attempt sent after", b.tokens)
	}
	// The first attempt's response comes late with old news: it must not
	// raise the model.
	p.observe("s", classRead, t1, hdr("x-ms-ratelimit-remaining-subscription-reads", "100"))
	if b.tokens != 2 {
		t.Fatalf("stale header raised the model to %v", b.tokens)
	}
	p.observe("s", classRead, t3, hdr("x-ms-ratelimit-remaining-subscription-reads", "1"))
	if b.tokens != 1 {
		t.Fatalf("model %v", b.tokens)
	}
	start := clk.Now()
	for i := 0; i < 3; i++ {
		if _, err := p.acquire(ctx, "s", classRead); err != nil {
			t.Fatal(err)
		}
	}
	// 1 token left, 2 more at 25/s = 80 ms.
	if got := clk.Now().Sub(start); got < 75*time.Millisecond || got > 90*time.Millisecond {
		t.Fatalf("waited %v", got)
	}
}

// A reordered attempt: the newer one reaches the server first, and its
// remaining count does not include the older one still on its way. The
// model must keep a token for it.
func TestPacerCountsReorderedAttempts(t *testing.T) {
	p, _ := newTestPacer(Bucket{Size: 10, Refill: 1}, 0)
	ctx := context.Background()
	var ts []ticket
	for i := 0; i < 8; i++ {
		tk, _ := p.acquire(ctx, "s", classRead)
		ts = append(ts, tk)
	}
	b := p.buckets[bucketKey{sub: "s", class: classRead}]
	// Server order: 2..8 arrived, 1 has not. Remaining after 8 is 3.
	p.observe("s", classRead, ts[7], hdr("x-ms-ratelimit-remaining-subscription-reads", "3"))
	if b.tokens > 2 {
		t.Fatalf("model %v: it forgot the attempt still in flight (server will have 2)", b.tokens)
	}
}

// After a 429 the model is empty; the next fresh header (taken with every
// other attempt answered) raises it back to what the server reports.
func TestPacerRecoversAfter429(t *testing.T) {
	p, _ := newTestPacer(Bucket{Size: 100, Refill: 1}, 0)
	ctx := context.Background()
	t1, _ := p.acquire(ctx, "s", classRead)
	observe429(p, classRead, t1, "0")
	b := p.buckets[bucketKey{sub: "s", class: classRead}]
	if b.tokens != 0 {
		t.Fatalf("model %v after 429", b.tokens)
	}
	b.tokens = 1 // as if refilled
	t2, _ := p.acquire(ctx, "s", classRead)
	p.observe("s", classRead, t2, hdr("x-ms-ratelimit-remaining-subscription-reads", "40"))
	if b.tokens != 40 {
		t.Fatalf("model %v, want 40", b.tokens)
	}
}

func TestPacer429BlocksClassUntilRetryAfter(t *testing.T) {
	p, clk := newTestPacer(Bucket{Size: 250, Refill: 25}, 0)
	ctx := context.Background()
	seq, _ := p.acquire(ctx, "s", classWrite)
	observe429(p, classWrite, seq, "7")
	start := clk.Now()
	if _, err := p.acquire(ctx, "s", classWrite); err != nil {
		t.Fatal(err)
	}
	if got := clk.Now().Sub(start); got < 7*time.Second {
		t.Fatalf("acquired %v after a 429 with Retry-After 7", got)
	}
	// Reads were not throttled.
	before := clk.Now()
	_, _ = p.acquire(ctx, "s", classRead)
	if clk.Now() != before {
		t.Fatal("reads blocked by a write 429")
	}
}

func TestPacerLearnsLargerBucket(t *testing.T) {
	p, _ := newTestPacer(Bucket{Size: 250, Refill: 25}, 0)
	seq, _ := p.acquire(context.Background(), "s", classRead)
	p.observe("s", classRead, seq, hdr("x-ms-ratelimit-remaining-subscription-reads", "11999"))
	b := p.buckets[bucketKey{sub: "s", class: classRead}]
	if b.size != 11999 || b.tokens != 11999 {
		t.Fatalf("size %v tokens %v", b.size, b.tokens)
	}
}

func TestPacerHonoursContext(t *testing.T) {
	o := DefaultOptions()
	o.Reads = Bucket{Size: 1, Refill: 0.001}
	o.PacingReserve = 0
	p := newPacer(o, newStatsCollector())
	p.guards = false
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := p.acquire(ctx, "s", classRead); err != nil {
		t.Fatal(err)
	}
	if _, err := p.acquire(ctx, "s", classRead); err == nil || !strings.Contains(err.Error(), "deadline") {
		t.Fatalf("err %v", err)
	}
}

func TestRetryAfterParsing(t *testing.T) {
	cases := []struct {
		h    http.Header
		want time.Duration
	}{
		{http.Header{"Retry-After": {"3"}}, 3 * time.Second},
		{http.Header{"Retry-After-Ms": {"250"}}, 250 * time.Millisecond},
		{http.Header{"X-Ms-Retry-After-Ms": {"40"}}, 40 * time.Millisecond},
		{http.Header{"Retry-After": {"junk"}}, 0},
		{http.Header{}, 0},
	}
	for _, tc := range cases {
		if got := retryAfter(tc.h); got != tc.want {
			t.Errorf("%v: %v, want %v", tc.h, got, tc.want)
		}
	}
}

// Attempts reach the server in the reverse of the order they were charged
// (goroutines race to the connection pool). Each response's remaining
// count already includes the attempts the server took before it; the model
// must not subtract them again, or a big parallel plan stalls reads that
// have tokens to spare.
func TestPacerDoesNotDoubleCountReorderedAnswers(t *testing.T) {
	p, _ := newTestPacer(Bucket{Size: 250, Refill: 25}, 0)
	ctx := context.Background()
	var ts []ticket
	for i := 0; i < 10; i++ {
		tk, _ := p.acquire(ctx, "s", classRead)
		ts = append(ts, tk)
	}
	// The server took them last-first: t10 saw 249 left, ..., t1 saw 240,
	// and the answers arrive in that order too.
	for i := 9; i >= 0; i-- {
		p.observe("s", classRead, ts[i], hdr("x-ms-ratelimit-remaining-subscription-reads", fmt.Sprint(240+i)))
	}
	if b := p.buckets[bucketKey{sub: "s", class: classRead}]; b.tokens != 240 {
		t.Fatalf("model %v after 10 of 250, want 240", b.tokens)
	}
}
