package arm

import (
	"context"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// retryLog collects OnRetry events.
type retryLog struct {
	mu     sync.Mutex
	events []RetryEvent
}

func (l *retryLog) add(e RetryEvent) {
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
}

func (l *retryLog) all() []RetryEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]RetryEvent(nil), l.events...)
}

// checkSafe fails when an event's line could carry a query string (signed
// URLs, api-version), a header or body text.
func checkSafe(t *testing.T, e RetryEvent) {
	t.Helper()
	line := e.String()
	for _, bad := range []string{"?", "api-version", "http://", "https://", "Bearer", "{"} {
		if strings.Contains(line, bad) {
			t.Errorf("retry line %q contains %q", line, bad)
		}
	}
}

// A closed port is retried MaxRetries times; each retry is announced,
// before its wait, with the nominal backoff, and the last failure (which
// is not retried) is not.
func TestRetryNoticeConnectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()

	var got retryLog
	o := testOptions("http://" + addr)
	o.MaxRetries = 2
	o.RetryDelay = 10 * time.Millisecond
	o.OnRetry = got.add
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(context.Background(), testID, testAPI); err == nil {
		t.Fatal("GET to a closed port succeeded")
	}
	ev := got.all()
	if len(ev) != 2 {
		t.Fatalf("%d retry events, want 2 (MaxRetries): %+v", len(ev), ev)
	}
	for i, e := range ev {
		want := RetryEvent{Method: "GET", Path: testID, Attempt: i + 2, Delay: time.Duration(1<<(i+1)-1) * 10 * time.Millisecond, Reason: "connection refused"}
		if e != want {
			t.Errorf("event %d = %+v, want %+v", i, e, want)
		}
		checkSafe(t, e)
	}
	if s := ev[0].String(); s != "retrying GET "+testID+": connection refused (attempt 2, next in ~10ms)" {
		t.Errorf("line %q", s)
	}
}

func TestRetryNoticeResponses(t *testing.T) {
	type answer struct {
		status int
		code   string
		header map[string]string
	}
	cases := []struct {
		name    string
		method  string
		answers []answer // then 200
		mut     func(*Options)
		want    []RetryEvent
		wantErr bool
	}{
		{name: "503 twice, nominal backoff", method: "GET",
			answers: []answer{{status: 503}, {status: 503}},
			want: []RetryEvent{
				{Attempt: 2, Delay: 5 * time.Millisecond, Reason: "503 Service Unavailable"},
				{Attempt: 3, Delay: 15 * time.Millisecond, Reason: "503 Service Unavailable"},
			}},
		{name: "503 with Retry-After is exact", method: "PUT",
			answers: []answer{{status: 503, header: map[string]string{"Retry-After": "1"}}},
			want:    []RetryEvent{{Attempt: 2, Delay: time.Second, Exact: true, Reason: "503 Service Unavailable: retry after 1s"}}},
		{name: "throttling 429 is resent after the pacer's wait", method: "GET",
			answers: []answer{{status: 429, header: map[string]string{"retry-after-ms": "20"}}},
			want:    []RetryEvent{{Attempt: 2, Delay: 20 * time.Millisecond, Exact: true, Reason: "429 Too Many Requests: retry after 20ms"}}},
		{name: "429 without pacing goes to the retry policy", method: "GET", mut: func(o *Options) { o.Pacing = false },
			answers: []answer{{status: 429, header: map[string]string{"Retry-After": "0"}}},
			want:    []RetryEvent{{Attempt: 2, Delay: 5 * time.Millisecond, Reason: "429 Too Many Requests"}}},
		{name: "a retryable ARM code is named", method: "PATCH",
			answers: []answer{{status: 409, code: "AnotherOperationInProgress"}},
			want:    []RetryEvent{{Attempt: 2, Delay: 5 * time.Millisecond, Reason: "409 Conflict (AnotherOperationInProgress)"}}},
		{name: "a Retry-After past the cap is the user's, not a retry", method: "GET",
			answers: []answer{{status: 429, header: map[string]string{"Retry-After": "3600"}}},
			wantErr: true},
		{name: "POST is not retried on 500", method: "POST",
			answers: []answer{{status: 500}}, wantErr: true},
		{name: "404 is not retried", method: "GET",
			answers: []answer{{status: 404, code: "ResourceNotFound"}}, wantErr: true},
		{name: "the last failure is not announced", method: "DELETE", mut: func(o *Options) { o.MaxRetries = 1 },
			answers: []answer{{status: 500}, {status: 500}, {status: 500}},
			want:    []RetryEvent{{Attempt: 2, Delay: 5 * time.Millisecond, Reason: "500 Internal Server Error"}}, wantErr: true},
		{name: "no retries, no notice", method: "GET", mut: func(o *Options) { o.MaxRetries = -1 },
			answers: []answer{{status: 503}}, wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeARM(t)
			var n atomic.Int32
			f.handle(tc.method, testID, func(w http.ResponseWriter, r *http.Request) {
				k := int(n.Add(1)) - 1
				if k < len(tc.answers) {
					a := tc.answers[k]
					for h, v := range a.header {
						w.Header().Set(h, v)
					}
					code := a.code
					if code == "" {
						code = strings.ReplaceAll(http.StatusText(a.status), " ", "")
					}
					writeJSON(w, a.status, map[string]any{"error": map[string]any{"code": code, "message": "details that must not be printed"}})
					return
				}
				writeJSON(w, 200, map[string]any{"id": testID})
			})
			var got retryLog
			c := f.client(func(o *Options) {
				o.OnRetry = got.add
				if tc.mut != nil {
					tc.mut(o)
				}
			})
			err := callMethod(c, tc.method)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			ev := got.all()
			if len(ev) != len(tc.want) {
				t.Fatalf("events %+v, want %+v", ev, tc.want)
			}
			for i, w := range tc.want {
				w.Method, w.Path = tc.method, testID
				if ev[i] != w {
					t.Errorf("event %d = %+v, want %+v", i, ev[i], w)
				}
				checkSafe(t, ev[i])
				if strings.Contains(ev[i].String(), "must not") {
					t.Errorf("line %q repeats the response body", ev[i])
				}
			}
		})
	}
}

