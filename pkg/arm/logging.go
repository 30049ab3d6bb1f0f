package arm

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// Verbosity levels, as kubectl's -v.
const (
	VerbosityRequests = 4
	VerbosityHeaders  = 6
	VerbosityBodies   = 8
)

const redacted = "REDACTED"

var logMu sync.Mutex

// logAttempt writes one attempt at the configured verbosity. Whole lines
// are written under a lock so parallel requests do not interleave.
func (c *Client) logAttempt(req *policy.Request, reqBody []byte, attempt int32, poll bool, resp *http.Response, err error, d time.Duration) {
	if c.opts.Log == nil || c.opts.Verbosity < VerbosityRequests {
		return
	}
	raw := req.Raw()
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", raw.Method, redactURL(raw.URL))
	switch {
	case resp != nil:
		fmt.Fprintf(&b, " %d", resp.StatusCode)
	case err != nil:
		fmt.Fprintf(&b, " error=%q", redactText(err.Error()))
	}
	fmt.Fprintf(&b, " in %s", d.Round(time.Millisecond))
	if attempt > 1 {
		fmt.Fprintf(&b, " (attempt %d)", attempt)
	}
	if poll {
		b.WriteString(" (lro poll)")
	}
	b.WriteByte('\n')
	if c.opts.Verbosity >= VerbosityHeaders {
		writeHeaders(&b, "request", raw.Header)
		if resp != nil {
			writeHeaders(&b, "response", resp.Header)
		}
	}
	if c.opts.Verbosity >= VerbosityBodies {
		bc := c.bodyContext(raw.Method, raw.URL)
		if len(reqBody) > 0 {
			fmt.Fprintf(&b, "  request body: %s\n", bc.redact(reqBody, false))
		}
		if resp != nil {
			if data, perr := runtime.Payload(resp); perr == nil && len(data) > 0 {
				fmt.Fprintf(&b, "  response body: %s\n", bc.redact(data, true))
			}
		}
	}
	// Last line of defence: any value the run registered as secret
	// (valueFrom results, listKeys outputs) is hidden wherever it appears,
	// in URLs, headers, errors and bodies alike.
	line := c.opts.Secrets.Scrub(b.String())
	logMu.Lock()
	_, _ = io.WriteString(c.opts.Log, line)
	logMu.Unlock()
}

// logRefused records a request the client refused to send (another host,
// a redirected write, a path with dot segments) at -v 4 and above.
func (c *Client) logRefused(method string, u *url.URL, err error) {
	if c.opts.Log == nil || c.opts.Verbosity < VerbosityRequests {
		return
	}
	line := c.opts.Secrets.Scrub(fmt.Sprintf("%s %s refused: %s\n", method, redactURL(u), redactText(err.Error())))
	logMu.Lock()
	_, _ = io.WriteString(c.opts.Log, line)
	logMu.Unlock()
}

func writeHeaders(b *strings.Builder, what string, h http.Header) {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v := strings.Join(h[k], ", ")
		if isSecretHeader(k) {
			v = redacted
		} else {
			// Azure-AsyncOperation, Location and friends are signed URLs
			// (absolute, or a path with a query).
			if u, err := url.Parse(v); err == nil && strings.HasPrefix(v, "/") && u.RawQuery != "" {
				v = redactURL(u)
			} else {
				v = redactText(v)
			}
		}
		fmt.Fprintf(b, "  %s header %s: %s\n", what, k, v)
	}
}

func isSecretHeader(name string) bool {
	switch strings.ToLower(name) {
	case "authorization", "proxy-authorization", "cookie", "set-cookie", "x-ms-authorization-auxiliary":
		return true
	}
	return secret.LikeCredential(name)
}

// safeQuery are the query parameters whose values a log may show. Every
// other value is hidden: ARM's own polling URLs are signed (t, c, s, h),
// SAS URLs carry sig, se, skoid, sktid and more, and providers add their
// own tokens; a list of bad names would always miss the next one.
var safeQuery = map[string]bool{
	"api-version": true, "$top": true, "$filter": true, "$expand": true, "$select": true,
	"$orderby": true, "monitor": true, "operationresultresponsetype": true,
}

// Help links (go.microsoft.com/fwlink/?linkid=2147740&clcid=0x409, in
// Key Vault's soft-delete conflict among others) are useless without their
// link id. These parameters are shown only when every value has the shape
// of an id, so a token passed under the same name is still hidden.
var idQuery = map[string]*regexp.Regexp{
	"linkid": regexp.MustCompile(`^[0-9]{1,12}$`),
	"clcid":  regexp.MustCompile(`^0x[0-9a-fA-F]{1,8}$`),
}

func safeQueryValues(name string, values []string) bool {
	re := idQuery[strings.ToLower(name)]
	if re == nil {
		return false
	}
	for _, v := range values {
		if !re.MatchString(v) {
			return false
		}
	}
	return true
}

func redactURL(u *url.URL) string {
	if u == nil {
		return ""
	}
	c := *u
	c.User = nil
	if c.RawQuery != "" {
		q, err := url.ParseQuery(c.RawQuery)
		if err != nil {
			// Unparseable: hide the whole query rather than guess.
			c.RawQuery = redacted
		} else {
			for k, vs := range q {
				if !safeQuery[strings.ToLower(k)] && !safeQueryValues(k, vs) {
					q[k] = []string{redacted}
				}
			}
			c.RawQuery = q.Encode()
		}
	}
	c.Fragment, c.RawFragment = "", ""
	return c.String()
}

// urlInText finds absolute URLs in free text (error messages, header
// values) so their queries can be redacted like request URLs.
var urlInText = regexp.MustCompile(`(?i)\bhttps?://[^\s"'<>\\]+`)

func redactURLsIn(s string) string {
	return urlInText.ReplaceAllStringFunc(s, func(raw string) string {
		if !strings.ContainsAny(raw, "?#@") {
			return raw
		}
		// A sentence's closing punctuation is not part of the URL
		// ("see https://…?linkid=2147740.").
		trimmed := strings.TrimRight(raw, ".,;:!)]")
		tail := raw[len(trimmed):]
		raw = trimmed
		u, err := url.Parse(raw)
		if err != nil {
			if i := strings.IndexByte(raw, '?'); i >= 0 {
				return raw[:i] + "?" + redacted + tail
			}
			return raw + tail
		}
		return redactURL(u) + tail
	})
}

// Secrets embedded in strings: connection strings and SAS URLs.
var textSecrets = regexp.MustCompile(`(?i)((?:AccountKey|SharedAccessKey|SharedAccessSignature|Password|Pwd|sig|skoid|sktid|saoid|suoid|token|client_secret|access_token|refresh_token)=)[^;&\s"]+`)
var bearer = regexp.MustCompile(`(?i)(bearer\s+)[A-Za-z0-9\-\._~\+/]+=*`)

func redactText(s string) string {
	s = redactURLsIn(s)
	s = textSecrets.ReplaceAllString(s, "${1}"+redacted)
	return bearer.ReplaceAllString(s, "${1}"+redacted)
}
