package arm

import (
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// spyServer is a TLS host that is not the ARM endpoint. It shares
// httptest's certificate with the fake ARM, so a client that trusts one
// trusts both: only the client's own rules keep requests away from it.
type spyServer struct {
	srv  *httptest.Server
	mu   sync.Mutex
	hits []string // Authorization header of each request ("" when absent)
}

func newSpy(t *testing.T) *spyServer {
	s := &spyServer{}
	s.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits = append(s.hits, r.Header.Get("Authorization"))
		s.mu.Unlock()
		writeJSON(w, 200, map[string]any{"status": "Succeeded", "value": []any{}})
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *spyServer) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.hits...)
}

// newTLSFakeARM is newFakeARM over TLS with a bearer credential.
func newTLSFakeARM(t *testing.T) (*fakeARM, *Client) {
	t.Helper()
	f := newFakeARM(t)
	f.srv.Close()
	f.srv = httptest.NewUnstartedServer(f.srv.Config.Handler)
	// Connections cut by Close at the end of a test are not news.
	f.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	f.srv.StartTLS()
	t.Cleanup(f.srv.Close)
	return f, tlsClient(t, f)
}

// tlsClient is a client of f's TLS server with a static credential; mut
// adjust its options first.
func tlsClient(t *testing.T, f *fakeARM, mut ...func(*Options)) *Client {
	t.Helper()
	o := testOptions(f.srv.URL)
	o.HTTPClient = f.srv.Client()
	o.Credential = staticCred{}
	for _, m := range mut {
		m(&o)
	}
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// logTo makes a client log to w at verbosity v (kubectl's -v).
func logTo(w io.Writer, v int) func(*Options) {
	return func(o *Options) {
		o.Verbosity = v
		o.Log = w
	}
}

func TestCredentialsStayOnTheEndpointHost(t *testing.T) {
	cases := []struct {
		name  string
		setup func(f *fakeARM, spy string)
		call  func(c *Client) error
	}{
		{
			name: "Azure-AsyncOperation on another host",
			setup: func(f *fakeARM, spy string) {
				f.handle("PUT", testID, func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Azure-AsyncOperation", spy+"/operations/op1?api-version=x")
					writeJSON(w, 201, map[string]any{"properties": map[string]any{"provisioningState": "Accepted"}})
				})
			},
			call: func(c *Client) error {
				_, err := c.Put(context.Background(), testID, testAPI, map[string]any{"location": "westeurope"}, nil)
				return err
			},
		},
		{
			name: "Location on another host",
			setup: func(f *fakeARM, spy string) {
				f.handle("DELETE", testID, func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Location", spy+"/operationResults/op2")
					w.WriteHeader(202)
				})
			},
			call: func(c *Client) error {
				_, err := c.Delete(context.Background(), testID, testAPI, nil)
				return err
			},
		},
		{
			name: "nextLink on another host",
			setup: func(f *fakeARM, spy string) {
				f.handle("GET", "/subscriptions/"+testSub+"/resourcegroups", func(w http.ResponseWriter, r *http.Request) {
					writeJSON(w, 200, map[string]any{"value": []any{}, "nextLink": spy + "/page2"})
				})
			},
			call: func(c *Client) error {
				_, err := c.List(context.Background(), "/subscriptions/"+testSub+"/resourcegroups", "2021-04-01")
				return err
			},
		},
		{
			name: "redirect of a read to another host",
			setup: func(f *fakeARM, spy string) {
				f.handle("GET", testID, func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, spy+testID, http.StatusTemporaryRedirect)
				})
			},
			call: func(c *Client) error {
				_, err := c.Get(context.Background(), testID, testAPI)
				return err
			},
		},
		{
			name: "redirect of a write to another host",
			setup: func(f *fakeARM, spy string) {
				f.handle("PUT", testID, func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, spy+testID, http.StatusPermanentRedirect)
				})
			},
			call: func(c *Client) error {
				_, err := c.Put(context.Background(), testID, testAPI, map[string]any{}, nil)
				return err
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spy := newSpy(t)
			f, c := newTLSFakeARM(t)
			tc.setup(f, spy.srv.URL)
			err := tc.call(c)
			if err == nil {
				t.Fatal("no error; want the foreign URL refused")
			}
			var oe *OriginError
			var re *RedirectError
			if !errors.As(err, &oe) && !errors.As(err, &re) && !strings.Contains(err.Error(), "leaves the ARM endpoint") {
				t.Errorf("error does not say why: %v", err)
			}
			if hits := spy.requests(); len(hits) != 0 {
				t.Fatalf("the other host got %d requests (Authorization %q)", len(hits), hits)
			}
			// The endpoint itself did get the token: the test is not
			// passing because no credential was ever sent.
			if rs := f.requests(); len(rs) == 0 || rs[0].Header.Get("Authorization") != "Bearer static-token-value" {
				t.Fatalf("endpoint requests %+v", rs)
			}
		})
	}
}

