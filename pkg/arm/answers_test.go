package arm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Issue 27 item 5: an answer the client cannot read is an error, never an
// empty resource.
func TestUndecodableGetIsAnError(t *testing.T) {
	deep := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	deepObj := `{"properties":` + strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001) + "}"
	cases := []struct {
		name, ctype, body string
		want              []string
		notWant           []string
	}{
		{"html login page", "text/html; charset=utf-8", "<html><head><title>Sign in to continue</title></head>\n<body>token=abc&sig=SECRETSIG123</body></html>",
			[]string{"200", "text/html", "Sign in to continue", "--endpoint"}, []string{"SECRETSIG123", "\n<body>"}},
		{"invalid json", "application/json", `{"id": "x", "properties": {"password": "hunter2hunter2"`,
			[]string{"200", "application/json", "unexpected EOF"}, []string{"hunter2hunter2"}},
		{"nested too deep", "application/json", deepObj, []string{"nested too deep"}, nil},
		{"array", "application/json", deep, []string{"nested too deep"}, nil},
		{"empty", "application/json", "", []string{"the body is empty"}, nil},
		{"null", "application/json", "null", []string{"not a JSON object"}, nil},
		{"json array", "application/json", `[{"id":"x"}]`, []string{"cannot unmarshal array"}, nil},
		{"trailing data", "application/json", `{"id":"x"}<html>`, []string{"after the JSON value"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeARM(t)
			f.handle("GET", testID, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tc.ctype)
				w.WriteHeader(http.StatusOK)
				fmt.Fprint(w, tc.body)
			})
			c := f.client()
			resp, err := c.Get(context.Background(), testID, testAPI)
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("Get = %+v, %v; want a *DecodeError", resp, err)
			}
			msg := err.Error()
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(msg, w) {
					t.Errorf("error %q contains %q", msg, w)
				}
			}
			if IsNotFound(err) {
				t.Error("an unreadable answer is not a 404")
			}
			// ReadMany: an error, not an existing empty resource.
			res := c.ReadMany(context.Background(), []ReadRequest{{ID: testID, APIVersion: testAPI}}, ReadManyOptions{})
			if res[0].Err == nil || res[0].Body != nil {
				t.Errorf("ReadMany = %+v; want an error and no body", res[0])
			}
		})
	}
}

func TestUndecodableListIsAnError(t *testing.T) {
	coll := "/subscriptions/" + testSub + "/resourceGroups/rg1/resources"
	for name, body := range map[string]string{
		"html":     "<html>Proxy error</html>",
		"no value": `{"items":[]}`,
		"invalid":  `{"value":[{"id":`,
	} {
		t.Run(name, func(t *testing.T) {
			f := newFakeARM(t)
			f.handle("GET", coll, func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusOK)
				fmt.Fprint(w, body)
			})
			ids, err := f.client().ResourceGroupContents(context.Background(), "/subscriptions/"+testSub+"/resourceGroups/rg1")
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("ResourceGroupContents = %v, %v; want a *DecodeError", ids, err)
			}
		})
	}
}

// A write's answer that is not JSON is not taken as a read-back.
func TestUndecodableWriteAnswerIsNotReadBack(t *testing.T) {
	f := newFakeARM(t)
	f.handle("PUT", testID, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		fmt.Fprint(w, "<html>ok</html>")
	})
	resp, err := f.client().Put(context.Background(), testID, testAPI, map[string]any{"location": "westeurope"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Body != nil || resp.ReadBack {
		t.Errorf("PUT answer = %+v; want no body and no read-back", resp)
	}
}

// Issue 27 item 11: an endless body is cut at the limit, with a clear
// error, once (not retried).
func TestResponseBodyIsBounded(t *testing.T) {
	f := newFakeARM(t)
	f.handle("GET", testID, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		fmt.Fprint(w, `{"id":"`)
		chunk := []byte(strings.Repeat("a", 64<<10))
		for i := 0; i < 1<<14; i++ { // up to 1 GiB unless the client stops
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	f.handle("GET", testID+"2", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "999999999")
		w.WriteHeader(http.StatusOK)
	})
	c := f.client(func(o *Options) { o.MaxResponseBytes = 1 << 20 })
	for _, id := range []string{testID, testID + "2"} {
		start := time.Now()
		_, err := c.Get(context.Background(), id, testAPI)
		var le *ResponseTooLargeError
		if !errors.As(err, &le) {
			t.Fatalf("%s: Get = %v; want *ResponseTooLargeError", id, err)
		}
		if !strings.Contains(err.Error(), "1 MiB") {
			t.Errorf("error %q does not name the limit", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("took %s", d)
		}
		if n := f.count("GET", id); n != 1 {
			t.Errorf("%s: %d attempts, want 1 (not retried)", id, n)
		}
	}
	if got := DefaultOptions().MaxResponseBytes; got != DefaultMaxResponseBytes || got < 4<<20 {
		t.Errorf("default limit %d", got)
	}
}

// Issue 27 item 11: a 429 asking for ten years is handed to the user at
// once, with the wait it asked for, and does not stall other requests.
func TestAbsurdRetryAfterIsReturnedAtOnce(t *testing.T) {
	cases := []struct {
		name, retryAfter string
		status           int
		timeout          time.Duration
	}{
		{"ten years 429", "315360000", http.StatusTooManyRequests, time.Hour},
		{"ten years 503", "315360000", http.StatusServiceUnavailable, time.Hour},
		{"longer than the timeout", "4", http.StatusTooManyRequests, 2 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeARM(t)
			f.handle("GET", testID, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", tc.retryAfter)
				writeJSON(w, tc.status, map[string]any{"error": map[string]any{"code": "TooManyRequests", "message": "slow down"}})
			})
			other := testID + "other"
			f.handle("GET", other, func(w http.ResponseWriter, r *http.Request) {
				writeJSON(w, http.StatusOK, map[string]any{"id": other})
			})
			c := f.client(func(o *Options) { o.Timeout = tc.timeout })
			start := time.Now()
			_, err := c.Get(context.Background(), testID, testAPI)
			if d := time.Since(start); d > time.Second {
				t.Errorf("took %s; want the error at once", d)
			}
			var te *ThrottledError
			if !errors.As(err, &te) {
				t.Fatalf("Get = %v; want *ThrottledError", err)
			}
			if StatusCode(err) != tc.status {
				t.Errorf("status %d", StatusCode(err))
			}
			if n := f.count("GET", testID); n != 1 {
				t.Errorf("%d attempts, want 1", n)
			}
			if !strings.Contains(err.Error(), "ARM asked to wait") || !strings.Contains(err.Error(), testID) {
				t.Errorf("error %q", err)
			}
			// Other reads are not blocked behind it.
			start = time.Now()
			// (served, or refused at once when the server's wait is
			// longer than this request's timeout too)
			if _, err := c.Get(context.Background(), other, testAPI); err != nil && !errors.As(err, &te) {
				t.Fatal(err)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("next read waited %s", d)
			}
		})
	}
}
