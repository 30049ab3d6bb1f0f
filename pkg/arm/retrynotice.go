package arm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

// RetryEvent says that a request failed and will be sent again.
// Options.OnRetry receives one per retry, before the wait. It carries no
// credential, token, query string or response body: the path is redacted
// like a -v 4 log line and the reason is a status or a class of network
// error.
type RetryEvent struct {
	// Method is the HTTP method ("GET").
	Method string
	// Path is the request's path without host or query: a resource ID,
	// or an operation-status path for an LRO poll (Poll is then true).
	Path string
	Poll bool
	// Attempt is the number of the attempt about to be made: 2 for the
	// first retry. It counts every attempt of the request, as the -v 4
	// log's "(attempt N)" does.
	Attempt int
	// Delay is the wait before that attempt: the server's Retry-After
	// when it sent one (Exact), else the nominal backoff, which azcore
	// varies by -20%..+30%. Zero and not Exact when the pacer decides the
	// wait after a 429 without Retry-After (OnWait then reports it).
	Delay time.Duration
	Exact bool
	// Reason is short and safe to print: "connection refused",
	// "503 Service Unavailable", "429 Too Many Requests: retry after 12s".
	Reason string
}

// String is the line a CLI prints:
// "retrying GET /subscriptions/…/sa1: connection refused (attempt 2, next in ~1s)".
func (e RetryEvent) String() string {
	what := e.Path
	if e.Poll {
		what = "poll " + what
	}
	var next string
	switch {
	case e.Exact:
		next = "next in " + fmtDelay(e.Delay)
	case e.Delay > 0:
		next = "next in ~" + fmtDelay(e.Delay)
	default:
		next = "next when ARM's budget allows"
	}
	return fmt.Sprintf("retrying %s %s: %s (attempt %d, %s)", e.Method, what, e.Reason, e.Attempt, next)
}

func fmtDelay(d time.Duration) string {
	if d >= time.Second {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Millisecond).String()
}

// RetryNotices turns retry events into lines without repeating one for
// each parallel request: an event whose reason and attempt match a line
// given less than Window ago (one second when zero) gives none. The zero
// value is ready to use and safe for concurrent use.
type RetryNotices struct {
	Window time.Duration

	mu   sync.Mutex
	last map[retryKey]time.Time
}

type retryKey struct {
	reason  string
	attempt int
}

// Line returns the line to print for e, or false when it repeats one.
func (n *RetryNotices) Line(e RetryEvent) (string, bool) {
	w := n.Window
	if w <= 0 {
		w = time.Second
	}
	k := retryKey{reason: e.Reason, attempt: e.Attempt}
	now := time.Now()
	n.mu.Lock()
	defer n.mu.Unlock()
	if t, ok := n.last[k]; ok && now.Sub(t) < w {
		return "", false
	}
	if n.last == nil {
		n.last = map[retryKey]time.Time{}
	}
	for old, t := range n.last {
		if now.Sub(t) >= w {
			delete(n.last, old)
		}
	}
	n.last[k] = now
	return e.String(), true
}

// noticeRetry tells Options.OnRetry about an attempt that will be sent
// again. It runs in attemptPolicy, which sees every attempt but not the
// retry decisions made above it, so it applies the same rules in the same
// order: waitPolicy's (a 429 or 503 that asks for too long a wait ends
// the request; a throttling 429 is resent after the pacer's wait), then
// azcore's retry policy (the caller's context, non-retriable errors,
// shouldRetry or shouldRetryPost, MaxRetries, Retry-After over
// MaxRetryDelay). try is azcore's try number for this attempt.
func (c *Client) noticeRetry(req *policy.Request, ci *callInfo, try, attempt int32, resp *http.Response, err error) {
	if c.opts.OnRetry == nil {
		return
	}
	e, ok := c.retryEvent(req, ci, try, resp, err)
	if !ok {
		return
	}
	raw := req.Raw()
	e.Method = raw.Method
	e.Poll = ci.poll
	e.Attempt = int(attempt) + 1
	e.Path = c.opts.Secrets.Scrub(redactText(redactURL(&url.URL{Path: raw.URL.Path, RawPath: raw.URL.RawPath})))
	e.Reason = c.opts.Secrets.Scrub(e.Reason)
	c.opts.OnRetry(e)
}

