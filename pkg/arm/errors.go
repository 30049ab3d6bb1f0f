package arm

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// Error is a failed ARM request: the HTTP status and ARM's error envelope
// ({"error":{"code","message","details"}}), plus what was being done.
type Error struct {
	Method     string
	ID         string // ARM ID or URL path of the request
	StatusCode int
	// OperationStatus is set (Failed, Canceled) when a long-running
	// operation ended unsuccessfully; StatusCode is then that of the
	// status response, often 200.
	OperationStatus string
	Code            string
	Message         string
	Details         []ErrorDetail
	Header          http.Header
	Body            []byte
}

// ErrorDetail is one entry of the envelope's details array.
type ErrorDetail struct {
	Code    string        `json:"code"`
	Message string        `json:"message"`
	Target  string        `json:"target,omitempty"`
	Details []ErrorDetail `json:"details,omitempty"`
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.OperationStatus != "" {
		fmt.Fprintf(&b, "%s %s: long-running operation %s", e.Method, e.ID, e.OperationStatus)
	} else {
		fmt.Fprintf(&b, "%s %s: %d %s", e.Method, e.ID, e.StatusCode, http.StatusText(e.StatusCode))
	}
	if e.Code != "" {
		fmt.Fprintf(&b, " (%s)", e.Code)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	for _, d := range e.Details {
		writeDetail(&b, d, 1)
	}
	if h := e.hint(); h != "" {
		fmt.Fprintf(&b, "\n  hint: %s", h)
	}
	return b.String()
}

func writeDetail(b *strings.Builder, d ErrorDetail, depth int) {
	if depth > 3 {
		return
	}
	fmt.Fprintf(b, "\n%s- %s", strings.Repeat("  ", depth), d.Code)
	if d.Target != "" {
		fmt.Fprintf(b, " [%s]", d.Target)
	}
	if d.Message != "" {
		fmt.Fprintf(b, ": %s", d.Message)
	}
	for _, dd := range d.Details {
		writeDetail(b, dd, depth+1)
	}
}

// hint says what the user can do about the failure; an error that only
// repeats the status leaves the user guessing.
func (e *Error) hint() string {
	if e.OperationStatus != "" {
		return "the resource provider accepted the request but the operation failed; fix what the message names and re-run (the resource may exist in a failed state)"
	}
	switch e.StatusCode {
	case http.StatusUnauthorized:
		return "the credential was rejected: check --auth, the tenant, and that the token is for this cloud (--cloud)"
	case http.StatusForbidden:
		return "the identity lacks permission on this scope: check its role assignments (e.g. Contributor on the resource group) and any deny assignments or Azure Policy"
	case http.StatusNotFound:
		if strings.EqualFold(e.Code, "SubscriptionNotFound") {
			return "check --subscription and that the identity can see it"
		}
		if strings.EqualFold(e.Code, "ResourceGroupNotFound") {
			return "create the resource group first, or declare it so it is applied before its children"
		}
		if strings.EqualFold(e.Code, "NoRegisteredProviderFound") || strings.EqualFold(e.Code, "InvalidResourceType") {
			return "check the resource type and api-version, and that the provider is registered in the subscription"
		}
		return "the resource does not exist (or the api-version does not know it)"
	case http.StatusMethodNotAllowed:
		return "the resource type does not accept this method; a PATCH is retried as GET-modify-PUT"
	case http.StatusConflict:
		msg := strings.ToLower(e.Message)
		switch {
		case strings.Contains(msg, "soft-deleted") || strings.Contains(msg, "soft deleted") ||
			strings.Contains(msg, "deleted state") || strings.Contains(msg, "purge"):
			// Key Vault, App Configuration, Cognitive Services, API
			// Management: the deleted resource holds its name until its
			// retention ends, so waiting does not help.
			return "a deleted resource of this name is kept soft-deleted and holds the name until its retention period ends: recover it (Key Vault: properties.createMode: recover; Cognitive Services: properties.restore: true) or purge it, then re-run"
		case strings.EqualFold(e.Code, "VaultAlreadyExists") || strings.EqualFold(e.Code, "StorageAccountAlreadyTaken") ||
			strings.Contains(msg, "already taken") || strings.Contains(msg, "globally unique"):
			return "the name is globally unique and taken by another resource, possibly in another subscription: choose another name"
		}
		return "the resource or its parent is busy (another operation in progress) or in a conflicting state; wait and re-run"
	case http.StatusPreconditionFailed:
		return "the resource changed since it was read (etag mismatch); re-run diff to see the new live state"
	case http.StatusBadRequest:
		switch {
		case strings.EqualFold(e.Code, "InvalidApiVersionParameter") || strings.EqualFold(e.Code, "NoRegisteredProviderFound"):
			return "the api-version is not supported for this type in this location; pick one the error lists"
		case strings.EqualFold(e.Code, "LocationNotAvailableForResourceType"):
			return "choose a location the error lists"
		default:
			return "ARM rejected the request body; fix the property named in the message"
		}
	case http.StatusTooManyRequests:
		return "ARM throttled the subscription; lower --concurrency or wait for the quota to refill"
	}
	if e.StatusCode >= 500 {
		h := "ARM or the resource provider failed and retries did not help; re-run later"
		if id := e.Header.Get("x-ms-correlation-request-id"); id != "" {
			h += "; if it persists, give Azure support the correlation ID " + id
		}
		return h
	}
	return ""
}

// newError builds an Error from a response body, which may be the ARM
// envelope, an LRO status body ({"status":"Failed","error":{...}}) or
// something else entirely (HTML from a proxy).
func newError(sec *secret.Registry, method, id string, status int, header http.Header, body []byte) *Error {
	e := &Error{Method: method, ID: id, StatusCode: status, Header: header, Body: body}
	var env struct {
		Error *struct {
			Code    string        `json:"code"`
			Message string        `json:"message"`
			Details []ErrorDetail `json:"details"`
		} `json:"error"`
		// Some RPs answer without the envelope.
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &env) == nil {
		if env.Error != nil {
			e.Code, e.Message, e.Details = env.Error.Code, env.Error.Message, env.Error.Details
		} else {
			e.Code, e.Message = env.Code, env.Message
		}
	} else if len(body) > 0 {
		msg := strings.TrimSpace(string(body))
		if len(msg) > 300 {
			msg = msg[:300] + "..."
		}
		e.Message = msg
	}
	if e.Code == "" && header != nil {
		e.Code = header.Get("x-ms-error-code")
	}
	e.scrub(sec)
	return e
}

// scrub hides secrets before the error becomes text anywhere: ARM's 400s
// quote the offending request body, secrets and all.
func (e *Error) scrub(sec *secret.Registry) {
	e.Message = scrubText(sec, e.Message)
	e.Details = mapDetails(e.Details, func(s string) string { return scrubText(sec, s) })
	if len(e.Body) > 0 {
		e.Body = []byte(scrubText(sec, string(e.Body)))
	}
}

// scrubValues hides the given secret values (and their JSON-escaped
// forms) in the error's text.
func (e *Error) scrubValues(values []string) {
	if len(values) == 0 {
		return
	}
	r := secret.NewRegistry()
	r.Register(values...)
	e.Message = r.Scrub(e.Message)
	e.Details = mapDetails(e.Details, r.Scrub)
	e.Body = []byte(r.Scrub(string(e.Body)))
}

func mapDetails(ds []ErrorDetail, f func(string) string) []ErrorDetail {
	for i := range ds {
		ds[i].Message = f(ds[i].Message)
		ds[i].Target = f(ds[i].Target)
		ds[i].Details = mapDetails(ds[i].Details, f)
	}
	return ds
}

// scrubText removes the values of sec (the client's registry, the run's)
// and embedded credentials (connection-string keys, SAS signatures, bearer
// tokens) from text.
// Name-based redaction runs first: a registry mask that took in a
// credential name (";AccountKey=") would hide it from redactText.
func scrubText(sec *secret.Registry, s string) string { return sec.Scrub(redactText(s)) }

// StatusCode returns the HTTP status of an ARM error, or 0.
func StatusCode(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.StatusCode
	}
	return 0
}

// IsNotFound reports a 404 from ARM.
func IsNotFound(err error) bool { return StatusCode(err) == http.StatusNotFound }

// IsPreconditionFailed reports a 412 (If-Match etag mismatch).
func IsPreconditionFailed(err error) bool { return StatusCode(err) == http.StatusPreconditionFailed }

// IsMethodNotAllowed reports a 405 (or ARM's MethodNotAllowed code).
func IsMethodNotAllowed(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	return e.StatusCode == http.StatusMethodNotAllowed || strings.EqualFold(e.Code, "MethodNotAllowed")
}
