package emulator

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"
)

const testSub = "00000000-0000-0000-0000-0000000000aa"

// startTest starts an emulator with fast LROs and no throttling.
func startTest(t *testing.T, mutate func(*Options)) *Server {
	t.Helper()
	opts := DefaultOptions()
	opts.LRODuration = 30 * time.Millisecond
	opts.Throttle.Enabled = false
	if mutate != nil {
		mutate(&opts)
	}
	s, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// startWithGroup starts an emulator with instant long-running operations
// and creates the westeurope resource group name in testSub; it returns the
// emulator's URL and the group's ID.
func startWithGroup(t *testing.T, name string) (u, g string) {
	t.Helper()
	u = startTest(t, func(o *Options) { o.LRODuration = 0 }).URL()
	g = "/subscriptions/" + testSub + "/resourceGroups/" + name
	do(t, http.MethodPut, u+g+"?api-version=2021-04-01", map[string]any{"location": "westeurope"})
	return u, g
}

type resp struct {
	Status int
	Header http.Header
	Body   map[string]any
	Raw    string
}

// do sends one request; body may be nil, a map or a string.
func do(t *testing.T, method, url string, body any, hdr ...string) resp {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = bytes.NewBufferString(b)
	default:
		j, _ := json.Marshal(b)
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	out := resp{Status: res.StatusCode, Header: res.Header, Raw: string(raw)}
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &out.Body)
	}
	return out
}

func errCode(r resp) string {
	e, _ := r.Body["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

func str(v any, keys ...string) string {
	for _, k := range keys {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	s, _ := v.(string)
	return s
}

// pollAsync follows Azure-AsyncOperation until a terminal status.
func pollAsync(t *testing.T, url string) string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		r := do(t, http.MethodGet, url, nil)
		if r.Status != http.StatusOK {
			t.Fatalf("poll %s: %d %s", url, r.Status, r.Raw)
		}
		if st := str(r.Body, "status"); st != "InProgress" {
			return st
		}
		if r.Header.Get("Retry-After") == "" {
			t.Fatalf("poll %s: InProgress without Retry-After", url)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("poll %s: still InProgress after 5s", url)
	return ""
}
