package arm

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// Answers the client cannot use. A read whose body is not the JSON the
// caller asked for must never look like an empty resource: the apply
// engine would then write a body that drops everything it does not manage,
// or treat a failed listing as "nothing there". So every such answer is an
// error that says what came back and what to do.

// DefaultMaxResponseBytes bounds one response body (Options.MaxResponseBytes).
// ARM caps a resource body (a template deployment) at 4 MiB and its list
// pages are a few MiB at most; an endless body once grew the process to
// 5.7 GB.
const DefaultMaxResponseBytes = 64 << 20

// excerptLen is how much of an unusable body an error shows.
const excerptLen = 120

// DecodeError is a successful (2xx) answer whose body is not what the
// request reads: HTML from a proxy or login page, truncated or invalid
// JSON, JSON nested too deep, an empty body, or a JSON value that is not
// an object. Nothing is built from it.
type DecodeError struct {
	Method      string
	ID          string
	StatusCode  int
	ContentType string
	// Reason says what is wrong ("invalid JSON at byte 12: ...").
	Reason string
	// Excerpt is the start of a non-JSON body, with secrets scrubbed and
	// control characters removed; empty for JSON-looking bodies, which
	// may be a truncated resource with its secrets.
	Excerpt string
}

func (e *DecodeError) Error() string {
	var b strings.Builder
	ct := e.ContentType
	if ct == "" {
		ct = "no content type"
	}
	fmt.Fprintf(&b, "%s %s: %d answer is not a usable ARM response (%s): %s", e.Method, e.ID, e.StatusCode, ct, e.Reason)
	if e.Excerpt != "" {
		fmt.Fprintf(&b, "; it starts with %q", e.Excerpt)
	}
	b.WriteString("\n  hint: nothing was changed because of it; check --endpoint and any proxy or firewall between here and ARM (an HTML page is often a login, captive portal or error page), then re-run")
	return b.String()
}

// newDecodeError describes an unusable body.
func newDecodeError(sec *secret.Registry, method, id string, resp *http.Response, body []byte, reason error) *DecodeError {
	e := &DecodeError{Method: method, ID: id, StatusCode: resp.StatusCode, ContentType: safeLine(resp.Header.Get("Content-Type"), 80)}
	e.Reason = decodeReason(sec, body, reason)
	trimmed := strings.TrimSpace(string(body[:min(len(body), 4*excerptLen)]))
	if trimmed != "" && trimmed[0] != '{' && trimmed[0] != '[' {
		e.Excerpt = safeLine(scrubText(sec, trimmed), excerptLen)
	}
	return e
}

func decodeReason(sec *secret.Registry, body []byte, err error) string {
	if len(strings.TrimSpace(string(body))) == 0 {
		return "the body is empty"
	}
	msg := err.Error()
	if strings.Contains(msg, "exceeded max depth") {
		return "the JSON is nested too deep"
	}
	return safeLine(scrubText(sec, msg), 200)
}

// safeLine makes text printable on one line: control and invalid
// characters become spaces, runs of spaces collapse, and it is cut to n
// runes.
func safeLine(s string, n int) string {
	var b strings.Builder
	space := false
	count := 0
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				r = ' '
			}
		}
		if unicode.IsControl(r) || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			if space {
				continue
			}
			r, space = ' ', true
		} else {
			space = false
		}
		if count == n {
			b.WriteString("...")
			break
		}
		b.WriteRune(r)
		count++
	}
	return strings.TrimSpace(b.String())
}

// ResponseTooLargeError is a response body longer than
// Options.MaxResponseBytes. The rest is not read, and the request is not
// retried (the same endpoint would send the same body).
type ResponseTooLargeError struct {
	Method string
	URL    string // redacted
	Limit  int64
}

func (e *ResponseTooLargeError) Error() string {
	return fmt.Sprintf("%s %s: the response body is larger than %s, more than any ARM answer; stopped reading it\n  hint: check --endpoint and any proxy in between; nothing was built from the partial answer",
		e.Method, e.URL, byteSize(e.Limit))
}

// NonRetriable tells azcore's retry policy not to try again.
func (*ResponseTooLargeError) NonRetriable() {}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// limitTransport bounds every response body: a Content-Length above the
// limit fails at once, and a body that grows past it fails when read.
type limitTransport struct {
	inner policy.Transporter
	limit int64
}

