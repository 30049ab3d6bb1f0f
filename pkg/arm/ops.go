package arm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// Response is the outcome of an ARM call. For writes that ran as
// long-running operations it is the final response: for PUT/PATCH the
// resource itself as read by azcore's poller after the operation
// succeeded (Azure-AsyncOperation: a GET of the resource; Location: the
// final 200 of the Location URL), for DELETE the last status response.
type Response struct {
	StatusCode int
	Header     http.Header
	// ETag from the ETag header, else the body's "etag" property.
	ETag string
	// Raw is the body as received; Body its JSON object (nil when the
	// body is empty or not an object).
	Raw  []byte
	Body map[string]any
	// LRO is true when the write was followed as a long-running
	// operation; Initial is then the first response (201/202).
	LRO     bool
	Initial *Response
	// ReadBack is true when Body is the resource as a GET returned it
	// after the operation succeeded (azcore's final GET for
	// Azure-AsyncOperation, or the last provisioningState poll): the
	// caller can record it as the post-write live state without another
	// GET, which would spend a read token per resource.
	ReadBack bool
}

// RequestOptions are per-call options of writes.
type RequestOptions struct {
	// IfMatch sends If-Match (an etag, or "*"); a mismatch is a 412,
	// reported as an error for which IsPreconditionFailed is true.
	IfMatch string
	// IfNoneMatch sends If-None-Match ("*" = create only).
	IfNoneMatch string
	// NoWait returns the initial response without following an LRO.
	NoWait bool
}

// Get reads a resource. A 404 is an error for which IsNotFound is true.
func (c *Client) Get(ctx context.Context, id, apiVersion string) (*Response, error) {
	ctx, cancel := c.opCtx(ctx)
	defer cancel()
	return c.send(ctx, http.MethodGet, id, c.url(id, apiVersion), nil, nil)
}

// Put creates or replaces a resource and waits for its LRO.
func (c *Client) Put(ctx context.Context, id, apiVersion string, body map[string]any, o *RequestOptions) (*Response, error) {
	return c.write(ctx, http.MethodPut, id, apiVersion, body, o)
}

// Patch sends a JSON merge patch (ARM takes it as application/json; a
// null removes a property) and waits for its LRO. A 405 marks the
// resource type as PATCH-less (see PatchUnsupported) and is returned as
// an error for which IsMethodNotAllowed is true.
func (c *Client) Patch(ctx context.Context, id, apiVersion string, body map[string]any, o *RequestOptions) (*Response, error) {
	resp, err := c.write(ctx, http.MethodPatch, id, apiVersion, body, o)
	if err != nil && IsMethodNotAllowed(err) {
		c.MarkPatchUnsupported(ResourceTypeOf(id))
	}
	return resp, err
}

// Delete deletes a resource and waits for its LRO. A 204 (already gone)
// is success; a 404 is an error for which IsNotFound is true.
func (c *Client) Delete(ctx context.Context, id, apiVersion string, o *RequestOptions) (*Response, error) {
	return c.write(ctx, http.MethodDelete, id, apiVersion, nil, o)
}

// Post invokes an action (id ends with the action name, e.g.
// .../listKeys) and waits for its LRO if it starts one. body may be nil.
func (c *Client) Post(ctx context.Context, id, apiVersion string, body map[string]any, o *RequestOptions) (*Response, error) {
	return c.write(ctx, http.MethodPost, id, apiVersion, body, o)
}

// List reads a collection (e.g. /subscriptions/S/resourceGroups/RG/
// providers/Microsoft.Network/virtualNetworks, or a child collection)
// following nextLink, and returns the items of every page.
func (c *Client) List(ctx context.Context, collectionID, apiVersion string) ([]map[string]any, error) {
	var items []map[string]any
	_, err := c.listPages(ctx, collectionID, c.url(collectionID, apiVersion), 0, func(page []map[string]any) bool {
		items = append(items, page...)
		return false
	})
	return items, err
}

// maxListPages bounds a list: more pages than this is a nextLink loop.
const maxListPages = 10000

