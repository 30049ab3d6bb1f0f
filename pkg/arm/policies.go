package arm

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"golang.org/x/sync/semaphore"
)

// callInfo is shared by every attempt of one logical request (azcore's
// operation values survive the retry policy's clones).
type callInfo struct {
	attempts atomic.Int32
	poll     bool
	// deadline is the operation's (not one try's) deadline; zero if none.
	deadline time.Time
	// tries counts azcore's tries: each has its own *http.Request, which
	// waitPolicy's resends of a throttled attempt reuse. Only the
	// attempts of one request touch it, one after another.
	tries  int32
	tryRaw *http.Request
}

type pollKey struct{}

// withPoll marks requests issued by the LRO loop, so they are counted and
// logged as polls.
func withPoll(ctx context.Context) context.Context { return context.WithValue(ctx, pollKey{}, true) }

type userAgentPolicy struct{ ua string }

func (p *userAgentPolicy) Do(req *policy.Request) (*http.Response, error) {
	req.Raw().Header.Set("User-Agent", p.ua)
	return req.Next()
}

// callPolicy runs once per logical request, before the retry policy.
type callPolicy struct{ c *Client }

func (p *callPolicy) Do(req *policy.Request) (*http.Response, error) {
	ci := &callInfo{}
	ci.poll, _ = req.Raw().Context().Value(pollKey{}).(bool)
	ci.deadline, _ = req.Raw().Context().Deadline()
	req.SetOperationValue(ci)
	p.c.stats.call(ci.poll)
	return req.Next()
}

// slotPolicy bounds in-flight attempts to Options.Concurrency, whatever
// the caller's own parallelism: ARM's per-subscription quotas are shared,
// and the pacer's model goes stale with many unanswered requests.
type slotPolicy struct{ slots *semaphore.Weighted }

func (p *slotPolicy) Do(req *policy.Request) (*http.Response, error) {
	if err := p.slots.Acquire(req.Raw().Context(), 1); err != nil {
		return nil, err
	}
	defer p.slots.Release(1)
	return req.Next()
}

// pacingPolicy takes a token from the modelled bucket before every attempt
// (ARM charges retries too) and feeds every response back into the model.
type pacingPolicy struct {
	p       *pacer
	enabled bool
}

func (pp *pacingPolicy) Do(req *policy.Request) (*http.Response, error) {
	sub := subscriptionOf(req.Raw().URL.Path)
	class := classOf(req.Raw().Method)
	prov := providerOf(req.Raw().URL.Path)
	var t ticket
	if pp.enabled {
		var err error
		t, err = pp.p.acquireFor(req.Raw().Context(), sub, class, prov)
		if err != nil {
			var be *blockedError
			if errors.As(err, &be) {
				e := &Error{Method: req.Raw().Method, ID: req.Raw().URL.Path, StatusCode: http.StatusTooManyRequests,
					Code: "TooManyRequests", Message: "ARM throttled this subscription's " + class.String() + " for longer than this request may wait"}
				return nil, &ThrottledError{ARM: e, RetryAfter: be.wait, Until: be.until, Limit: pp.p.maxWaitCtx(req)}
			}
			return nil, err
		}
	}
	resp, err := req.Next()
	pp.p.observeFor(sub, class, prov, t, resp)
	return resp, err
}

// attemptPolicy counts and logs each HTTP attempt.
type attemptPolicy struct{ c *Client }

func (p *attemptPolicy) Do(req *policy.Request) (*http.Response, error) {
	var ci callInfo
	var cip *callInfo
	if req.OperationValue(&cip) && cip != nil {
		ci.poll = cip.poll
	} else {
		cip = &ci
	}
	attempt := cip.attempts.Add(1)
	if cip.tryRaw != req.Raw() {
		cip.tryRaw = req.Raw()
		cip.tries++
	}
	var reqBody []byte
	if p.c.opts.Log != nil && p.c.opts.Verbosity >= VerbosityBodies {
		// Read before sending: the transport consumes the body.
		if b := req.Body(); b != nil {
			reqBody, _ = io.ReadAll(b)
			_, _ = b.Seek(0, io.SeekStart)
		}
	}
	start := time.Now()
	resp, err := req.Next()
	d := time.Since(start)
	p.c.stats.attempt(req.Raw().Method, attempt, resp, err)
	p.c.logAttempt(req, reqBody, attempt, cip.poll, resp, err, d)
	p.c.noticeRetry(req, cip, cip.tries, attempt, resp, err)
	return resp, err
}
