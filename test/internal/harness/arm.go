// Package harness is shared by the reliability, crash, bad-input and
// benchmark suites: an emulated ARM endpoint whose behaviour can be changed
// between CLI runs, a way to run the CLI in-process or as a binary, and
// generators for manifest sets of any size.
package harness

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
)

// Sub is the subscription every suite uses.
const Sub = "00000000-0000-0000-0000-00000000b0b0"

// ARM is an emulated ARM endpoint on a fixed loopback address. Unlike a bare
// emulator.Server it can
//   - go down and come back on the same address (Stop/Restart), which is what
//     a client sees when ARM or the network disappears mid-run;
//   - change behaviour (faults, latency) between runs without losing its
//     resources (Reconfigure), so a test can break ARM for one run and then
//     check that a healthy rerun converges;
//   - count, per resource, how often it was created and written, which the
//     emulator's global counters cannot tell.
type ARM struct {
	t    testing.TB
	addr string
	URL  string

	mu      sync.Mutex
	srv     *emulator.Server
	retired []emulator.Stats // stats of servers replaced by Reconfigure
	httpSrv *http.Server
	creates map[string]int // lower-cased ID -> PUTs answered 201/202 (a creation)
	writes  map[string]int // lower-cased ID -> PUT/PATCH/DELETE answered 2xx
	sent    []string       // "METHOD path" of every write request received, in order
}

// FastOptions are emulator options for tests that must finish quickly:
// short long-running operations, no latency, default throttling.
func FastOptions() emulator.Options {
	o := emulator.DefaultOptions()
	o.LRODuration = 30 * time.Millisecond
	o.Seed = 1
	return o
}