// listPages reads a collection page by page, following nextLink on the
// endpoint, and hands each page to visit until visit returns true or
// maxPages pages (0: no bound but maxListPages) were read. first is the
// first page's URL (c.url of the collection, or a filtered one). complete
// reports whether the collection was read to its end.
func (c *Client) listPages(ctx context.Context, collectionID, first string, maxPages int, visit func([]map[string]any) bool) (complete bool, err error) {
	ctx, cancel := c.opCtx(ctx)
	defer cancel()
	if maxPages <= 0 || maxPages > maxListPages {
		maxPages = maxListPages
	}
	next := first
	for page := 0; next != ""; page++ {
		if page >= maxPages {
			if maxPages == maxListPages {
				return false, fmt.Errorf("GET %s: more than %d pages; giving up (nextLink loop?)", collectionID, maxListPages)
			}
			return false, nil
		}
		resp, err := c.send(ctx, http.MethodGet, collectionID, next, nil, nil)
		if err != nil {
			return false, err
		}
		pg, err := decodePage(resp.Raw)
		if err != nil {
			return false, &DecodeError{Method: http.MethodGet, ID: collectionID, StatusCode: resp.StatusCode,
				ContentType: safeLine(resp.Header.Get("Content-Type"), 80), Reason: "a list answer must be {\"value\": [...]}: " + decodeReason(c.opts.Secrets, resp.Raw, err)}
		}
		c.notePage(collectionID, len(pg.Value), pg.NextLink != "")
		if visit(pg.Value) {
			return pg.NextLink == "", nil
		}
		next = ""
		if pg.NextLink != "" {
			if next, err = c.checkNextLink(pg.NextLink); err != nil {
				return false, fmt.Errorf("GET %s: %w", collectionID, err)
			}
		}
	}
	return true, nil
}

// ListResourceGroupAPIVersion is the Microsoft.Resources api-version used
// to list a resource group's contents.
const ListResourceGroupAPIVersion = "2021-04-01"

// ListResourceGroup lists every resource in a resource group (ARM's
// generic .../resources collection: top-level and child resources that
// ARM tracks, with id, name, type, location, tags, sku, kind).
func (c *Client) ListResourceGroup(ctx context.Context, subscription, resourceGroup string) ([]map[string]any, error) {
	return c.List(ctx, "/subscriptions/"+subscription+"/resourceGroups/"+resourceGroup+"/resources", ListResourceGroupAPIVersion)
}

// PatchUnsupported reports whether a PATCH on this resource type answered
// 405 during this Client's life. Types compare case-insensitively.
func (c *Client) PatchUnsupported(resourceType string) bool {
	_, ok := c.noPatch.Load(strings.ToLower(resourceType))
	return ok
}

// MarkPatchUnsupported records that a type does not take PATCH (the apply
// engine may know it from the schema or a plugin).
func (c *Client) MarkPatchUnsupported(resourceType string) {
	if resourceType != "" {
		c.noPatch.Store(strings.ToLower(resourceType), true)
	}
}

func (c *Client) opCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.opts.Timeout > 0 {
		return context.WithTimeout(ctx, c.opts.Timeout)
	}
	return context.WithCancel(ctx)
}

func (c *Client) url(id, apiVersion string) string {
	return c.urlOf(id, apiVersion).String()
}

// urlOf is url as a *url.URL, built from the parsed endpoint, so it
// cannot fail to parse.
func (c *Client) urlOf(id, apiVersion string) *url.URL {
	u := *c.endpoint
	if !strings.HasPrefix(id, "/") {
		id = "/" + id
	}
	u.Path = c.endpoint.Path + id
	u.RawPath = ""
	if apiVersion != "" {
		u.RawQuery = "api-version=" + url.QueryEscape(apiVersion)
	}
	return &u
}

// checkNextLink keeps paging on the endpoint we authenticate to: a
// nextLink to another host would receive our bearer token.
func (c *Client) checkNextLink(link string) (string, error) {
	u, err := url.Parse(link)
	if err != nil {
		return "", fmt.Errorf("invalid nextLink %q: %w", link, err)
	}
	if !u.IsAbs() {
		return c.endpoint.ResolveReference(u).String(), nil
	}
	if !strings.EqualFold(u.Scheme, c.endpoint.Scheme) || !strings.EqualFold(u.Host, c.endpoint.Host) {
		return "", fmt.Errorf("refusing nextLink %q: it leaves the ARM endpoint %s", link, c.endpoint.Host)
	}
	return link, nil
}