// A value the run registered as secret never reaches a retry line, even
// inside a resource name.
func TestRetryNoticeScrubsSecrets(t *testing.T) {
	id := "/subscriptions/" + testSub + "/resourceGroups/rg1/providers/Microsoft.Web/sites/app-hunter2hunter2"
	f := newFakeARM(t)
	var n atomic.Int32
	f.handle("GET", id, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.WriteHeader(502)
			return
		}
		writeJSON(w, 200, map[string]any{"id": id})
	})
	reg := secret.NewRegistry()
	reg.Register("hunter2hunter2")
	var got retryLog
	c := f.client(func(o *Options) { o.OnRetry = got.add; o.Secrets = reg })
	if _, err := c.Get(context.Background(), id, testAPI); err != nil {
		t.Fatal(err)
	}
	ev := got.all()
	if len(ev) != 1 || strings.Contains(ev[0].String(), "hunter2") || ev[0].Reason != "502 Bad Gateway" {
		t.Fatalf("events %+v", ev)
	}
}

func TestRetryNoticesCoalesceParallelRequests(t *testing.T) {
	var n RetryNotices
	a := RetryEvent{Method: "GET", Path: "/a", Attempt: 2, Delay: time.Second, Reason: "connection refused"}
	b := a
	b.Path = "/b"
	if _, ok := n.Line(a); !ok {
		t.Fatal("first event gave no line")
	}
	if line, ok := n.Line(b); ok {
		t.Fatalf("a parallel request failing alike gave a second line %q", line)
	}
	b.Attempt = 3
	if _, ok := n.Line(b); !ok {
		t.Fatal("the next round of retries gave no line")
	}
	b.Reason = "503 Service Unavailable"
	if _, ok := n.Line(b); !ok {
		t.Fatal("a different reason gave no line")
	}
	n.Window = time.Nanosecond
	time.Sleep(time.Millisecond)
	if _, ok := n.Line(a); !ok {
		t.Fatal("the same event after the window gave no line")
	}
}

// callMethod sends one request of the method to testID, with an empty
// body for writes.
func callMethod(c *Client, method string) error {
	ctx := context.Background()
	var err error
	switch method {
	case "GET":
		_, err = c.Get(ctx, testID, testAPI)
	case "PUT":
		_, err = c.Put(ctx, testID, testAPI, map[string]any{}, nil)
	case "PATCH":
		_, err = c.Patch(ctx, testID, testAPI, map[string]any{}, nil)
	case "DELETE":
		_, err = c.Delete(ctx, testID, testAPI, nil)
	case "POST":
		_, err = c.Post(ctx, testID, testAPI, nil, nil)
	default:
		panic("callMethod: " + method)
	}
	return err
}
