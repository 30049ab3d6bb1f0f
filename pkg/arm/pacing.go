package arm

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// pacer models ARM's throttling: per subscription and per class (reads,
// writes, deletes) a token bucket of Size tokens refilled at Refill/s,
// and, once a resource provider shows it meters on its own (a 429 of its
// own, or a low x-ms-ratelimit-remaining-resource), a bucket per provider
// too. Every attempt takes a token from each model that covers it and
// waits when one is empty, so a large run slows to the refill rate
// instead of being answered 429: a 429 costs its Retry-After, and an
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
// The refill rate is learned too: between two responses at least
// rateWindow apart, the server's bucket moved by (remaining2 - remaining1)
// while it charged the attempts we sent in between, so
// (remaining2 - remaining1 + our attempts) / dt is the refill left for
// us: the server's refill minus what other clients on the subscription
// spend. The model refills at that rate (smoothed), so a bucket smaller
// or slower than ARM's defaults, or one shared with another apply, slows
// the client down instead of drawing 429s.
//
// Another client on the subscription cannot be seen directly, only in the
// counts: when the server's count fell by more than this client could
// have charged in between, somebody else spends too. From then on (and
// after any 429 of the bucket) the bucket is shared: the client keeps a
// reserve of a fraction of the bucket for the other client's requests in
// flight and for headers that are stale by the time they arrive, and has
// at most half of what is left above it in flight. A 429 halves the rate
// (once per round of attempts), stops the model from refilling until the
// Retry-After ends, and sends one attempt at a time after it until a fresh
// count arrives: waiters released together at the end of the block were
// the largest source of 429s with two clients.
type pacer struct {
	opts   Options
	stats  *statsCollector
	now    func() time.Time
	sleep  func(context.Context, time.Duration) error
	onWait func(WaitEvent)

	// guards turns on the first-answer probe and the in-flight bound
	// (off in unit tests of the model's arithmetic, which charge
	// attempts without answering them).
	guards bool

	mu      sync.Mutex
	buckets map[bucketKey]*bucketModel
	// probes holds, per (subscription, class, provider), whether an
	// answer came back yet: until then one attempt at a time goes to a
	// provider, whose own limit may be far below ARM's bucket.
	probes map[bucketKey]*probe
}

type probe struct {
	inflight bool
	heard    chan struct{}
	done     bool
}

// bucketKey names one modelled bucket: provider is "" for the
// subscription's (or tenant's) bucket, else the lower-cased namespace.
type bucketKey struct {
	sub      string
	class    class
	provider string
}

type bucketModel struct {
	size, refill float64
	// maxRefill bounds the learned refill rate.
	maxRefill    float64
	tokens       float64
	last         time.Time
	sent         uint64          // attempts charged so far; seq of the last one
	inflight     int             // charged attempts not yet answered
	pending      map[uint64]bool // their sequence numbers
	answered     uint64          // charged attempts answered so far
	applied      uint64          // highest seq whose response raised or confirmed the model
	blockedUntil time.Time
	// anchor is the response the next refill estimate is measured from.
	anchor struct {
		at        time.Time
		remaining float64
		seq       uint64
	}
	// announced is the end of the last wait reported to OnWait;
	// waiters counts requests sleeping on this bucket.
	announced time.Time
	waiters   int
	// cutSeq is b.sent when a 429 last cut the refill rate.
	cutSeq uint64
	// name is the provider's namespace as first seen ("" for the
	// subscription's bucket).
	name string
	// heard is closed by the bucket's first answer. Until then one
	// attempt at a time goes out: the default model may be far larger
	// than the real bucket, and a burst sent on it alone is answered 429.
	heard     chan struct{}
	heardDone bool
	// lastRemaining is the newest remaining count; answeredCh is closed
	// and replaced on every answer (waiters for in-flight room).
	lastRemaining float64
	haveRemaining bool
	answeredCh    chan struct{}
	// observedMax is the largest remaining count seen: the size the
	// shared reserve is a fraction of (size starts at the configured
	// default and only grows).
	observedMax float64
	// sharedAt is when another client's spending (or a 429) last showed:
	// the bucket counts as shared for sharedFor after it.
	sharedAt time.Time
	// reprobe, when non-zero, is b.sent at the last 429: until an attempt
	// charged after it is answered, one attempt at a time goes out.
	reprobe uint64
	// anchor's attempts in flight when it was charged (it cannot know
	// whether they reached the server before or after it).
	anchorNoise float64
	// watchedSince is the first answer's time: until presumeShared after
	// it, in-flight attempts are bounded as on a shared bucket, since two
	// clients started together drain it before either can tell the other
	// is there.
	watchedSince time.Time
}