// send runs one logical request through the pipeline (which retries,
// paces, authenticates and logs) and turns an error status into *Error.
func (c *Client) send(ctx context.Context, method, id, rawURL string, body map[string]any, o *RequestOptions) (*Response, error) {
	if method == http.MethodPost {
		ctx = policy.WithRetryOptions(ctx, c.postRetry)
	}
	req, err := runtime.NewRequest(ctx, method, rawURL)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, id, err)
	}
	req.Raw().Header.Set("Accept", "application/json")
	if body != nil {
		if err := setJSONBody(req, body); err != nil {
			return nil, fmt.Errorf("%s %s: encoding body: %w", method, id, err)
		}
	} else if method == http.MethodPost {
		// ARM wants a Content-Length on POST even without a body.
		req.Raw().Header.Set("Content-Length", "0")
	}
	if o != nil {
		if o.IfMatch != "" {
			req.Raw().Header.Set("If-Match", o.IfMatch)
		}
		if o.IfNoneMatch != "" {
			req.Raw().Header.Set("If-None-Match", o.IfNoneMatch)
		}
	}
	resp, err := c.pl.Do(req)
	if err != nil {
		// These name the request themselves and say what to do.
		var te *ThrottledError
		var le *ResponseTooLargeError
		var ae *AuthError
		switch {
		case errors.As(err, &te):
			te.ARM.ID = id
			return nil, te
		case errors.As(err, &le):
			return nil, le
		case errors.As(err, &ae):
			return nil, ae
		}
		return nil, fmt.Errorf("%s %s: %w", method, id, err)
	}
	return c.toResponse(method, id, resp)
}

func (c *Client) toResponse(method, id string, resp *http.Response) (*Response, error) {
	payload, err := runtime.Payload(resp)
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading response: %w", method, id, err)
	}
	if resp.StatusCode >= 400 {
		return nil, newError(c.opts.Secrets, method, id, resp.StatusCode, resp.Header, payload)
	}
	r := &Response{StatusCode: resp.StatusCode, Header: resp.Header, Raw: payload, ETag: resp.Header.Get("ETag")}
	m, err := decodeObject(payload)
	switch {
	case err == nil:
		r.Body = m
	case method == http.MethodGet:
		// A read must never yield an empty resource: the caller would
		// take it as the live state (writes without preserved
		// properties) or as "nothing there".
		return nil, newDecodeError(c.opts.Secrets, method, id, resp, payload, err)
	}
	if r.ETag == "" && r.Body != nil {
		if e, ok := r.Body["etag"].(string); ok {
			r.ETag = e
		}
	}
	return r, nil
}

// write sends PUT/PATCH/DELETE/POST and follows a long-running operation
// with azcore's pollers: Azure-AsyncOperation first, else Location, else
// (PUT/PATCH) the resource's provisioningState, honouring Retry-After.
func (c *Client) write(ctx context.Context, method, id, apiVersion string, body map[string]any, o *RequestOptions) (*Response, error) {
	resp, err := c.writeOp(ctx, method, id, apiVersion, body, o)
	if err != nil && body != nil {
		// ARM's 400s quote the request body: hide what the body's own
		// secrets are, registered or not.
		var e *Error
		if errors.As(err, &e) {
			e.scrubValues(c.bodySecrets(method, c.url(id, apiVersion), body))
		}
	}
	return resp, err
}

