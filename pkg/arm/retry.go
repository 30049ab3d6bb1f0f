package arm

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
)

// retryableCodes are ARM error codes that mean "the request was refused,
// not run; the same request will succeed later", whatever the status.
// Each is sent by a provider with that meaning:
//   - AnotherOperationInProgress: 409 from Network, Compute and AKS while
//     the resource or a dependent one is being changed.
//   - RetryableError and RetryableErrorDueToAnotherOperation: Network's
//     429 when another operation holds the target's lock (ARM's
//     throttling documentation names it a temporary state, not quota).
//   - ConcurrentFederatedIdentityCredentialsWritesForSingleManagedIdentity:
//     409 from Microsoft.ManagedIdentity, which takes one credential write
//     per identity at a time.
//   - ReferencedResourceNotProvisioned: Network's 400 while a resource the
//     body references is still Updating (the Azure Verified Modules retry
//     it by default). A reference stuck in Failed still ends in the error,
//     after MaxRetries.
var retryableCodes = map[string]bool{
	"referencedresourcenotprovisioned":    true,
	"anotheroperationinprogress":          true,
	"retryableerror":                      true,
	"retryableerrorduetoanotheroperation": true,
	"concurrentfederatedidentitycredentialswritesforsinglemanagedidentity": true,
}

// IsRetryableCode reports whether an ARM error code is one the client
// retries (see retryableCodes).
func IsRetryableCode(code string) bool { return retryableCodes[strings.ToLower(code)] }

// shouldRetry decides retries for every method but POST: connection
// errors, 408, 429 and 5xx (ARM's PUT, PATCH and DELETE are idempotent),
// and any status whose error code is retryable. azcore's retry policy
// honours Retry-After (and ARM's millisecond variants) and bounds the
// attempts by Options.MaxRetries.
func shouldRetry(resp *http.Response, err error) bool {
	if err != nil {
		return true
	}
	if resp == nil {
		return false
	}
	switch resp.StatusCode {
	case http.StatusRequestTimeout, http.StatusTooManyRequests, http.StatusInternalServerError,
		http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return resp.StatusCode >= 400 && IsRetryableCode(errorCode(resp))
}

// shouldRetryPost retries an action only when ARM says it did not run
// it: a 429 (the gateway answers before the provider sees the request)
// or a retryable conflict code. A 5xx or a reset may come after the
// action ran (regenerateKey, restart), so those are not retried.
func shouldRetryPost(resp *http.Response, err error) bool {
	if err != nil || resp == nil {
		return false
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		return true
	}
	return resp.StatusCode >= 400 && resp.StatusCode < 500 && IsRetryableCode(errorCode(resp))
}

// errorCode reads ARM's error code from x-ms-error-code or the body's
// error envelope. The body was buffered by azcore, so reading it here
// leaves it for the caller.
func errorCode(resp *http.Response) string {
	if c := resp.Header.Get("x-ms-error-code"); c != "" {
		return c
	}
	data, err := runtime.Payload(resp)
	if err != nil || len(data) == 0 {
		return ""
	}
	var env struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
		Code string `json:"code"`
	}
	if json.Unmarshal(data, &env) != nil {
		return ""
	}
	if env.Error.Code != "" {
		return env.Error.Code
	}
	return env.Code
}