func (c *Client) retryEvent(req *policy.Request, ci *callInfo, try int32, resp *http.Response, err error) (RetryEvent, bool) {
	ctx := req.Raw().Context()
	var ra time.Duration
	if resp != nil {
		ra = retryAfter(resp.Header)
	}
	if resp != nil && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable) {
		if ra > c.maxWait(req) {
			return RetryEvent{}, false // a ThrottledError for the user
		}
		throttle := resp.StatusCode == http.StatusTooManyRequests && !IsRetryableCode(errorCode(resp))
		if throttle && c.opts.Pacing && ctx.Err() == nil {
			return RetryEvent{Delay: ra, Exact: ra > 0, Reason: responseReason(resp, ra)}, true
		}
	}
	// The context here is the try's: canceled only with the caller's,
	// past its deadline either at the caller's deadline or at TryTimeout
	// (which azcore retries).
	if cerr := ctx.Err(); errors.Is(cerr, context.Canceled) ||
		(cerr != nil && !ci.deadline.IsZero() && !time.Now().Before(ci.deadline)) {
		return RetryEvent{}, false
	}
	var nr interface{ NonRetriable() }
	if err != nil && errors.As(err, &nr) {
		return RetryEvent{}, false
	}
	retry := shouldRetry
	if req.Raw().Method == http.MethodPost {
		retry = shouldRetryPost
	}
	if !retry(resp, err) {
		return RetryEvent{}, false
	}
	o := c.effectiveRetry()
	if try >= o.MaxRetries+1 {
		return RetryEvent{}, false
	}
	if ra > 0 {
		if ra > o.MaxRetryDelay {
			return RetryEvent{}, false
		}
		return RetryEvent{Delay: ra, Exact: true, Reason: responseReason(resp, ra)}, true
	}
	e := RetryEvent{Delay: nominalDelay(o, try)}
	if resp != nil {
		e.Reason = responseReason(resp, 0)
	} else {
		e.Reason = errorReason(err, c.opts.TryTimeout)
	}
	return e, true
}

// effectiveRetry is the retry options as azcore fills them in.
func (c *Client) effectiveRetry() policy.RetryOptions {
	o := policy.RetryOptions{MaxRetries: int32(c.opts.MaxRetries), RetryDelay: c.opts.RetryDelay, MaxRetryDelay: c.opts.MaxRetryDelay}
	switch {
	case o.MaxRetries < 0:
		o.MaxRetries = 0
	case o.MaxRetries == 0:
		o.MaxRetries = 3
	}
	switch {
	case o.MaxRetryDelay == 0:
		o.MaxRetryDelay = time.Minute
	case o.MaxRetryDelay < 0:
		o.MaxRetryDelay = math.MaxInt64
	}
	switch {
	case o.RetryDelay == 0:
		o.RetryDelay = 800 * time.Millisecond
	case o.RetryDelay < 0:
		o.RetryDelay = 0
	}
	return o
}

// nominalDelay is azcore's backoff before try+1 without its jitter:
// (2^try - 1) × RetryDelay, capped at MaxRetryDelay.
func nominalDelay(o policy.RetryOptions, try int32) time.Duration {
	if try >= 62 {
		return o.MaxRetryDelay
	}
	f := int64(1)<<try - 1
	if o.RetryDelay > 0 && f > int64(o.MaxRetryDelay/o.RetryDelay) {
		return o.MaxRetryDelay
	}
	return min(time.Duration(f)*o.RetryDelay, o.MaxRetryDelay)
}

// armCodeShape is what an ARM error code looks like; anything else is
// left out of a reason rather than risk printing body text.
var armCodeShape = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.]{0,79}$`)

// responseReason is the status, ARM's error code when it says more than
// the status, and the Retry-After asked for.
func responseReason(resp *http.Response, ra time.Duration) string {
	text := http.StatusText(resp.StatusCode)
	r := fmt.Sprintf("%d %s", resp.StatusCode, text)
	if code := errorCode(resp); armCodeShape.MatchString(code) && !strings.EqualFold(code, strings.ReplaceAll(text, " ", "")) {
		r += " (" + code + ")"
	}
	if ra > 0 {
		r += ": retry after " + fmtDelay(ra)
	}
	return r
}

// errorReason names the class of a network error. The error's own text
// repeats the request URL with its query, so it is only the fallback,
// without the URL and redacted.
func errorReason(err error, tryTimeout time.Duration) string {
	var dns *net.DNSError
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed before the answer"
	case errors.Is(err, context.DeadlineExceeded) && tryTimeout > 0:
		return "no answer within " + fmtDelay(tryTimeout)
	case errors.As(err, &dns):
		if dns.IsNotFound {
			return "host " + dns.Name + " not found"
		}
		return "DNS lookup of " + dns.Name + " failed"
	case errors.As(err, &ne) && ne.Timeout():
		return "timed out"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	msg := redactText(err.Error())
	if r := []rune(msg); len(r) > 120 {
		msg = string(r[:119]) + "…"
	}
	return msg
}
