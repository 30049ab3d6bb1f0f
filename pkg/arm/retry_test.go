package arm

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"
)

func TestRetryableARMCodes(t *testing.T) {
	cases := []struct {
		name     string
		method   string
		status   int
		code     string
		inHeader bool
		// tries before success; 0 = never succeeds
		failFirst int32
		wantCalls int32
		wantErr   bool
	}{
		{"409 AnotherOperationInProgress is retried", "PUT", 409, "AnotherOperationInProgress", false, 2, 3, false},
		{"429 RetryableErrorDueToAnotherOperation is retried", "PATCH", 429, "RetryableErrorDueToAnotherOperation", false, 1, 2, false},
		{"409 RetryableError in x-ms-error-code is retried", "DELETE", 409, "RetryableError", true, 1, 2, false},
		{"409 Conflict is not retried", "PUT", 409, "Conflict", false, 1, 1, true},
		{"400 is not retried", "PUT", 400, "InvalidRequestContent", false, 1, 1, true},
		{"400 ReferencedResourceNotProvisioned is retried", "PUT", 400, "ReferencedResourceNotProvisioned", false, 1, 2, false},
		{"retries are bounded", "PUT", 409, "AnotherOperationInProgress", false, 0, 4, true},
		{"POST retried on a refused conflict", "POST", 409, "AnotherOperationInProgress", false, 1, 2, false},
		{"POST not retried on 500", "POST", 500, "InternalServerError", false, 1, 1, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeARM(t)
			var n atomic.Int32
			f.handle(tc.method, testID, func(w http.ResponseWriter, r *http.Request) {
				if k := n.Add(1); tc.failFirst == 0 || k <= tc.failFirst {
					w.Header().Set("Retry-After", "0")
					if tc.inHeader {
						w.Header().Set("x-ms-error-code", tc.code)
						w.WriteHeader(tc.status)
						return
					}
					writeJSON(w, tc.status, map[string]any{"error": map[string]any{"code": tc.code, "message": "busy"}})
					return
				}
				if tc.method == "DELETE" {
					w.WriteHeader(200)
					return
				}
				writeJSON(w, 200, map[string]any{"id": testID})
			})
			c := f.client(func(o *Options) { o.MaxRetries = 3 })
			err := callMethod(c, tc.method)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err %v", err)
			}
			if got := n.Load(); got != tc.wantCalls {
				t.Fatalf("%d requests, want %d", got, tc.wantCalls)
			}
		})
	}
}

// A Retry-After beyond MaxRetryDelay is not slept through: the error is
// returned at once for the user to decide, which also shows the header
// is read.
func TestRetryAfterBeyondCapIsNotWaited(t *testing.T) {
	f := newFakeARM(t)
	var n atomic.Int32
	f.handle("PUT", testID, func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Retry-After", "3600")
		writeJSON(w, 409, map[string]any{"error": map[string]any{"code": "AnotherOperationInProgress"}})
	})
	c := f.client(func(o *Options) { o.MaxRetryDelay = time.Minute })
	_, err := c.Put(context.Background(), testID, testAPI, map[string]any{}, nil)
	if !isConflict(err) || n.Load() != 1 {
		t.Fatalf("err %v after %d requests", err, n.Load())
	}
}

func TestIsRetryableCode(t *testing.T) {
	for code, want := range map[string]bool{
		"AnotherOperationInProgress": true, "anotheroperationinprogress": true, "RetryableError": true,
		"Conflict": false, "": false, "ResourceGroupBeingDeleted": false,
	} {
		if got := IsRetryableCode(code); got != want {
			t.Errorf("IsRetryableCode(%q) = %v", code, got)
		}
	}
}