// The guard compares whole origins: another port or scheme on the same
// host name is another server.
func TestSameOrigin(t *testing.T) {
	ep, _ := url.Parse("https://management.azure.com")
	for raw, want := range map[string]bool{
		"https://management.azure.com/x":         true,
		"https://MANAGEMENT.azure.com:443/x":     true,
		"https://management.azure.com:8443/x":    false,
		"http://management.azure.com/x":          false,
		"https://management.azure.com.evil.io/x": false,
		"https://evil.management.azure.com/x":    false,
		"/relative":                              false,
	} {
		u, _ := url.Parse(raw)
		if got := sameOrigin(u, ep); got != want {
			t.Errorf("sameOrigin(%s) = %v, want %v", raw, got, want)
		}
	}
}

func TestWritesNeverFollowRedirects(t *testing.T) {
	parent := "/subscriptions/" + testSub + "/resourceGroups/rg1/providers/Microsoft.Network/virtualNetworks/vnet1"
	for _, method := range []string{"PUT", "PATCH", "DELETE", "POST"} {
		for _, status := range []int{301, 302, 303, 307, 308} {
			f, c := newTLSFakeARM(t)
			child := parent + "/subnets/weird"
			f.handle(method, child, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, parent+"?api-version="+testAPI, status)
			})
			var err error
			body := map[string]any{"properties": map[string]any{}}
			switch method {
			case "PUT":
				_, err = c.Put(context.Background(), child, testAPI, body, nil)
			case "PATCH":
				_, err = c.Patch(context.Background(), child, testAPI, body, nil)
			case "DELETE":
				_, err = c.Delete(context.Background(), child, testAPI, nil)
			case "POST":
				_, err = c.Post(context.Background(), child, testAPI, nil, nil)
			}
			var re *RedirectError
			if !errors.As(err, &re) || re.Status != status || !strings.Contains(err.Error(), "writes are never redirected") {
				t.Errorf("%s answered %d: err %v; want a RedirectError", method, status, err)
			}
			for _, r := range f.requests() {
				if r.Path == parent {
					t.Errorf("%s %d: the redirect target got a %s", method, status, r.Method)
				}
			}
			if n := len(f.requests()); n != 1 {
				t.Errorf("%s %d: %d requests, want exactly the one refused (no retry)", method, status, n)
			}
		}
	}
}

func TestReadsFollowSameHostRedirects(t *testing.T) {
	f, c := newTLSFakeARM(t)
	moved := testID + "-moved"
	f.handle("GET", testID, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, moved+"?api-version="+testAPI, http.StatusMovedPermanently)
	})
	f.handle("GET", moved, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"id": moved, "auth": r.Header.Get("Authorization")})
	})
	resp, err := c.Get(context.Background(), testID, testAPI)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Body["id"] != moved || resp.Body["auth"] != "Bearer static-token-value" {
		t.Fatalf("body %v", resp.Body)
	}
}

func TestRedirectLoopIsBounded(t *testing.T) {
	f, c := newTLSFakeARM(t)
	f.handle("GET", testID, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, testID+"?api-version="+testAPI, http.StatusFound)
	})
	_, err := c.Get(context.Background(), testID, testAPI)
	var re *RedirectError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "more than") {
		t.Fatalf("err %v", err)
	}
	if n := len(f.requests()); n != maxRedirects+1 {
		t.Fatalf("%d requests, want %d", n, maxRedirects+1)
	}
}

// A caller's HTTP client keeps its own redirect policy: the ARM client
// works on a copy.
func TestCallerHTTPClientUntouched(t *testing.T) {
	hc := &http.Client{}
	o := testOptions("https://management.azure.com")
	o.HTTPClient = hc
	o.Credential = staticCred{}
	if _, err := New(o); err != nil {
		t.Fatal(err)
	}
	if hc.CheckRedirect != nil {
		t.Fatal("New changed the caller's http.Client")
	}
}

func TestRefusalsAreLogged(t *testing.T) {
	spy := newSpy(t)
	f, _ := newTLSFakeARM(t)
	f.handle("PUT", testID, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Azure-AsyncOperation", spy.srv.URL+"/operations/op1")
		writeJSON(w, 201, map[string]any{"properties": map[string]any{"provisioningState": "Accepted"}})
	})
	var buf strings.Builder
	c := tlsClient(t, f, logTo(&buf, VerbosityRequests))
	if _, err := c.Put(context.Background(), testID, testAPI, map[string]any{}, nil); err == nil {
		t.Fatal("no error")
	}
	if !strings.Contains(buf.String(), "GET "+spy.srv.URL+"/operations/op1 refused: ") {
		t.Fatalf("log:\n%s", buf.String())
	}
}
