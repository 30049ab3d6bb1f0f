package reconcile

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// ARM's documented read bucket per subscription: 250 tokens refilled at
// 25/s. The size is measured from x-ms-ratelimit-remaining-subscription-
// reads (the largest value seen, plus the request it was charged for); the
// refill is taken in the same proportion (a tenth of the bucket per
// second), which holds for every tier ARM documents.
const (
	defaultReadBucket = 250
	refillPerSize     = 0.1
)

// Back-off thresholds on the remaining reads other clients leave: below
// lowWater of the bucket the budget shrinks in proportion; below stopWater
// the observer waits for the bucket to refill to lowWater before its next
// read.
const (
	lowWater  = 0.5
	stopWater = 0.1
)

// Budget is an http.RoundTripper that keeps one client's reads within a
// fraction of ARM's measured read bucket and reports every response to a
// RequestObserver. Writes pass through unpaced (the work queue's write
// budget paces them); the ARM client's own pacer still runs in front.
type Budget struct {
	next     http.RoundTripper
	fraction float64
	observe  func(method string, code int)
	now      func() time.Time

	mu        sync.Mutex
	size      float64 // measured bucket size
	remaining float64 // last remaining seen, -1 before any
	// backoff is the share of the rate the last response left (1: none;
	// lower while other clients drain the bucket): a change of fraction
	// keeps it, so a loop reading at its initial share still backs off.
	backoff  float64
	pausedTo time.Time
	limiter  *rate.Limiter
	sent     []time.Time // when the reads of the last spendWindow were sent
}

// spendWindow is how far back the budget measures its own spend. A token
// bucket lets its burst into any window on top of its rate, so a share
// measured over a window overshoots by up to the burst; holding every
// read while the reads sent in the last spendWindow already reach the
// rate's share of it keeps every window of that length, and so every
// longer one, within the budget.
const spendWindow = 10 * time.Second

// NewBudget wraps next (nil: http.DefaultTransport). observe may be nil.
func NewBudget(next http.RoundTripper, fraction float64, observe func(method string, code int)) *Budget {
	if next == nil {
		next = http.DefaultTransport
	}
	b := &Budget{next: next, fraction: fraction, observe: observe, now: time.Now, size: defaultReadBucket, remaining: -1, backoff: 1}
	b.limiter = rate.NewLimiter(b.rate(1), b.burst())
	return b
}

// SetFraction changes the share of the bucket the budget spends from now
// on (the loop's initial share until its first sweep, then the steady
// one). The back-off the bucket's last answer asked for still applies, and
// the reads already sent count in the measured spend: after a step down,
// reads wait until the last spendWindow is within the new share.
func (b *Budget) SetFraction(fraction float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if fraction == b.fraction {
		return
	}
	b.fraction = fraction
	b.limiter.SetBurst(b.burst())
	b.limiter.SetLimit(b.rate(b.backoff))
}

// Fraction is the share of the bucket the budget spends now.
func (b *Budget) Fraction() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.fraction
}

func (b *Budget) rate(factor float64) rate.Limit {
	return rate.Limit(b.size * refillPerSize * b.fraction * factor)
}

func (b *Budget) burst() int {
	return max(1, int(b.size*b.fraction))
}

// Measured returns the measured bucket size and the last remaining reads
// seen (-1 before any response carried it).
func (b *Budget) Measured() (size, remaining float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.size, b.remaining
}

// isRead reports whether ARM charges the request to the read bucket.
func isRead(method string) bool { return method == http.MethodGet || method == http.MethodHead }

// RoundTrip waits for the budget before a read, then records the answer.
func (b *Budget) RoundTrip(req *http.Request) (*http.Response, error) {
	if isRead(req.Method) {
		if err := b.wait(req.Context()); err != nil {
			return nil, err
		}
	}
	resp, err := b.next.RoundTrip(req)
	if resp != nil {
		b.learn(req, resp)
		if b.observe != nil {
			b.observe(req.Method, resp.StatusCode)
		}
	} else if b.observe != nil && err != nil && req.Context().Err() == nil {
		b.observe(req.Method, 0)
	}
	return resp, err
}

