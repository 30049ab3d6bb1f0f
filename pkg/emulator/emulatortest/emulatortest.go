// Package emulatortest is the emulator set-up the end-to-end suites share: a
// front that counts ARM requests per client, manifest documents for their
// fixtures, fixture copying, and emulator options for building large
// fixtures fast. It depends on nothing above
// pkg/emulator, so pkg/cli's own tests can use it (package harness runs the
// CLI and cannot be imported there).
package emulatortest

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
)

// The clients a Front tells apart, from the User-Agent of each request.
const (
	ClientLoop = "loop" // the reconcile loop (apply --watch, the controller)
	ClientCLI  = "cli"  // a kubectl-azure command
)

// ClientOf names the client of a User-Agent: ClientLoop, ClientCLI, or
// other for anyone else (a person or script changing Azure).
func ClientOf(userAgent, other string) string {
	switch {
	case strings.Contains(userAgent, "reconcile"):
		return ClientLoop
	case strings.HasPrefix(userAgent, "kubectl-azure/"):
		return ClientCLI
	}
	return other
}

// Front serves an emulated ARM and counts, per client, the requests under
// /subscriptions/ by method and the 429s, and per resource path the writes
// ARM accepted. The emulator's own counters cannot tell clients apart.
type Front struct {
	URL string

	handler func() http.Handler
	other   string

	mu        sync.Mutex
	requests  map[string]map[string]int // client -> method -> count
	throttled map[string]int
	writesTo  map[string]int // lower-cased path -> accepted writes
}

// StartFront serves handler() (asked per request, so the emulator behind
// it may be replaced between runs) until the test ends; requests from
// neither the loop nor the CLI count as other's.
func StartFront(t testing.TB, handler func() http.Handler, other string) *Front {
	t.Helper()
	f := &Front{handler: handler, other: other, requests: map[string]map[string]int{}, throttled: map[string]int{}, writesTo: map[string]int{}}
	hs := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(hs.Close)
	f.URL = hs.URL
	return f
}

// statusRecorder keeps the status a handler answered with.
type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (r *statusRecorder) WriteHeader(c int) { r.code = c; r.ResponseWriter.WriteHeader(c) }

// Flush keeps streaming responses working through the recorder.
func (r *statusRecorder) Flush() {
	if fl, ok := r.ResponseWriter.(http.Flusher); ok {
		fl.Flush()
	}
}

func (f *Front) serve(w http.ResponseWriter, r *http.Request) {
	who := ClientOf(r.UserAgent(), f.other)
	rec := &statusRecorder{ResponseWriter: w, code: http.StatusOK}
	f.handler().ServeHTTP(rec, r)
	if !strings.HasPrefix(r.URL.Path, "/subscriptions/") {
		return // the emulator's admin API is nobody's traffic
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.requests[who] == nil {
		f.requests[who] = map[string]int{}
	}
	f.requests[who][r.Method]++
	if rec.code == http.StatusTooManyRequests {
		f.throttled[who]++
	}
	if r.Method != http.MethodGet && rec.code < 300 {
		f.writesTo[strings.ToLower(r.URL.Path)]++
	}
}

// Count is how many requests with any of methods the client sent.
func (f *Front) Count(who string, methods ...string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, m := range methods {
		n += f.requests[who][m]
	}
	return n
}

// Writes is how many PUT, PATCH, DELETE and POST requests the client sent.
func (f *Front) Writes(who string) int { return f.Count(who, "PUT", "PATCH", "DELETE", "POST") }

// Throttled is how many of the client's requests ARM answered with 429.
func (f *Front) Throttled(who string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.throttled[who]
}

// TotalThrottled is the 429s of every client.
func (f *Front) TotalThrottled() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.throttled {
		n += c
	}
	return n
}

// WritesOf is how many writes to the resource path id ARM accepted
// (compared case-insensitively).
func (f *Front) WritesOf(id string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.writesTo[strings.ToLower(id)]
}

// CopyDir copies the files (not the subdirectories) of a testdata
// directory into to, creating it.
func CopyDir(t testing.TB, from, to string) {
	t.Helper()
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Unthrottled is for building fixtures fast: instant long-running
// operations and buckets so large that the client's pacer, which follows
// x-ms-ratelimit-remaining-*, never waits. Seed 42, as the benchmarks use.
func Unthrottled() emulator.Options {
	o := emulator.DefaultOptions()
	o.Seed = 42
	o.LRODuration = 0
	big := emulator.Bucket{Size: 1e7, Refill: 1e6}
	o.Throttle.Reads, o.Throttle.Writes, o.Throttle.Deletes = big, big, big
	return o
}
