package arm_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
)

// The emulator's injected faults are what a user meets: a front end that
// answers 503 with Retry-After, and connections reset without an answer.
// Each retry is announced with a short reason; the request path has no
// query.
func TestRetryNoticeEmulatorFaults(t *testing.T) {
	cases := []struct {
		name    string
		faults  emulator.FaultOptions
		reasons []string
		exact   bool
		delay   time.Duration
	}{
		{"503 with Retry-After", emulator.FaultOptions{Status: map[int]float64{http.StatusServiceUnavailable: 1}},
			[]string{"503 Service Unavailable: retry after 1s"}, true, time.Second},
		{"connection reset", emulator.FaultOptions{Reset: 1},
			[]string{"connection reset", "connection closed before the answer"}, false, 10 * time.Millisecond},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := startEmulator(t, func(o *emulator.Options) { o.Faults = tc.faults; o.Seed = 1 })
			var mu sync.Mutex
			var got []arm.RetryEvent
			c := emuClient(t, srv.URL(), func(o *arm.Options) {
				o.MaxRetries = 1
				o.RetryDelay = 10 * time.Millisecond
				o.OnRetry = func(e arm.RetryEvent) { mu.Lock(); got = append(got, e); mu.Unlock() }
			})
			if _, err := c.Get(context.Background(), emuST, stAPI); err == nil {
				t.Fatal("GET succeeded against an emulator that faults every request")
			}
			mu.Lock()
			defer mu.Unlock()
			if len(got) != 1 {
				t.Fatalf("%d retry events, want 1 (MaxRetries 1): %+v", len(got), got)
			}
			e := got[0]
			if e.Method != "GET" || e.Path != emuST || e.Attempt != 2 || e.Exact != tc.exact || e.Delay != tc.delay {
				t.Errorf("event %+v", e)
			}
			ok := false
			for _, r := range tc.reasons {
				ok = ok || e.Reason == r
			}
			if !ok {
				t.Errorf("reason %q, want one of %q", e.Reason, tc.reasons)
			}
			if line := e.String(); strings.ContainsAny(line, "?{") || strings.Contains(line, "injected") {
				t.Errorf("line %q carries a query or body text", line)
			}
		})
	}
}