func (t limitTransport) Do(req *http.Request) (*http.Response, error) {
	resp, err := t.inner.Do(req)
	if err != nil || resp == nil || resp.Body == nil {
		return resp, err
	}
	tooLarge := &ResponseTooLargeError{Method: req.Method, URL: redactURL(req.URL), Limit: t.limit}
	if resp.ContentLength > t.limit {
		resp.Body.Close()
		return nil, tooLarge
	}
	resp.Body = &limitedBody{rc: resp.Body, left: t.limit, err: tooLarge}
	return resp, nil
}

type limitedBody struct {
	rc   io.ReadCloser
	left int64
	err  error
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, b.err
	}
	// Read one byte past the limit to tell "exactly the limit" from more.
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return 0, b.err
	}
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }

// ThrottledError is a 429 or 503 whose Retry-After asks for a longer wait
// than the client will spend: longer than Options.MaxRetryDelay, or than
// what is left of the operation's timeout. It is handed to the user at
// once instead of being slept on (while holding the state lock).
type ThrottledError struct {
	// ARM is the 429 or 503 itself.
	ARM *Error
	// RetryAfter is the wait the server asked for; Until the time it ends.
	RetryAfter time.Duration
	Until      time.Time
	// Limit is the longest wait the client would have spent.
	Limit time.Duration
}

func (e *ThrottledError) Error() string {
	base := e.ARM.Error()
	// Replace the generic 429/503 hint with the wait asked for.
	if i := strings.Index(base, "\n  hint:"); i >= 0 {
		base = base[:i]
	}
	return fmt.Sprintf("%s\n  hint: ARM asked to wait %s before retrying (until %s), longer than this run waits (%s); re-run after that time, or lower --concurrency if other tools share the subscription",
		base, roundWait(e.RetryAfter), e.Until.UTC().Format(time.RFC3339), roundWait(e.Limit))
}

// Unwrap lets errors.As find the *Error (StatusCode).
func (e *ThrottledError) Unwrap() error { return e.ARM }

// NonRetriable tells azcore's retry policy not to try again.
func (*ThrottledError) NonRetriable() {}

func roundWait(d time.Duration) string {
	switch {
	case d >= 48*time.Hour:
		return fmt.Sprintf("%d days", int64(d/(24*time.Hour)))
	case d >= time.Minute:
		return d.Round(time.Second).String()
	}
	return d.Round(time.Millisecond).String()
}

// waitPolicy sits right after azcore's retry policy. A 429 or 503 whose
// Retry-After is longer than the client would wait becomes a
// ThrottledError, which the retry policy does not retry. A throttling 429
// (ARM's or a provider's bucket is empty: the request was not run) is sent
// again here, after the pacer has waited out its Retry-After, for as long
// as the operation's deadline allows: throttling slows a run down, it
// does not fail it after MaxRetries.
type waitPolicy struct{ c *Client }

// maxThrottleRetries bounds the loop should a server answer 429 forever
// with tiny Retry-After values.
const maxThrottleRetries = 200

func (p *waitPolicy) Do(req *policy.Request) (*http.Response, error) {
	for n := 0; ; n++ {
		resp, err := req.Next()
		if err != nil || resp == nil || (resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable) {
			return resp, err
		}
		ra := retryAfter(resp.Header)
		limit := p.c.maxWait(req)
		if ra > limit {
			body, _ := runtime.Payload(resp)
			e := newError(p.c.opts.Secrets, req.Raw().Method, pathOf(req), resp.StatusCode, resp.Header, body)
			return nil, &ThrottledError{ARM: e, RetryAfter: ra, Until: time.Now().Add(ra), Limit: limit}
		}
		throttle := resp.StatusCode == http.StatusTooManyRequests && !IsRetryableCode(errorCode(resp))
		if !throttle || n >= maxThrottleRetries || !p.c.opts.Pacing || req.Raw().Context().Err() != nil {
			return resp, err
		}
		if rerr := req.RewindBody(); rerr != nil {
			return resp, err
		}
		runtime.Drain(resp)
	}
}

// maxWait is the longest Retry-After the client honours for req: the
// retry policy's MaxRetryDelay, and never more than what is left of the
// operation's deadline (kept by callPolicy before the retry policy
// replaced the context with a per-try one).
func (c *Client) maxWait(req *policy.Request) time.Duration { return c.pacer.maxWaitCtx(req) }

func (p *pacer) maxWaitCtx(req *policy.Request) time.Duration {
	limit := p.maxBlock()
	var ci *callInfo
	if req.OperationValue(&ci) && ci != nil && !ci.deadline.IsZero() {
		if left := time.Until(ci.deadline); left < limit {
			limit = max(left, 0)
		}
	}
	return limit
}

func pathOf(req *policy.Request) string {
	return req.Raw().URL.Path
}