// StartARM serves an emulator with opts on a fresh loopback port until the
// test ends.
func StartARM(t testing.TB, opts emulator.Options) *ARM {
	t.Helper()
	srv, err := emulator.New(opts)
	if err != nil {
		t.Fatalf("emulator: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := &ARM{t: t, addr: ln.Addr().String(), srv: srv, creates: map[string]int{}, writes: map[string]int{}}
	a.URL = "http://" + a.addr
	a.serve(ln)
	t.Cleanup(func() { a.Stop() })
	return a
}

func (a *ARM) serve(ln net.Listener) {
	hs := &http.Server{Handler: http.HandlerFunc(a.handle), ReadHeaderTimeout: 10 * time.Second}
	a.mu.Lock()
	a.httpSrv = hs
	a.mu.Unlock()
	go func() { _ = hs.Serve(ln) }()
}

// Server is the emulator currently answering.
func (a *ARM) Server() *emulator.Server {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.srv
}

type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
	r.ResponseWriter.WriteHeader(code)
}
func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.code == 0 {
		r.code = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

// Hijack keeps the emulator's connection-reset fault working through the recorder.
func (r *statusRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	hj, ok := r.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("not hijackable")
	}
	return hj.Hijack()
}

func (a *ARM) handle(w http.ResponseWriter, r *http.Request) {
	srv := a.Server()
	m := r.Method
	isWrite := (m == http.MethodPut || m == http.MethodPatch || m == http.MethodDelete) && !strings.HasPrefix(r.URL.Path, "/_emulator")
	if !isWrite {
		srv.Handler().ServeHTTP(w, r)
		return
	}
	rec := &statusRecorder{ResponseWriter: w}
	a.mu.Lock()
	a.sent = append(a.sent, m+" "+r.URL.Path)
	a.mu.Unlock()
	srv.Handler().ServeHTTP(rec, r)
	id := strings.ToLower(strings.TrimRight(r.URL.Path, "/"))
	a.mu.Lock()
	defer a.mu.Unlock()
	if rec.code >= 200 && rec.code < 300 {
		a.writes[id]++
		if m == http.MethodPut && (rec.code == http.StatusCreated || rec.code == http.StatusAccepted) {
			a.creates[id]++
		}
	}
}

// Stop closes the endpoint: new connections are refused and open ones cut.
// The resources survive for Restart.
func (a *ARM) Stop() {
	a.mu.Lock()
	hs := a.httpSrv
	a.httpSrv = nil
	a.mu.Unlock()
	if hs != nil {
		_ = hs.Close()
	}
}

// Restart serves again on the same address.
func (a *ARM) Restart() {
	a.t.Helper()
	var ln net.Listener
	var err error
	// The port was ours a moment ago; retry briefly while the kernel releases it.
	for i := 0; i < 50; i++ {
		if ln, err = net.Listen("tcp", a.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		a.t.Fatalf("re-listening on %s: %v", a.addr, err)
	}
	a.serve(ln)
}

// Reconfigure replaces the emulator with one built from opts holding the
// same resources (stored verbatim, as the old one returned them). Call it
// only between CLI runs: operations in flight are not carried over.
func (a *ARM) Reconfigure(opts emulator.Options) {
	a.t.Helper()
	next, err := emulator.New(opts)
	if err != nil {
		a.t.Fatalf("emulator: %v", err)
	}
	for _, r := range a.Live() {
		if err := next.Seed(r.ID, r.APIVersion, r.Body); err != nil {
			a.t.Fatalf("carrying %s over: %v", r.ID, err)
		}
	}
	a.mu.Lock()
	a.retired = append(a.retired, a.srv.Stats())
	a.srv = next
	a.mu.Unlock()
}

// Stats sums the counters of every emulator this endpoint has used.
func (a *ARM) Stats() emulator.Stats {
	a.mu.Lock()
	defer a.mu.Unlock()
	all := append([]emulator.Stats{a.srv.Stats()}, a.retired...)
	sum := emulator.Stats{Requests: map[string]int64{}}
	for _, s := range all {
		for k, v := range s.Requests {
			sum.Requests[k] += v
		}
		sum.Throttled += s.Throttled
		sum.Faults += s.Faults
	}
	return sum
}

// Writes is the number of PUT, PATCH, DELETE and POST requests ARM received.
func Writes(s emulator.Stats) int64 {
	return s.Requests["PUT"] + s.Requests["PATCH"] + s.Requests["DELETE"] + s.Requests["POST"]
}

// Creates returns, per lower-cased resource ID, how many PUTs created it.
func (a *ARM) Creates() map[string]int {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make(map[string]int, len(a.creates))
	for k, v := range a.creates {
		out[k] = v
	}
	return out
}

// WritesTo returns, per lower-cased resource ID, the successful writes.
func (a *ARM) WritesTo() map[string]int {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make(map[string]int, len(a.writes))
	for k, v := range a.writes {
		out[k] = v
	}
	return out
}

// LiveResource is one resource as the admin API lists it.
type LiveResource struct {
	ID         string         `json:"id"`
	APIVersion string         `json:"apiVersion"`
	Body       map[string]any `json:"body"`
}

// Live lists every resource the emulator holds, through the admin API
// (which is neither counted nor throttled).
func (a *ARM) Live() []LiveResource {
	a.t.Helper()
	rec := httptest.NewRecorder()
	a.Server().Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/_emulator/resources", nil))
	var out struct{ Value []LiveResource }
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		a.t.Fatalf("admin list: %v: %s", err, rec.Body.String())
	}
	sort.Slice(out.Value, func(i, j int) bool { return strings.ToLower(out.Value[i].ID) < strings.ToLower(out.Value[j].ID) })
	return out.Value
}

// LiveIDs is Live as a set of lower-cased IDs.
func (a *ARM) LiveIDs() map[string]bool {
	ids := map[string]bool{}
	for _, r := range a.Live() {
		ids[strings.ToLower(r.ID)] = true
	}
	return ids
}

// SeedGroup creates a resource group outside the manifests (as a platform
// team's landing zone would), without counting as an ARM request.
func (a *ARM) SeedGroup(name string) {
	a.t.Helper()
	id := fmt.Sprintf("/subscriptions/%s/resourceGroups/%s", Sub, name)
	if err := a.Server().Seed(id, "2021-04-01", map[string]any{"location": "westeurope", "name": name, "id": id, "type": "Microsoft.Resources/resourceGroups", "properties": map[string]any{"provisioningState": "Succeeded"}}); err != nil {
		a.t.Fatal(err)
	}
}