func (b *Budget) wait(ctx context.Context) error {
	b.mu.Lock()
	pause := b.pausedTo.Sub(b.now())
	lim := b.limiter
	b.mu.Unlock()
	if err := sleep(ctx, pause); err != nil {
		return err
	}
	if err := lim.Wait(ctx); err != nil {
		return err
	}
	for {
		hold := b.spend(ctx.Value(confirmKey{}) != nil)
		if hold <= 0 {
			return nil
		}
		if err := sleep(ctx, hold); err != nil {
			return err
		}
	}
}

// confirmKey marks the context of a read that confirms a drift: it still
// waits for the token bucket, and counts in the measured spend, but is not
// held by it. Confirmations are one read per drift seen, so they cannot
// push a steady state over its share; held, a drift would wait up to a
// spendWindow more to be reported.
type confirmKey struct{}

// confirming marks ctx's reads as confirmations of drift.
func confirming(ctx context.Context) context.Context {
	return context.WithValue(ctx, confirmKey{}, true)
}

// spend records a read about to be sent and returns 0, or, when the reads
// sent in the last spendWindow already reach the budget's share of it,
// how long to hold the read (until the oldest leaves the window).
func (b *Budget) spend(confirm bool) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	i := 0
	for i < len(b.sent) && now.Sub(b.sent[i]) >= spendWindow {
		i++
	}
	b.sent = b.sent[i:]
	allowed := max(1, int(float64(b.limiter.Limit())*spendWindow.Seconds()))
	if len(b.sent) >= allowed && !confirm {
		return b.sent[0].Add(spendWindow).Sub(now)
	}
	b.sent = append(b.sent, now)
	return 0
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// learn follows the read bucket from the response headers: the size
// grows to the largest remaining seen; when other clients drain the
// bucket the budget shrinks, and near empty the next read waits.
func (b *Budget) learn(req *http.Request, resp *http.Response) {
	h := resp.Header.Get("x-ms-ratelimit-remaining-subscription-reads")
	if h == "" {
		h = resp.Header.Get("x-ms-ratelimit-remaining-tenant-reads")
	}
	rem, err := strconv.ParseFloat(strings.TrimSpace(h), 64)
	throttled := resp.StatusCode == http.StatusTooManyRequests && isRead(req.Method)
	if (err != nil || rem < 0) && !throttled {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	if throttled {
		// Someone emptied the bucket: stand back until it refilled to
		// half, whatever the header said.
		rem = 0
	}
	b.remaining = rem
	if rem+1 > b.size {
		b.size = rem + 1
		b.limiter.SetBurst(b.burst())
	}
	factor := 1.0
	if frac := rem / b.size; frac < lowWater {
		factor = math.Max(frac/lowWater, 0.05)
		if frac < stopWater {
			refill := b.size * refillPerSize
			b.pausedTo = now.Add(time.Duration((lowWater*b.size - rem) / refill * float64(time.Second)))
		}
	}
	b.backoff = factor
	b.limiter.SetLimit(b.rate(factor))
}

// Counter is an http.RoundTripper that only reports every response (the
// workers' client: their writes are paced by the queue, their reads are
// few and must not wait behind the observer).
type Counter struct {
	next    http.RoundTripper
	observe func(method string, code int)
}

// NewCounter wraps next (nil: http.DefaultTransport).
func NewCounter(next http.RoundTripper, observe func(method string, code int)) *Counter {
	if next == nil {
		next = http.DefaultTransport
	}
	return &Counter{next: next, observe: observe}
}

// RoundTrip sends req and reports the answer.
func (c *Counter) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(req)
	if c.observe != nil {
		switch {
		case resp != nil:
			c.observe(req.Method, resp.StatusCode)
		case err != nil && req.Context().Err() == nil:
			c.observe(req.Method, 0)
		}
	}
	return resp, err
}