func (c *Client) writeOp(ctx context.Context, method, id, apiVersion string, body map[string]any, o *RequestOptions) (*Response, error) {
	ctx, cancel := c.opCtx(ctx)
	defer cancel()
	first, err := c.send(ctx, method, id, c.url(id, apiVersion), body, o)
	if err != nil {
		return nil, err
	}
	if (o != nil && o.NoWait) || !isLRO(method, first) {
		return first, nil
	}
	// Rebuild an *http.Response for azcore from what send kept: the
	// pipeline's own response was already consumed into first.Raw.
	initial := &http.Response{
		StatusCode: first.StatusCode,
		Header:     first.Header,
		Body:       http.NoBody,
		Request:    &http.Request{Method: method, URL: c.urlOf(id, apiVersion)},
	}
	if len(first.Raw) > 0 {
		initial.Body = readCloser{bytes.NewReader(first.Raw)}
	}
	poller, err := runtime.NewPoller[json.RawMessage](initial, c.pl, nil)
	if err != nil {
		return nil, c.lroError(method, id, err)
	}
	pctx := withPoll(ctx)
	lastHeader := first.Header
	var last *http.Response
	for !poller.Done() {
		wait := retryAfter(lastHeader)
		if wait <= 0 {
			wait = c.opts.PollInterval
		}
		if wait > c.opts.MaxPollInterval {
			wait = c.opts.MaxPollInterval
		}
		if err := sleepCtx(ctx, wait); err != nil {
			return nil, fmt.Errorf("%s %s: waiting for long-running operation: %w", method, id, err)
		}
		r, err := poller.Poll(pctx)
		if err != nil {
			return nil, c.lroError(method, id, err)
		}
		last = r
		lastHeader = r.Header
	}
	var final *http.Response
	if _, err := poller.Result(policy.WithCaptureResponse(pctx, &final)); err != nil {
		return nil, c.lroError(method, id, err)
	}
	if final == nil {
		final = last
	}
	out := first
	if final != nil {
		if out, err = c.toResponse(method, id, final); err != nil {
			return nil, err
		}
	}
	res := *out
	res.LRO = true
	res.Initial = first
	res.ReadBack = final != nil && final.Request != nil && res.Body != nil && final.Request.Method == http.MethodGet &&
		(method == http.MethodPut || method == http.MethodPatch) &&
		armid.Equal(final.Request.URL.Path, c.urlOf(id, "").Path)
	return &res, nil
}

// isLRO decides whether the initial response starts a long-running
// operation. A 201 with a Location header alone is plain HTTP "created
// here", not an LRO; a PUT/PATCH answered with a non-terminal
// provisioningState is one (ARM's body-polling pattern).
func isLRO(method string, r *Response) bool {
	if r.StatusCode == http.StatusAccepted || r.Header.Get("Azure-AsyncOperation") != "" {
		return true
	}
	if method == http.MethodPut || method == http.MethodPatch {
		if props, ok := r.Body["properties"].(map[string]any); ok {
			if ps, ok := props["provisioningState"].(string); ok && !terminalState(ps) {
				return true
			}
		}
	}
	return false
}

func terminalState(s string) bool {
	switch strings.ToLower(s) {
	case "succeeded", "failed", "canceled", "cancelled":
		return true
	}
	return false
}

// lroError turns azcore's ResponseError (a failed poll, or a terminal
// Failed/Canceled state) into *Error.
func (c *Client) lroError(method, id string, err error) error {
	var re *azcore.ResponseError
	if errors.As(err, &re) && re.RawResponse != nil {
		payload, _ := runtime.Payload(re.RawResponse)
		e := newError(c.opts.Secrets, method, id, re.RawResponse.StatusCode, re.RawResponse.Header, payload)
		if e.StatusCode < 400 {
			e.OperationStatus = operationStatus(payload)
			if e.OperationStatus == "" {
				e.OperationStatus = "Failed"
			}
		}
		if e.Code == "" {
			e.Code = re.ErrorCode
		}
		return e
	}
	if isCtxErr(err) {
		return fmt.Errorf("%s %s: long-running operation did not finish: %w", method, id, err)
	}
	return fmt.Errorf("%s %s: long-running operation: %w", method, id, err)
}

func operationStatus(payload []byte) string {
	var s struct {
		Status     string `json:"status"`
		Properties struct {
			ProvisioningState string `json:"provisioningState"`
		} `json:"properties"`
	}
	if json.Unmarshal(payload, &s) != nil {
		return ""
	}
	if s.Status != "" {
		return s.Status
	}
	return s.Properties.ProvisioningState
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }
