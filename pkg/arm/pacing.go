package arm

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// pacer models ARM's throttling: per subscription and per class (reads,
// writes, deletes) a token bucket of Size tokens refilled at Refill/s.
// Every attempt takes a token from the model first and waits when the
// model is empty, so a large run slows to the refill rate instead of
// being answered 429: a 429 costs its Retry-After (seconds), and an
// empty bucket throttles every other tool on the subscription too.
//
// The model follows the server: each response's
// x-ms-ratelimit-remaining-subscription-<class> is the server's bucket
// right after it charged that request. Two estimates come from it:
//
//   - remaining - (attempts we started after this one): what the server
//     has left if every later attempt has reached it. It can be too high
//     when an earlier attempt is still on its way (goroutines and
//     connections reorder requests), so it is only used to LOWER the
//     model: another client on the subscription shows up here.
//   - remaining - (other attempts still unanswered) - (attempts answered
//     since this one was charged): every attempt the server charged after
//     this one is in one of those two sets, so this is a lower bound
//     whatever the order, and it may RAISE the model (after a 429, or
//     when the real bucket is bigger than the default) when it is the
//     newest response: an older one cannot know what another client on
//     the subscription spent since.
//
// With this client alone on the subscription the model is exact (it
// charges every attempt, and refills as ARM does), so the headers mostly
// confirm it; the reserve covers the rounding of remaining counts.
type pacer struct {
	opts  Options
	stats *statsCollector
	now   func() time.Time
	sleep func(context.Context, time.Duration) error

	mu      sync.Mutex
	buckets map[bucketKey]*bucketModel
}

type bucketKey struct {
	sub   string
	class class
}

type bucketModel struct {
	size, refill float64
	tokens       float64
	last         time.Time
	sent         uint64          // attempts charged so far; seq of the last one
	inflight     int             // charged attempts not yet answered
	pending      map[uint64]bool // their sequence numbers
	answered     uint64          // charged attempts answered so far
	applied      uint64          // highest seq whose response raised or confirmed the model
	blockedUntil time.Time
}

