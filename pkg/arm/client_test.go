package arm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

const (
	testSub = "00000000-0000-0000-0000-000000000001"
	testAPI = "2023-05-01"
)

var testID = "/subscriptions/" + testSub + "/resourceGroups/rg1/providers/Microsoft.Storage/storageAccounts/st1"

// fakeARM is a scripted ARM endpoint: tests register handlers per
// "METHOD path" and the server records every request it saw.
type fakeARM struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	handlers map[string]http.HandlerFunc
	seen     []seenReq
}

type seenReq struct {
	Method, Path, Query string
	Header              http.Header
	Body                []byte
}

func newFakeARM(t *testing.T) *fakeARM {
	t.Helper()
	f := &fakeARM{t: t, handlers: map[string]http.HandlerFunc{}}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.seen = append(f.seen, seenReq{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Clone(), body})
		h := f.handlers[r.Method+" "+r.URL.Path]
		f.mu.Unlock()
		if h == nil {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"error":{"code":"ResourceNotFound","message":"no handler for %s %s"}}`, r.Method, r.URL.Path)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		h(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeARM) handle(method, path string, h http.HandlerFunc) {
	f.mu.Lock()
	f.handlers[method+" "+path] = h
	f.mu.Unlock()
}

func (f *fakeARM) requests() []seenReq {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seenReq(nil), f.seen...)
}

func (f *fakeARM) count(method, path string) int {
	n := 0
	for _, r := range f.requests() {
		if r.Method == method && (path == "" || r.Path == path) {
			n++
		}
	}
	return n
}

// testOptions are fast: short poll interval and retry delays.
func testOptions(endpoint string) Options {
	o := DefaultOptions()
	o.Endpoint = endpoint
	o.Version = "1.2.3-test"
	o.PollInterval = 5 * time.Millisecond
	o.RetryDelay = 5 * time.Millisecond
	o.MaxRetryDelay = 5 * time.Second
	return o
}

func (f *fakeARM) client(mut ...func(*Options)) *Client {
	f.t.Helper()
	o := testOptions(f.srv.URL)
	for _, m := range mut {
		m(&o)
	}
	c, err := New(o)
	if err != nil {
		f.t.Fatal(err)
	}
	return c
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func TestGetReturnsBodyETagAndHeaders(t *testing.T) {
	f := newFakeARM(t)
	f.handle("GET", testID, func(w http.ResponseWriter, r *http.Request) {
		if got := r.URL.Query().Get("api-version"); got != testAPI {
			t.Errorf("api-version = %q", got)
		}
		w.Header().Set("ETag", `W/"abc"`)
		w.Header().Set("x-ms-request-id", "rid-1")
		writeJSON(w, 200, map[string]any{"id": testID, "location": "westeurope"})
	})
	c := f.client()
	resp, err := c.Get(context.Background(), testID, testAPI)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.ETag != `W/"abc"` || resp.Body["location"] != "westeurope" || resp.Header.Get("x-ms-request-id") != "rid-1" {
		t.Fatalf("unexpected response %+v", resp)
	}
	ua := f.requests()[0].Header.Get("User-Agent")
	if ua != "kubectl-azure/1.2.3-test" {
		t.Fatalf("User-Agent = %q", ua)
	}
	if h := f.requests()[0].Header.Get("Authorization"); h != "" {
		t.Fatalf("loopback request carried Authorization %q", h)
	}
}

func TestETagFromBodyWhenNoHeader(t *testing.T) {
	f := newFakeARM(t)
	f.handle("GET", testID, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"etag": "body-etag"})
	})
	resp, err := f.client().Get(context.Background(), testID, testAPI)
	if err != nil {
		t.Fatal(err)
	}
	if resp.ETag != "body-etag" {
		t.Fatalf("ETag = %q", resp.ETag)
	}
}

func TestGetNotFoundIsTyped(t *testing.T) {
	f := newFakeARM(t)
	_, err := f.client().Get(context.Background(), testID, testAPI)
	if !IsNotFound(err) {
		t.Fatalf("want not found, got %v", err)
	}
	var e *Error
	if !asError(err, &e) || e.Code != "ResourceNotFound" || e.Method != "GET" || e.ID != testID {
		t.Fatalf("unexpected error %#v", err)
	}
	if IsPreconditionFailed(err) || isConflict(err) {
		t.Fatal("404 classified as something else")
	}
}

func TestErrorMessagesSayWhatToDo(t *testing.T) {
	cases := []struct {
		status int
		code   string
		want   []string
	}{
		{403, "AuthorizationFailed", []string{"PUT", testID, "403", "AuthorizationFailed", "the client has no access", "role assignment"}},
		{409, "Conflict", []string{"409", "Conflict", "another operation in progress"}},
		{400, "InvalidTemplate", []string{"400", "InvalidTemplate", "property named"}},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			f := newFakeARM(t)
			f.handle("PUT", testID, func(w http.ResponseWriter, r *http.Request) {
				writeJSON(w, tc.status, map[string]any{"error": map[string]any{
					"code": tc.code, "message": "the client has no access",
					"details": []any{map[string]any{"code": "Inner", "message": "detail text"}},
				}})
			})
			_, err := f.client().Put(context.Background(), testID, testAPI, map[string]any{"location": "x"}, nil)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			for _, w := range append(tc.want, "Inner", "detail text") {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
			if StatusCode(err) != tc.status {
				t.Errorf("StatusCode = %d", StatusCode(err))
			}
		})
	}
}

func TestPutSyncSendsJSONAndIfMatch(t *testing.T) {
	f := newFakeARM(t)
	f.handle("PUT", testID, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"id": testID, "properties": map[string]any{"provisioningState": "Succeeded"}})
	})
	resp, err := f.client().Put(context.Background(), testID, testAPI, map[string]any{"location": "westeurope"}, &RequestOptions{IfMatch: `"e1"`})
	if err != nil {
		t.Fatal(err)
	}
	if resp.LRO || resp.StatusCode != 200 {
		t.Fatalf("unexpected %+v", resp)
	}
	req := f.requests()[0]
	if req.Header.Get("If-Match") != `"e1"` || !strings.HasPrefix(req.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("headers %v", req.Header)
	}
	var got map[string]any
	if err := json.Unmarshal(req.Body, &got); err != nil || got["location"] != "westeurope" {
		t.Fatalf("body %s", req.Body)
	}
}

func TestPreconditionFailedIsTyped(t *testing.T) {
	f := newFakeARM(t)
	f.handle("PUT", testID, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 412, map[string]any{"error": map[string]any{"code": "PreconditionFailed", "message": "etag mismatch"}})
	})
	_, err := f.client().Put(context.Background(), testID, testAPI, map[string]any{}, &RequestOptions{IfMatch: "old"})
	if !IsPreconditionFailed(err) {
		t.Fatalf("want 412, got %v", err)
	}
	if !strings.Contains(err.Error(), "etag") {
		t.Fatalf("message %q", err)
	}
	if n := f.count("PUT", testID); n != 1 {
		t.Fatalf("412 was retried: %d PUTs", n)
	}
}

func TestPatch405IsRememberedPerType(t *testing.T) {
	f := newFakeARM(t)
	f.handle("PATCH", testID, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 405, map[string]any{"error": map[string]any{"code": "MethodNotAllowed", "message": "The requested resource does not support http method 'PATCH'."}})
	})
	c := f.client()
	if c.PatchUnsupported("Microsoft.Storage/storageAccounts") {
		t.Fatal("type marked before any PATCH")
	}
	_, err := c.Patch(context.Background(), testID, testAPI, map[string]any{"tags": map[string]any{"a": "b"}}, nil)
	if !IsMethodNotAllowed(err) {
		t.Fatalf("want 405, got %v", err)
	}
	if !c.PatchUnsupported("microsoft.storage/STORAGEACCOUNTS") {
		t.Fatal("405 not remembered for the type")
	}
	if c.PatchUnsupported("Microsoft.Network/virtualNetworks") {
		t.Fatal("other type marked")
	}
	if f.requests()[0].Header.Get("Content-Type") != "application/json" {
		t.Fatalf("PATCH content type %q", f.requests()[0].Header.Get("Content-Type"))
	}
}

func TestPatchMergeNullIsSent(t *testing.T) {
	f := newFakeARM(t)
	f.handle("PATCH", testID, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"id": testID})
	})
	_, err := f.client().Patch(context.Background(), testID, testAPI, map[string]any{"properties": map[string]any{"gone": nil}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(f.requests()[0].Body); got != `{"properties":{"gone":null}}` {
		t.Fatalf("body %s", got)
	}
}

func TestPutLROAzureAsyncOperation(t *testing.T) {
	f := newFakeARM(t)
	var polls atomic.Int32
	var created atomic.Bool
	f.handle("PUT", testID, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Azure-AsyncOperation", f.srv.URL+"/subscriptions/"+testSub+"/providers/Microsoft.Storage/operations/op1?api-version="+testAPI)
		w.Header().Set("Retry-After", "0")
		writeJSON(w, 201, map[string]any{"id": testID, "properties": map[string]any{"provisioningState": "Creating"}})
	})
	f.handle("GET", "/subscriptions/"+testSub+"/providers/Microsoft.Storage/operations/op1", func(w http.ResponseWriter, r *http.Request) {
		if polls.Add(1) < 3 {
			writeJSON(w, 200, map[string]any{"status": "InProgress"})
			return
		}
		created.Store(true)
		writeJSON(w, 200, map[string]any{"status": "Succeeded"})
	})
	f.handle("GET", testID, func(w http.ResponseWriter, r *http.Request) {
		if !created.Load() {
			t.Error("resource read before the operation succeeded")
		}
		w.Header().Set("ETag", "final")
		writeJSON(w, 200, map[string]any{"id": testID, "properties": map[string]any{"provisioningState": "Succeeded"}})
	})
	c := f.client()
	resp, err := c.Put(context.Background(), testID, testAPI, map[string]any{"location": "westeurope"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !resp.LRO || !resp.ReadBack || resp.ETag != "final" || resp.Initial == nil || resp.Initial.StatusCode != 201 {
		t.Fatalf("unexpected %+v", resp)
	}
	if polls.Load() != 3 {
		t.Fatalf("polls = %d", polls.Load())
	}
	if s := c.Stats(); s.Polls < 3 {
		t.Fatalf("stats polls = %d", s.Polls)
	}
}

func TestLROFailureIsTypedWithMessage(t *testing.T) {
	f := newFakeARM(t)
	f.handle("PUT", testID, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Azure-AsyncOperation", f.srv.URL+"/op/fail")
		writeJSON(w, 201, map[string]any{})
	})
	f.handle("GET", "/op/fail", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"status": "Failed", "error": map[string]any{"code": "QuotaExceeded", "message": "no cores left"}})
	})
	_, err := f.client().Put(context.Background(), testID, testAPI, map[string]any{}, nil)
	var e *Error
	if !asError(err, &e) {
		t.Fatalf("want *Error, got %v", err)
	}
	if e.OperationStatus != "Failed" || e.Code != "QuotaExceeded" || !strings.Contains(err.Error(), "no cores left") {
		t.Fatalf("unexpected %#v / %v", e, err)
	}
}

func TestDeleteLROLocation(t *testing.T) {
	f := newFakeARM(t)
	var polls atomic.Int32
	f.handle("DELETE", testID, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", f.srv.URL+"/op/del1")
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(202)
	})
	f.handle("GET", "/op/del1", func(w http.ResponseWriter, r *http.Request) {
		if polls.Add(1) < 2 {
			w.WriteHeader(202)
			return
		}
		w.WriteHeader(204)
	})
	resp, err := f.client().Delete(context.Background(), testID, testAPI, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !resp.LRO || resp.ReadBack || polls.Load() != 2 {
		t.Fatalf("resp %+v polls %d", resp, polls.Load())
	}
	if n := f.count("GET", testID); n != 0 {
		t.Fatalf("DELETE LRO read the resource %d times", n)
	}
}

func TestPutLROBodyProvisioningState(t *testing.T) {
	f := newFakeARM(t)
	var gets atomic.Int32
	f.handle("PUT", testID, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 201, map[string]any{"properties": map[string]any{"provisioningState": "Creating"}})
	})
	f.handle("GET", testID, func(w http.ResponseWriter, r *http.Request) {
		state := "Creating"
		if gets.Add(1) >= 2 {
			state = "Succeeded"
		}
		writeJSON(w, 200, map[string]any{"name": "st1", "properties": map[string]any{"provisioningState": state}})
	})
	resp, err := f.client().Put(context.Background(), testID, testAPI, map[string]any{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Body["name"] != "st1" || !resp.ReadBack || gets.Load() != 2 {
		t.Fatalf("resp %+v gets %d", resp, gets.Load())
	}
}

func TestLROHonoursRetryAfter(t *testing.T) {
	f := newFakeARM(t)
	var mu sync.Mutex
	var times []time.Time
	f.handle("DELETE", testID, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", f.srv.URL+"/op/ra")
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(202)
	})
	start := time.Now()
	f.handle("GET", "/op/ra", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		times = append(times, time.Now())
		mu.Unlock()
		w.WriteHeader(200)
	})
	// A poll interval far longer than the test: only Retry-After can
	// make the first poll come after ~1 s.
	c := f.client(func(o *Options) { o.PollInterval = time.Hour })
	if _, err := c.Delete(context.Background(), testID, testAPI, nil); err != nil {
		t.Fatal(err)
	}
	if len(times) != 1 || times[0].Sub(start) < 900*time.Millisecond {
		t.Fatalf("poll times %v (start %v)", times, start)
	}
}

func TestRetry429WithRetryAfterThenSuccess(t *testing.T) {
	f := newFakeARM(t)
	var n atomic.Int32
	var first time.Time
	var second time.Time
	f.handle("PUT", testID, func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) {
		case 1:
			first = time.Now()
			w.Header().Set("Retry-After", "1")
			writeJSON(w, 429, map[string]any{"error": map[string]any{"code": "TooManyRequests", "message": "slow down"}})
		default:
			second = time.Now()
			if string(mustRead(r)) != `{"a":1}` {
				t.Error("retried PUT lost its body")
			}
			writeJSON(w, 200, map[string]any{"ok": true})
		}
	})
	c := f.client()
	resp, err := c.Put(context.Background(), testID, testAPI, map[string]any{"a": 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Body["ok"] != true || n.Load() != 2 {
		t.Fatalf("resp %+v after %d PUTs", resp, n.Load())
	}
	if second.Sub(first) < 900*time.Millisecond {
		t.Fatalf("Retry-After not honoured: retried after %v", second.Sub(first))
	}
	s := c.Stats()
	if s.Throttled != 1 || s.Retries != 1 || s.Requests["PUT"] != 2 || s.Calls != 1 {
		t.Fatalf("stats %+v", s)
	}
}

func mustRead(r *http.Request) []byte {
	b, _ := io.ReadAll(r.Body)
	return b
}

func TestRetry503ForEveryMethod(t *testing.T) {
	for _, m := range []string{"GET", "PUT", "PATCH", "DELETE"} {
		t.Run(m, func(t *testing.T) {
			f := newFakeARM(t)
			var n atomic.Int32
			f.handle(m, testID, func(w http.ResponseWriter, r *http.Request) {
				if n.Add(1) <= 2 {
					writeJSON(w, 503, map[string]any{"error": map[string]any{"code": "ServiceUnavailable"}})
					return
				}
				writeJSON(w, 200, map[string]any{})
			})
			c := f.client()
			if err := callMethod(c, m); err != nil {
				t.Fatal(err)
			}
			if n.Load() != 3 || c.Stats().ServerErrors != 2 {
				t.Fatalf("%d attempts, stats %+v", n.Load(), c.Stats())
			}
		})
	}
}

func TestRetriesExhaustedReturnTypedError(t *testing.T) {
	f := newFakeARM(t)
	f.handle("GET", testID, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 500, map[string]any{"error": map[string]any{"code": "InternalServerError", "message": "boom"}})
	})
	c := f.client(func(o *Options) { o.MaxRetries = 2 })
	_, err := c.Get(context.Background(), testID, testAPI)
	if StatusCode(err) != 500 || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("err %v", err)
	}
	if n := f.count("GET", testID); n != 3 {
		t.Fatalf("%d attempts, want 1 + 2 retries", n)
	}
}

func TestConnectionResetIsRetried(t *testing.T) {
	f := newFakeARM(t)
	var n atomic.Int32
	f.handle("PUT", testID, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			if tc, ok := conn.(*net.TCPConn); ok {
				_ = tc.SetLinger(0) // RST instead of FIN
			}
			_ = conn.Close()
			return
		}
		writeJSON(w, 200, map[string]any{"done": true})
	})
	c := f.client()
	resp, err := c.Put(context.Background(), testID, testAPI, map[string]any{"x": 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Body["done"] != true || n.Load() != 2 || c.Stats().TransportErrors != 1 {
		t.Fatalf("resp %+v attempts %d stats %+v", resp, n.Load(), c.Stats())
	}
}

func TestListFollowsNextLink(t *testing.T) {
	f := newFakeARM(t)
	rgPath := "/subscriptions/" + testSub + "/resourceGroups/rg1/resources"
	f.handle("GET", rgPath, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("page") {
		case "":
			writeJSON(w, 200, map[string]any{"value": []any{map[string]any{"name": "a"}, map[string]any{"name": "b"}}, "nextLink": f.srv.URL + rgPath + "?api-version=2021-04-01&page=2"})
		case "2":
			writeJSON(w, 200, map[string]any{"value": []any{map[string]any{"name": "c"}}})
		}
	})
	items, err := f.client().ListResourceGroup(context.Background(), testSub, "rg1")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, it := range items {
		names = append(names, it["name"].(string))
	}
	if strings.Join(names, ",") != "a,b,c" {
		t.Fatalf("names %v", names)
	}
	if q := f.requests()[0].Query; q != "api-version="+ListResourceGroupAPIVersion {
		t.Fatalf("query %q", q)
	}
}

func TestListRefusesForeignNextLink(t *testing.T) {
	f := newFakeARM(t)
	p := "/subscriptions/" + testSub + "/resourceGroups"
	f.handle("GET", p, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"value": []any{}, "nextLink": "http://evil.example/steal"})
	})
	_, err := f.client().List(context.Background(), p, "2021-04-01")
	if err == nil || !strings.Contains(err.Error(), "leaves the ARM endpoint") {
		t.Fatalf("err %v", err)
	}
}

func TestEndpointRules(t *testing.T) {
	ok := []string{"http://127.0.0.1:8080", "http://127.9.8.7", "http://[::1]:1234", "http://localhost:9", "http://LOCALHOST"}
	for _, ep := range ok {
		o := DefaultOptions()
		o.Endpoint = ep
		c, err := New(o)
		if err != nil {
			t.Errorf("%s: %v", ep, err)
			continue
		}
		if c.Authenticated() {
			t.Errorf("%s: loopback plain HTTP must not use a credential", ep)
		}
	}
	bad := []string{"http://10.0.0.1", "http://example.com", "http://127.0.0.1.example.com", "http://[::2]", "ftp://127.0.0.1", "not a url"}
	for _, ep := range bad {
		o := DefaultOptions()
		o.Endpoint = ep
		if _, err := New(o); err == nil {
			t.Errorf("%s accepted", ep)
		} else if strings.HasPrefix(ep, "http://") && !strings.Contains(err.Error(), "plain-HTTP") {
			t.Errorf("%s: unclear error %v", ep, err)
		}
	}
	o := DefaultOptions()
	o.Endpoint = "https://arm.example.test"
	o.Credential = staticCred{}
	c, err := New(o)
	if err != nil || !c.Authenticated() {
		t.Fatalf("https endpoint: %v", err)
	}
}

func TestClouds(t *testing.T) {
	for cl, want := range map[string]string{"public": "management.azure.com", "china": "management.chinacloudapi.cn", "usgov": "management.usgovcloudapi.net"} {
		o := DefaultOptions()
		o.Cloud = cl
		o.Credential = staticCred{}
		c, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(c.Endpoint(), want) {
			t.Errorf("%s: endpoint %s", cl, c.Endpoint())
		}
	}
	o := DefaultOptions()
	o.Cloud = "mars"
	if _, err := New(o); err == nil {
		t.Fatal("unknown cloud accepted")
	}
	o = DefaultOptions()
	o.Auth = "magic"
	if _, err := New(o); err == nil || !strings.Contains(err.Error(), "client-secret") {
		t.Fatalf("unknown auth: %v", err)
	}
	t.Setenv("AZURE_TENANT_ID", "")
	t.Setenv("AZURE_CLIENT_ID", "")
	t.Setenv("AZURE_CLIENT_SECRET", "")
	o = DefaultOptions()
	o.Auth = AuthClientSecret
	if _, err := New(o); err == nil || !strings.Contains(err.Error(), "AZURE_CLIENT_SECRET") {
		t.Fatalf("client-secret without secret: %v", err)
	}
	// The environment fills what the flags left empty.
	t.Setenv("AZURE_TENANT_ID", "t")
	t.Setenv("AZURE_CLIENT_ID", "c")
	t.Setenv("AZURE_CLIENT_SECRET", "s")
	if _, err := New(o); err != nil {
		t.Fatalf("client-secret from environment: %v", err)
	}
}

func TestResourceTypeOf(t *testing.T) {
	cases := map[string]string{
		testID: "Microsoft.Storage/storageAccounts",
		"/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/s1": "Microsoft.Network/virtualNetworks/subnets",
		"/subscriptions/s/resourceGroups/rg": "Microsoft.Resources/resourceGroups",
		"/subscriptions/s/resourceGroups/rg/providers/Microsoft.KeyVault/vaults/kv/providers/Microsoft.Authorization/roleAssignments/ra1": "Microsoft.Authorization/roleAssignments",
	}
	for id, want := range cases {
		if got := ResourceTypeOf(id); got != want {
			t.Errorf("%s: %s, want %s", id, got, want)
		}
	}
}

func asError(err error, target **Error) bool {
	e, ok := err.(*Error)
	if ok {
		*target = e
	}
	return ok
}

type staticCred struct{}

func (staticCred) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: "static-token-value", ExpiresOn: time.Now().Add(time.Hour)}, nil
}

// A PUT answered 202 + Location (no Azure-AsyncOperation): the final body
// is the operation result, not a GET of the resource, and says so.
func TestPutLROLocationIsNotReadBack(t *testing.T) {
	f := newFakeARM(t)
	var polls atomic.Int32
	f.handle("PUT", testID, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", f.srv.URL+"/op/put-loc")
		w.WriteHeader(202)
	})
	f.handle("GET", "/op/put-loc", func(w http.ResponseWriter, r *http.Request) {
		if polls.Add(1) == 1 {
			w.WriteHeader(202)
			return
		}
		writeJSON(w, 200, map[string]any{"name": "from-location"})
	})
	resp, err := f.client().Put(context.Background(), testID, testAPI, map[string]any{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !resp.LRO || resp.ReadBack || resp.Body["name"] != "from-location" || polls.Load() != 2 {
		t.Fatalf("resp %+v polls %d", resp, polls.Load())
	}
}

func TestTimeoutBoundsLRO(t *testing.T) {
	f := newFakeARM(t)
	f.handle("PUT", testID, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Azure-AsyncOperation", f.srv.URL+"/op/forever")
		writeJSON(w, 201, map[string]any{})
	})
	f.handle("GET", "/op/forever", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"status": "InProgress"})
	})
	c := f.client(func(o *Options) { o.Timeout = 150 * time.Millisecond })
	_, err := c.Put(context.Background(), testID, testAPI, map[string]any{}, nil)
	if err == nil || !strings.Contains(err.Error(), "deadline") || !strings.Contains(err.Error(), testID) {
		t.Fatalf("err %v", err)
	}
	if f.count("GET", "/op/forever") < 2 {
		t.Fatal("operation was not polled before the timeout")
	}
}

func TestConcurrencyBoundsInFlightRequests(t *testing.T) {
	f := newFakeARM(t)
	var cur, peak atomic.Int32
	f.handle("GET", testID, func(w http.ResponseWriter, r *http.Request) {
		n := cur.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
		cur.Add(-1)
		writeJSON(w, 200, map[string]any{})
	})
	c := f.client(func(o *Options) { o.Concurrency = 3 })
	var wg sync.WaitGroup
	for i := 0; i < 12; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Get(context.Background(), testID, testAPI); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if p := peak.Load(); p != 3 {
		t.Fatalf("peak in-flight %d, want 3", p)
	}
	if c.Concurrency() != 3 {
		t.Fatal("Concurrency()")
	}
}

// A POST action may have run before a 5xx: it is not repeated, but a 429
// (refused at the gateway) is.
func TestPostRetriedOnlyOn429(t *testing.T) {
	f := newFakeARM(t)
	action := testID + "/regenerateKey"
	var n atomic.Int32
	f.handle("POST", action, func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) {
		case 1:
			w.Header().Set("Retry-After", "0")
			writeJSON(w, 429, map[string]any{"error": map[string]any{"code": "TooManyRequests"}})
		case 2:
			writeJSON(w, 500, map[string]any{"error": map[string]any{"code": "InternalServerError", "message": "half done"}})
		default:
			writeJSON(w, 200, map[string]any{})
		}
	})
	_, err := f.client().Post(context.Background(), action, testAPI, nil, nil)
	if StatusCode(err) != 500 || n.Load() != 2 {
		t.Fatalf("err %v after %d POSTs; want the 500 after one 429 retry", err, n.Load())
	}
}