// Sharing constants: how much of a shared bucket the client leaves for
// the others, and how long one sign of another client counts.
const (
	sharedReserveFraction = 0.15
	sharedMinReserve      = 4 // covers the other client's 2 in flight
	sharedFor             = 5 * time.Minute
	presumeShared         = time.Second
	// othersThreshold: a count that fell by this much more than this
	// client can explain shows another client (1 is rounding).
	othersThreshold = 2
)

// shared reports whether another client's spending (or a 429) showed
// recently.
func (b *bucketModel) shared(now time.Time) bool {
	return !b.sharedAt.IsZero() && now.Sub(b.sharedAt) < sharedFor
}

// reserve is how many tokens of b the client leaves unspent: the
// configured reserve, or, on a shared bucket whose size was seen, a
// fraction of it.
func (p *pacer) reserve(b *bucketModel, now time.Time) float64 {
	r := p.opts.PacingReserve
	if b.shared(now) && b.observedMax > 0 {
		r = math.Max(r, math.Max(sharedMinReserve, sharedReserveFraction*b.observedMax))
	}
	return math.Max(math.Min(r, b.size-1), 0)
}

// inflightRoom reports whether another attempt may go out: at most half
// of what the server's last count has above the reserve (at least 2) in
// flight, so two clients that both see the same count do not both spend
// all of it at once; on a shared bucket a quarter, because the other
// client's count is a round trip old, in which each client may have
// charged as much again. After a 429, one until a fresh count comes back.
func (p *pacer) inflightRoom(b *bucketModel, now time.Time) bool {
	if b.reprobe > 0 && b.inflight > 0 {
		return false
	}
	if !b.haveRemaining {
		return true
	}
	share := 2.0
	if b.shared(now) || now.Sub(b.watchedSince) < presumeShared {
		share = 4
	}
	return float64(b.inflight) < math.Max(2, (b.lastRemaining-p.reserve(b, now))/share)
}

func (b *bucketModel) changed() chan struct{} {
	if b.answeredCh == nil {
		b.answeredCh = make(chan struct{})
	}
	return b.answeredCh
}

// Learning constants. rateWindow is long enough for several responses
// at ARM's refill rates (a few per second) and short enough to follow a
// second client starting up; minRefill keeps a fully spent bucket from
// stalling the client forever (the server refills, and the headers will
// say so).
const (
	rateWindow     = 300 * time.Millisecond
	minRefill      = 0.2
	refillCeiling  = 4    // learned refill is at most 4x the configured one
	providerGrowth = 0.05 // tokens/s added to a provider's rate per success
	// announceEvery: a wait is reported when it ends later than the last
	// reported one by more than this.
	announceEvery = time.Second
	// minAnnounced: shorter waits are not worth a progress line.
	minAnnounced = 250 * time.Millisecond
)