func newPacer(opts Options, stats *statsCollector) *pacer {
	return &pacer{
		opts:    opts,
		stats:   stats,
		now:     time.Now,
		sleep:   sleepCtx,
		buckets: map[bucketKey]*bucketModel{},
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *pacer) bucket(sub string, k class, now time.Time) *bucketModel {
	key := bucketKey{sub, k}
	b := p.buckets[key]
	if b == nil {
		def := p.opts.Reads
		switch k {
		case classWrite:
			def = p.opts.Writes
		case classDelete:
			def = p.opts.Deletes
		}
		if def.Size <= 0 {
			def.Size = 1
		}
		if def.Refill <= 0 {
			def.Refill = 1
		}
		b = &bucketModel{size: def.Size, refill: def.Refill, tokens: def.Size, last: now}
		p.buckets[key] = b
	}
	// Refill up to now.
	if dt := now.Sub(b.last).Seconds(); dt > 0 {
		b.tokens = math.Min(b.size, b.tokens+dt*b.refill)
		b.last = now
	}
	return b
}

// ticket identifies a charged attempt: its sequence number in the bucket
// and how many attempts had been answered when it was charged.
type ticket struct {
	seq, answered uint64
}

// acquire waits until the modelled bucket has a token beyond the reserve,
// and takes it.
func (p *pacer) acquire(ctx context.Context, sub string, k class) (ticket, error) {
	var waited time.Duration
	defer func() {
		if waited > 0 {
			p.stats.waited(waited)
		}
	}()
	for {
		p.mu.Lock()
		now := p.now()
		b := p.bucket(sub, k, now)
		var wait time.Duration
		reserve := math.Min(p.opts.PacingReserve, b.size-1)
		if reserve < 0 {
			reserve = 0
		}
		switch {
		case now.Before(b.blockedUntil):
			wait = b.blockedUntil.Sub(now)
			if dl, ok := ctx.Deadline(); ok && b.blockedUntil.After(dl) {
				// Sleeping would only end in the timeout: say so now.
				until := b.blockedUntil
				p.mu.Unlock()
				return ticket{}, &blockedError{until: until, wait: wait}
			}
		case b.tokens-reserve >= 1:
			b.tokens--
			b.sent++
			b.inflight++
			if b.pending == nil {
				b.pending = map[uint64]bool{}
			}
			b.pending[b.sent] = true
			t := ticket{seq: b.sent, answered: b.answered}
			p.mu.Unlock()
			return t, nil
		default:
			need := 1 + reserve - b.tokens
			wait = time.Duration(need / b.refill * float64(time.Second))
			if wait < time.Millisecond {
				wait = time.Millisecond
			}
		}
		p.mu.Unlock()
		start := p.now()
		if err := p.sleep(ctx, wait); err != nil {
			return ticket{}, err
		}
		waited += p.now().Sub(start)
	}
}

// observe feeds an attempt's outcome back into the model; resp is nil
// when the attempt got no response. The zero ticket marks attempts that
// were not charged (pacing off).
func (p *pacer) observe(sub string, k class, t ticket, resp *http.Response) {
	seq := t.seq
	scope := "subscription"
	if sub == "" {
		scope = "tenant"
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	b := p.bucket(sub, k, now)
	// Attempts answered while this one was out (read before counting it).
	answeredSince := float64(b.answered - t.answered)
	if seq > 0 {
		if b.inflight > 0 {
			b.inflight--
		}
		delete(b.pending, seq)
		b.answered++
	}
	if resp == nil {
		return
	}

	// Network answers 429 RetryableErrorDueToAnotherOperation when the
	// target is locked by another operation: a busy resource, not an
	// empty bucket, so other requests need not stop.
	if resp.StatusCode == http.StatusTooManyRequests && !IsRetryableCode(errorCode(resp)) {
		// The server's bucket is empty: stop everyone in this class until
		// its Retry-After has passed (the retry policy waits as long for
		// the throttled request itself).
		b.tokens = 0
		// A wait longer than the client ever spends is handed to the
		// user (ThrottledError), not imposed on every later request.
		if ra := retryAfter(resp.Header); ra > 0 && ra <= p.maxBlock() {
			if until := now.Add(ra); until.After(b.blockedUntil) {
				b.blockedUntil = until
			}
		}
	}

	h := resp.Header.Get("x-ms-ratelimit-remaining-" + scope + "-" + k.String())
	if h == "" && scope == "tenant" {
		// Some servers (the emulator) name tenant-level buckets like
		// subscription ones.
		h = resp.Header.Get("x-ms-ratelimit-remaining-subscription-" + k.String())
	}
	if h == "" {
		return
	}
	remaining, err := strconv.ParseFloat(strings.TrimSpace(h), 64)
	if err != nil || remaining < 0 {
		return
	}
	if remaining > b.size {
		// The real bucket is bigger than the default we assumed.
		b.size = remaining
	}
	if seq == 0 {
		// Pacing off: nothing to anchor the estimate to.
		return
	}
	// Attempts sent after this one and still unanswered may reach the
	// server after it; those already answered either came before it
	// (counted in remaining) or lowered the model with their own remaining. Subtracting every
	// attempt sent since (the first version) counted reordered ones twice:
	// after 200 parallel GETs the model sank far below the real bucket and
	// stalled reads that had tokens to spare (BENCHMARKS.md, Apply200DAG).
	if later := remaining - float64(b.pendingAfter(seq)); later < b.tokens {
		b.tokens = later
	}
	// Only the newest news may raise the model: an older response cannot
	// know what another client spent since.
	if seq > b.applied {
		b.applied = seq
		if safe := remaining - float64(b.inflight) - answeredSince; safe > b.tokens {
			b.tokens = math.Min(b.size, safe)
		}
	}
}

// pendingAfter counts unanswered attempts charged after seq.
func (b *bucketModel) pendingAfter(seq uint64) int {
	n := 0
	for s := range b.pending {
		if s > seq {
			n++
		}
	}
	return n
}

// retryAfter reads Retry-After (seconds or HTTP date) and ARM's
// millisecond variants.
func retryAfter(h http.Header) time.Duration {
	for _, name := range []string{"retry-after-ms", "x-ms-retry-after-ms"} {
		if v := h.Get(name); v != "" {
			if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
				return time.Duration(ms * float64(time.Millisecond))
			}
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return time.Until(t)
	}
	return 0
}

// maxBlock is the longest Retry-After the pacer imposes on a class: the
// retry policy's MaxRetryDelay (azcore's 60 s when unset).
func (p *pacer) maxBlock() time.Duration {
	if p.opts.MaxRetryDelay > 0 {
		return p.opts.MaxRetryDelay
	}
	return time.Minute
}

// blockedError: the class is throttled (a 429's Retry-After) past the
// request's deadline.
type blockedError struct {
	until time.Time
	wait  time.Duration
}

func (e *blockedError) Error() string { return "throttled until " + e.until.Format(time.RFC3339) }
