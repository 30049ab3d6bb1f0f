package emulator

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Request categories ARM meters separately, each with its own bucket and
// x-ms-ratelimit-remaining-subscription-{category} header.
const (
	catReads   = "reads"
	catWrites  = "writes"
	catDeletes = "deletes"
)

func category(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead:
		return catReads
	case http.MethodDelete:
		return catDeletes
	}
	return catWrites
}

// tokenBucket is ARM's throttling model since 2024: a bucket of Size
// tokens per subscription and category, refilled continuously.
type tokenBucket struct {
	cfg    Bucket
	tokens float64
	last   time.Time
}

func (b *tokenBucket) refill(now time.Time) {
	if dt := now.Sub(b.last).Seconds(); dt > 0 {
		b.tokens = math.Min(b.cfg.Size, b.tokens+dt*b.cfg.Refill)
	}
	b.last = now
}

// take consumes one token. When empty it returns how long until one is back.
func (b *tokenBucket) take(now time.Time) (remaining int, wait time.Duration, ok bool) {
	b.refill(now)
	if b.tokens >= 1 {
		b.tokens--
		return int(b.tokens), 0, true
	}
	if b.cfg.Refill <= 0 {
		return 0, time.Hour, false
	}
	return 0, time.Duration((1 - b.tokens) / b.cfg.Refill * float64(time.Second)), false
}

type throttler struct {
	mu      sync.Mutex
	opts    ThrottleOptions
	buckets map[string]*tokenBucket // "sub|category"
}

func newThrottler(o ThrottleOptions) *throttler {
	return &throttler{opts: o, buckets: map[string]*tokenBucket{}}
}

func (t *throttler) reset() {
	t.mu.Lock()
	t.buckets = map[string]*tokenBucket{}
	t.mu.Unlock()
}

// admit charges one request to the subscription's bucket for its category,
// sets the remaining-header, and reports whether it may proceed.
func (t *throttler) admit(w http.ResponseWriter, sub, method string, now time.Time) bool {
	if !t.opts.Enabled {
		// ARM always reports the budget; with throttling off it never
		// runs down, so the headers show a full bucket.
		full := strconv.Itoa(int(defaultThrottle.Reads.Size))
		if category(method) != catReads {
			full = strconv.Itoa(int(defaultThrottle.Writes.Size))
		}
		w.Header().Set("x-ms-ratelimit-remaining-subscription-"+category(method), full)
		w.Header().Set("x-ms-ratelimit-remaining-subscription-global-"+category(method), full)
		return true
	}
	cat := category(method)
	var cfg Bucket
	switch cat {
	case catReads:
		cfg = t.opts.Reads
	case catWrites:
		cfg = t.opts.Writes
	default:
		cfg = t.opts.Deletes
	}
	if cfg.Size <= 0 {
		return true
	}
	if sub == "" {
		sub = "tenant"
	}
	key := strings.ToLower(sub) + "|" + cat
	t.mu.Lock()
	b := t.buckets[key]
	if b == nil {
		b = &tokenBucket{cfg: cfg, tokens: cfg.Size, last: now}
		t.buckets[key] = b
	}
	remaining, wait, ok := b.take(now)
	t.mu.Unlock()
	w.Header().Set("x-ms-ratelimit-remaining-subscription-"+cat, strconv.Itoa(remaining))
	// ARM's regional front doors also report the subscription's global
	// budget; the emulator has one region, so both count the same bucket.
	w.Header().Set("x-ms-ratelimit-remaining-subscription-global-"+cat, strconv.Itoa(remaining))
	if !ok {
		secs := int(math.Ceil(wait.Seconds()))
		if secs < 1 {
			secs = 1
		}
		w.Header().Set("Retry-After", strconv.Itoa(secs))
	}
	return ok
}

func errThrottled(sub, method string) *armError {
	return newError(http.StatusTooManyRequests, "SubscriptionRequestsThrottled",
		"Number of '%s' requests for subscription '%s' exceeded the limit. Please try again after the time in the Retry-After header.",
		strings.TrimSuffix(category(method), "s"), sub)
}
