package arm

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// Where credentials may go. azcore's bearer-token policy authorizes
// every request it sees, whatever its host, and its pollers GET whatever
// URL the service put in Azure-AsyncOperation or Location; Go's
// http.Client follows redirects by itself (re-sending PUT bodies on a
// 307). The client therefore:
//
//   - turns off http.Client's redirect following (noRedirects), so every
//     3xx reaches the pipeline;
//   - answers a 3xx to a write with an error and follows one to a read
//     only on the endpoint's own origin (redirectPolicy);
//   - refuses any request whose URL is not on the endpoint's origin
//     before pacing, retries or the credential see it (originPolicy), so
//     a polling, paging or redirect URL on another host never receives
//     the token;
//   - wraps the bearer-token policy so it authorizes only that origin
//     (authOnlyOrigin), in case a later change reorders the policies.
//
// No other host is trusted, not even one of the same cloud: ARM's own
// polling and paging URLs are on the endpoint host, so a URL elsewhere
// comes from a misbehaving provider or an attacker, and following it
// without the token would only produce a 401.

// maxRedirects bounds redirect chains of reads.
const maxRedirects = 5

// RedirectError is a 3xx the client refused to follow.
type RedirectError struct {
	Method   string
	URL      string // the request's URL, redacted
	Status   int
	Location string // the redirect target, redacted
	Reason   string
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("%s %s: refusing to follow %d redirect to %q: %s", e.Method, e.URL, e.Status, e.Location, e.Reason)
}

// OriginError is a request to a URL outside the ARM endpoint's origin,
// refused before anything (least of all the credential) was sent.
type OriginError struct {
	URL      string // redacted
	Endpoint string
}

func (e *OriginError) Error() string {
	return fmt.Sprintf("refusing to send a request to %q: it is not on the ARM endpoint %s, and credentials go only there; a long-running operation, nextLink or redirect pointed elsewhere (check the endpoint, proxy and resource provider)", e.URL, e.Endpoint)
}

// noRedirects makes http.Client return every 3xx as is.
func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// withoutRedirects returns a copy of hc (or a default client) that does
// not follow redirects. The caller's client is left untouched.
func withoutRedirects(hc *http.Client) *http.Client {
	c := *hc
	c.CheckRedirect = noRedirects
	return &c
}

// sameOrigin compares scheme, host and port (default ports filled in).
func sameOrigin(a, b *url.URL) bool {
	if a == nil || b == nil || !strings.EqualFold(a.Scheme, b.Scheme) {
		return false
	}
	return strings.EqualFold(a.Hostname(), b.Hostname()) && portOf(a) == portOf(b)
}

func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return "443"
	case "http":
		return "80"
	}
	return ""
}

// onEndpoint reports whether u is on the client's endpoint origin.
func (c *Client) onEndpoint(u *url.URL) bool { return sameOrigin(u, c.endpoint) }

// originPolicy refuses requests off the endpoint's origin, and paths a
// server or proxy would normalise into another resource.
type originPolicy struct{ c *Client }

func (p *originPolicy) Do(req *policy.Request) (*http.Response, error) {
	u := req.Raw().URL
	var err error
	if !p.c.onEndpoint(u) {
		err = &OriginError{URL: redactURL(u), Endpoint: p.c.Endpoint()}
	} else if perr := checkPath(u.Path); perr != nil {
		err = fmt.Errorf("%s %s: %w", req.Raw().Method, redactURL(u), perr)
	}
	if err != nil {
		p.c.logRefused(req.Raw().Method, u, err)
		return nil, err
	}
	return req.Next()
}

// checkPath refuses "." and ".." segments, empty segments inside the
// path and control characters: ARM, proxies and Go's own redirect logic
// resolve them, so /vnets/v/subnets/.. would address the virtual network
// itself. The path is the decoded one, so %2e%2e is caught too.
func checkPath(path string) error {
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	for i, s := range segs {
		switch {
		case s == "." || s == "..":
			return fmt.Errorf("refusing request path with a %q segment: it would address another resource; check the resource name", s)
		case s == "" && i < len(segs)-1:
			return errors.New("refusing request path with an empty segment (\"//\"): a name is missing; check the resource ID")
		case strings.ContainsFunc(s, unicode.IsControl):
			return fmt.Errorf("refusing request path segment %q: it contains control characters", armid.Printable(s))
		}
	}
	return nil
}

// authOnlyOrigin runs the bearer-token policy only for the endpoint's
// origin and refuses anything else.
type authOnlyOrigin struct {
	c     *Client
	inner policy.Policy
}

func (p *authOnlyOrigin) Do(req *policy.Request) (*http.Response, error) {
	if u := req.Raw().URL; !p.c.onEndpoint(u) {
		return nil, &OriginError{URL: redactURL(u), Endpoint: p.c.Endpoint()}
	}
	return p.inner.Do(req)
}

func isRedirect(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// redirectPolicy sits before the retry policy. A redirected write is an
// error: a 307 re-sends the body to another path (a subnet named ".."
// once turned into a PUT, then a DELETE, of its virtual network). A
// redirected read is followed on the endpoint's origin only.
type redirectPolicy struct{ c *Client }

func (p *redirectPolicy) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	cur := req
	for hops := 0; err == nil && resp != nil && isRedirect(resp.StatusCode); hops++ {
		method := cur.Raw().Method
		from := cur.Raw().URL
		loc := resp.Header.Get("Location")
		rerr := &RedirectError{Method: method, URL: redactURL(from), Status: resp.StatusCode, Location: loc}
		drain(resp)
		target, perr := from.Parse(loc)
		if loc == "" || perr != nil {
			rerr.Reason = "the redirect has no valid Location"
			return nil, rerr
		}
		rerr.Location = redactURL(target)
		switch {
		case method != http.MethodGet && method != http.MethodHead:
			rerr.Reason = "writes are never redirected (the target may be a different resource); check the resource ID and the endpoint"
		case !p.c.onEndpoint(target):
			rerr.Reason = "reads follow redirects on the ARM endpoint's own host only"
		case hops >= maxRedirects:
			rerr.Reason = fmt.Sprintf("more than %d redirects", maxRedirects)
		}
		if rerr.Reason != "" {
			p.c.logRefused(method, target, rerr)
			return nil, rerr
		}
		next := cur.Clone(cur.Raw().Context())
		next.Raw().URL = target
		next.Raw().Host = ""
		resp, err = next.Next()
		cur = next
	}
	return resp, err
}

func drain(resp *http.Response) {
	if resp != nil && resp.Body != nil {
		_ = resp.Body.Close()
	}
}