func newPacer(opts Options, stats *statsCollector) *pacer {
	return &pacer{
		opts:    opts,
		stats:   stats,
		now:     time.Now,
		sleep:   sleepCtx,
		onWait:  opts.OnWait,
		guards:  true,
		buckets: map[bucketKey]*bucketModel{},
		probes:  map[bucketKey]*probe{},
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

func (p *pacer) classDefault(k class) Bucket {
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
	return def
}

// bucket returns the subscription's model for a class, creating it from
// the configured defaults.
func (p *pacer) bucket(sub string, k class, now time.Time) *bucketModel {
	key := bucketKey{sub: sub, class: k}
	b := p.buckets[key]
	if b == nil {
		def := p.classDefault(k)
		b = &bucketModel{size: def.Size, refill: def.Refill, maxRefill: def.Refill * refillCeiling, tokens: def.Size, last: now,
			heard: make(chan struct{})}
		p.buckets[key] = b
	}
	b.refillTo(now)
	return b
}

// providerBucket returns a provider's model, or nil when the provider has
// not shown limits of its own (create: make one).
func (p *pacer) providerBucket(sub string, k class, provider string, now time.Time, create bool) *bucketModel {
	if provider == "" {
		return nil
	}
	key := bucketKey{sub: sub, class: k, provider: strings.ToLower(provider)}
	b := p.buckets[key]
	if b == nil {
		if !create {
			return nil
		}
		// Start small and slow: all that is known is that the provider
		// throttles; successes raise the rate, 429s halve it.
		def := p.classDefault(k)
		b = &bucketModel{size: math.Max(p.opts.PacingReserve+1, 5), refill: math.Max(def.Refill/4, minRefill),
			maxRefill: def.Refill, tokens: 0, last: now, name: provider}
		p.buckets[key] = b
	}
	b.refillTo(now)
	return b
}

func (b *bucketModel) refillTo(now time.Time) {
	if dt := now.Sub(b.last).Seconds(); dt > 0 {
		b.tokens = math.Min(b.size, b.tokens+dt*b.refill)
		b.last = now
	}
}

// ticket identifies a charged attempt: its sequence number in each bucket
// and how many attempts had been answered when it was charged.
type ticket struct {
	seq, answered   uint64
	pseq, panswered uint64 // in the provider's bucket, if any
}

// wait is how long until b can give a token beyond the reserve (0: now).
func (p *pacer) waitFor(b *bucketModel, now time.Time) (time.Duration, bool) {
	if now.Before(b.blockedUntil) {
		return b.blockedUntil.Sub(now), true
	}
	reserve := p.reserve(b, now)
	if b.tokens-reserve >= 1 {
		return 0, false
	}
	need := 1 + reserve - b.tokens
	w := time.Duration(need / b.refill * float64(time.Second))
	return max(w, time.Millisecond), false
}

func (b *bucketModel) charge() (seq, answered uint64) {
	b.tokens--
	b.sent++
	b.inflight++
	if b.pending == nil {
		b.pending = map[uint64]bool{}
	}
	b.pending[b.sent] = true
	return b.sent, b.answered
}

// acquireFor waits until the subscription's modelled bucket (and the
// provider's, if it has one) has a token beyond the reserve, and takes it.
func (p *pacer) acquireFor(ctx context.Context, sub string, k class, provider string) (ticket, error) {
	var waited time.Duration
	defer func() {
		if waited > 0 {
			p.stats.waited(waited)
		}
	}()
	for {
		p.mu.Lock()
		now := p.now()
		sb := p.bucket(sub, k, now)
		pb := p.providerBucket(sub, k, provider, now, false)
		if p.guards && !sb.heardDone && sb.inflight > 0 {
			heard := sb.heard
			p.mu.Unlock()
			select {
			case <-heard:
			case <-ctx.Done():
				return ticket{}, ctx.Err()
			}
			continue
		}
		if pr := p.probeFor(sub, k, provider); p.guards && pr != nil && !pr.done {
			if pr.inflight {
				heard := pr.heard
				p.mu.Unlock()
				select {
				case <-heard:
				case <-ctx.Done():
					return ticket{}, ctx.Err()
				}
				continue
			}
		}
		room := sb
		if pb != nil && !p.inflightRoom(pb, now) {
			room = pb
		}
		if p.guards && !p.inflightRoom(room, now) {
			ch := room.changed()
			p.mu.Unlock()
			select {
			case <-ch:
			case <-ctx.Done():
				return ticket{}, ctx.Err()
			}
			continue
		}
		wait, blocked := p.waitFor(sb, now)
		waitOn := sb
		if pb != nil {
			if pw, pbl := p.waitFor(pb, now); pw > wait {
				wait, blocked, waitOn = pw, pbl, pb
			}
		}
		if wait == 0 {
			if pr := p.probeFor(sub, k, provider); p.guards && pr != nil && !pr.done {
				pr.inflight = true
			}
			var t ticket
			t.seq, t.answered = sb.charge()
			if pb != nil {
				t.pseq, t.panswered = pb.charge()
			}
			p.mu.Unlock()
			return t, nil
		}
		if blocked {
			if dl, ok := ctx.Deadline(); ok && waitOn.blockedUntil.After(dl) {
				// Sleeping would only end in the timeout: say so now.
				until := waitOn.blockedUntil
				p.mu.Unlock()
				return ticket{}, &blockedError{until: until, wait: wait}
			}
		}
		// The stall, not this request's share of it: every waiter ahead
		// needs a token too.
		stall := wait
		if !blocked {
			stall = wait + time.Duration(float64(waitOn.waiters)/waitOn.refill*float64(time.Second))
		}
		var ev *WaitEvent
		if until := now.Add(stall); stall >= minAnnounced && until.After(waitOn.announced.Add(announceEvery)) {
			waitOn.announced = until
			ev = &WaitEvent{Subscription: sub, Class: k.String(), Provider: waitOn.name, Wait: stall, Until: until, Throttled: blocked}
		}
		waitOn.waiters++
		p.mu.Unlock()
		if ev != nil && p.onWait != nil {
			p.onWait(*ev)
		}
		start := p.now()
		err := p.sleep(ctx, wait)
		p.mu.Lock()
		waitOn.waiters--
		p.mu.Unlock()
		if err != nil {
			return ticket{}, err
		}
		waited += p.now().Sub(start)
	}
}

// observeFor feeds an attempt's outcome back into the model; resp is nil
// when the attempt got no response. The zero ticket marks attempts that
// were not charged (pacing off).
func (p *pacer) observeFor(sub string, k class, provider string, t ticket, resp *http.Response) {
	scope := "subscription"
	if sub == "" {
		scope = "tenant"
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	b := p.bucket(sub, k, now)
	pb := p.providerBucket(sub, k, provider, now, false)
	b.answer(t.seq, t.answered)
	if !b.heardDone {
		b.heardDone = true
		close(b.heard)
	}
	if pr := p.probeFor(sub, k, provider); pr != nil && !pr.done && t.seq > 0 {
		pr.done = true
		close(pr.heard)
	}
	if pb != nil {
		pb.answer(t.pseq, t.panswered)
	}
	if resp == nil {
		return
	}

	h := resp.Header.Get("x-ms-ratelimit-remaining-" + scope + "-" + k.String())
	if h == "" && scope == "tenant" {
		// Some servers (the emulator) name tenant-level buckets like
		// subscription ones.
		h = resp.Header.Get("x-ms-ratelimit-remaining-subscription-" + k.String())
	}
	remaining, haveRemaining := parseRemaining(h)

	// Network answers 429 RetryableErrorDueToAnotherOperation when the
	// target is locked by another operation: a busy resource, not an
	// empty bucket, so other requests need not stop.
	if resp.StatusCode == http.StatusTooManyRequests && !IsRetryableCode(errorCode(resp)) {
		target := b
		// A 429 while ARM's own bucket has room came from the resource
		// provider's limits: model the provider, leave the others alone.
		if provider != "" && !isSubscriptionThrottle(errorCode(resp)) && (!haveRemaining || remaining > p.opts.PacingReserve+1) {
			if pb == nil {
				pb = p.providerBucket(sub, k, provider, now, true)
			}
			target = pb
		}
		target.tokens = 0
		// Somebody spent what the model thought was there.
		target.sharedAt = now
		// One cut per round of attempts: the 429s of attempts sent
		// before the last cut say nothing new about the rate.
		seq := t.seq
		if target != b {
			seq = t.pseq
		}
		// A wait longer than the client ever spends is handed to the
		// user (ThrottledError), not imposed on every later request:
		// neither as a block nor as a cut rate.
		ra := retryAfter(resp.Header)
		honoured := ra <= p.maxBlock()
		if honoured && (seq > target.cutSeq || seq == 0 && target.cutSeq == 0) {
			target.refill = math.Max(target.refill/2, minRefill)
			target.cutSeq = target.sent
			target.reprobe = target.sent
		}
		if ra > 0 && honoured {
			if until := now.Add(ra); until.After(target.blockedUntil) {
				target.blockedUntil = until
				// The model stays empty until the block ends: the
				// server's refill meanwhile is the other clients' too,
				// and the first answer after the block says what is left.
				target.last = until
			}
		}
	} else if pb != nil && resp.StatusCode < 400 && t.pseq > 0 {
		pb.refill = math.Min(pb.refill+providerGrowth, pb.maxRefill)
	}

	// The provider's own remaining count, when it reports one.
	if provider != "" {
		if r, ok := providerRemaining(resp.Header, provider); ok {
			if pb == nil && r < float64(2*p.opts.Concurrency)+p.opts.PacingReserve {
				pb = p.providerBucket(sub, k, provider, now, true)
				pb.tokens = r
			}
			if pb != nil && t.pseq > 0 {
				pb.follow(r, t.pseq, t.panswered, now, true)
			}
		}
	}

	if !haveRemaining || t.seq == 0 {
		if haveRemaining && remaining > b.size {
			b.size = remaining
		}
		return
	}
	b.follow(remaining, t.seq, t.answered, now, true)
}

// probeFor returns the provider's probe state (nil without a provider).
func (p *pacer) probeFor(sub string, k class, provider string) *probe {
	if provider == "" {
		return nil
	}
	key := bucketKey{sub: sub, class: k, provider: strings.ToLower(provider)}
	pr := p.probes[key]
	if pr == nil {
		pr = &probe{heard: make(chan struct{})}
		p.probes[key] = pr
	}
	return pr
}

// answer marks a charged attempt as answered.
func (b *bucketModel) answer(seq, _ uint64) {
	if seq == 0 {
		return
	}
	if b.answeredCh != nil {
		close(b.answeredCh)
		b.answeredCh = nil
	}
	if b.reprobe > 0 && seq > b.reprobe {
		b.reprobe = 0
	}
	if b.inflight > 0 {
		b.inflight--
	}
	delete(b.pending, seq)
	b.answered++
}

// follow moves the model toward a response's remaining count (see the
// pacer's comment) and learns the refill rate from it.
func (b *bucketModel) follow(remaining float64, seq, answeredAtCharge uint64, now time.Time, learnRate bool) {
	if remaining > b.size {
		// The real bucket is bigger than the default we assumed.
		b.size = remaining
	}
	b.observedMax = math.Max(b.observedMax, remaining+1)
	// Attempts answered while this one was out (this one included in
	// b.answered already, so not counted).
	answeredSince := float64(b.answered-answeredAtCharge) - 1
	if answeredSince < 0 {
		answeredSince = 0
	}
	// Attempts sent after this one and still unanswered may reach the
	// server after it; those already answered either came before it
	// (counted in remaining) or lowered the model with their own
	// remaining. Subtracting every attempt sent since counted reordered
	// ones twice: after 200 parallel GETs the model sank far below the
	// real bucket and stalled reads that had tokens to spare.
	if later := remaining - float64(b.pendingAfter(seq)); later < b.tokens {
		b.tokens = later
	}
	// Only the newest news may raise the model, or teach the rate: an
	// older response cannot know what another client spent since.
	if seq <= b.applied {
		return
	}
	b.applied = seq
	if !b.haveRemaining {
		b.watchedSince = now
	}
	b.lastRemaining, b.haveRemaining = remaining, true
	if safe := remaining - float64(b.inflight) - answeredSince; safe > b.tokens {
		b.tokens = math.Min(b.size, safe)
	}
	if !learnRate {
		return
	}
	a := &b.anchor
	if a.seq == 0 {
		a.at, a.remaining, a.seq = now, remaining, seq
		b.anchorNoise = float64(seq-1) - float64(answeredAtCharge)
		return
	}
	// The count fell by more than this client can have charged since the
	// anchor: attempts charged in between, the anchor's own attempts in
	// flight, and those charged after this one (which may have overtaken
	// it). The server's refill only hides spending, so this never sees a
	// client that is not there.
	mine := float64(seq-a.seq) + b.anchorNoise + float64(b.sent-seq)
	if a.remaining-remaining-mine >= othersThreshold {
		b.sharedAt = now
	}
	dt := now.Sub(a.at)
	if dt < rateWindow {
		return
	}
	// A full bucket hides the rate (refill stops at the top), but says
	// the client spends less than it may: probe upward.
	if remaining >= b.size-1 {
		b.refill = math.Min(b.refill*1.5, b.maxRefill)
	} else if a.remaining < b.size-1 {
		est := (remaining - a.remaining + float64(seq-a.seq)) / dt.Seconds()
		est = math.Min(math.Max(est, minRefill), b.maxRefill)
		b.refill = (b.refill + est) / 2
	}
	a.at, a.remaining, a.seq = now, remaining, seq
	b.anchorNoise = float64(seq-1) - float64(answeredAtCharge)
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

// maxRemaining bounds what a remaining count can teach the model. ARM
// documents buckets of 250 reads and 200 writes or deletes per principal,
// a subscription-wide bucket of 15 times that, and (before its token
// buckets) hourly counts of up to 15,000; 20,000 leaves headroom. A larger
// count (a proxy's "1e18", "Inf") would otherwise raise the bucket for the
// rest of the process and send every request at once.
const maxRemaining = 20_000

func parseRemaining(h string) (float64, bool) {
	if h == "" {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(h), 64)
	return saneRemaining(v, err)
}

// saneRemaining accepts a parsed count: not negative, a number, at most
// maxRemaining.
func saneRemaining(v float64, err error) (float64, bool) {
	if err != nil && !errors.Is(err, strconv.ErrRange) || v < 0 || math.IsNaN(v) {
		return 0, false
	}
	return math.Min(v, maxRemaining), true
}

// isSubscriptionThrottle reports ARM's own throttling codes (as opposed
// to a resource provider's).
func isSubscriptionThrottle(code string) bool {
	switch strings.ToLower(code) {
	case "subscriptionrequeststhrottled", "tenantrequeststhrottled":
		return true
	}
	return false
}

// providerRemaining reads x-ms-ratelimit-remaining-resource, which
// resource providers with their own limits (Compute, Storage) send as
// "Microsoft.Compute/GetVM3Min;239,Microsoft.Compute/GetVM30Min;1199":
// the smallest count of the provider's policies.
func providerRemaining(h http.Header, provider string) (float64, bool) {
	v := h.Get("x-ms-ratelimit-remaining-resource")
	if v == "" {
		return 0, false
	}
	best, found := 0.0, false
	for _, part := range strings.Split(v, ",") {
		name, count, ok := strings.Cut(strings.TrimSpace(part), ";")
		if !ok {
			continue
		}
		ns, _, _ := strings.Cut(name, "/")
		if !strings.EqualFold(ns, provider) {
			continue
		}
		n, ok := saneRemaining(strconv.ParseFloat(strings.TrimSpace(count), 64))
		if !ok {
			continue
		}
		if !found || n < best {
			best, found = n, true
		}
	}
	return best, found
}

// providerOf is the resource provider a request path is served by: the
// namespace of its last provider block ("" for resource groups,
// subscriptions and the providers API, which ARM serves itself).
func providerOf(path string) string {
	p, ok := armid.ParsePath(path)
	if !ok || (p.Kind != armid.PathResource && p.Kind != armid.PathCollection) || strings.EqualFold(p.Provider, "Microsoft.Resources") {
		return ""
	}
	return p.Provider
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

// WaitEvent says that requests wait for ARM's budget: when, how long and
// for which bucket. Options.OnWait receives one when a wait of at least
// 250 ms starts that ends more than a second after the last one reported
// for the same bucket, so a progress printer gets a line per stall, not
// per request.
type WaitEvent struct {
	Subscription string
	// Class is "reads", "writes" or "deletes".
	Class string
	// Provider is "" for the subscription's bucket, else the resource
	// provider whose own limit is spent ("Microsoft.Compute").
	Provider string
	// Wait is how long the request expects to wait; Until when it ends.
	Wait  time.Duration
	Until time.Time
	// Throttled is true when ARM answered 429 and its Retry-After is
	// being waited out; false when the modelled budget ran low first.
	Throttled bool
}

// Bucket names the bucket for people: "subscription reads" or
// "Microsoft.Compute writes".
func (e WaitEvent) Bucket() string {
	if e.Provider != "" {
		return e.Provider + " " + e.Class
	}
	if e.Subscription == "" {
		return "tenant " + e.Class
	}
	return "subscription " + e.Class
}
