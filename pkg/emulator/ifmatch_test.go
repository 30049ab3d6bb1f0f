package emulator

import (
	"net/http"
	"strings"
	"testing"
)

// TestWritesFencedByIfMatch pins optimistic concurrency as ARM answers it
// on every write verb: the etag a write answers (header and body) is the
// one a later GET shows; If-Match with that etag (or *) lets PUT, PATCH
// and DELETE through, a stale one is 412 PreconditionFailed and changes
// nothing; If-None-Match * refuses to overwrite.
func TestWritesFencedByIfMatch(t *testing.T) {
	_, base := armStart(t, nil)
	const av = "?api-version=2023-11-01"
	nsg := base + "/providers/Microsoft.Network/networkSecurityGroups/fence" + av
	put := do(t, http.MethodPut, nsg, map[string]any{"location": "westeurope", "tags": map[string]any{"v": "1"}})
	if put.Status != 201 && put.Status != 200 {
		t.Fatalf("PUT: %d %s", put.Status, put.Raw)
	}
	etag := str(put.Body, "etag")
	if etag == "" || put.Header.Get("ETag") != etag {
		t.Fatalf("PUT answered etag %q in the body and %q in the header; want the same, non-empty", etag, put.Header.Get("ETag"))
	}
	if g := do(t, http.MethodGet, nsg, nil); str(g.Body, "etag") != etag || g.Header.Get("ETag") != etag {
		t.Fatalf("GET etag %q / header %q, want %q", str(g.Body, "etag"), g.Header.Get("ETag"), etag)
	}
	stale := `W/"00000000-0000-0000-0000-000000000000"`
	for _, c := range []struct {
		method string
		body   map[string]any
	}{
		{http.MethodPatch, map[string]any{"tags": map[string]any{"v": "stale"}}},
		{http.MethodPut, map[string]any{"location": "westeurope", "tags": map[string]any{"v": "stale"}}},
		{http.MethodDelete, nil},
	} {
		r := do(t, c.method, nsg, c.body, "If-Match", stale)
		if r.Status != http.StatusPreconditionFailed || errCode(r) != "PreconditionFailed" {
			t.Errorf("%s with a stale If-Match: %d %s, want 412 PreconditionFailed", c.method, r.Status, r.Raw)
		}
		if msg := str(r.Body, "error", "message"); !strings.Contains(msg, stale) || !strings.Contains(msg, etag) {
			t.Errorf("%s 412 message %q should name both etags", c.method, msg)
		}
	}
	if g := do(t, http.MethodGet, nsg, nil); g.Status != 200 || str(g.Body, "tags", "v") != "1" || str(g.Body, "etag") != etag {
		t.Fatalf("after refused writes: %d %s", g.Status, g.Raw)
	}
	// The current etag, with or without the weak prefix (ARM RPs compare
	// the opaque value), lets a PATCH through and moves the etag.
	p := do(t, http.MethodPatch, nsg, map[string]any{"tags": map[string]any{"v": "2"}}, "If-Match", strings.TrimPrefix(etag, "W/"))
	if p.Status != 200 || str(p.Body, "tags", "v") != "2" {
		t.Fatalf("PATCH with the current etag: %d %s", p.Status, p.Raw)
	}
	next := str(p.Body, "etag")
	if next == etag || p.Header.Get("ETag") != next {
		t.Errorf("PATCH etag %q (header %q), was %q: want a new one in both", next, p.Header.Get("ETag"), etag)
	}
	if r := do(t, http.MethodPatch, nsg, map[string]any{"tags": map[string]any{"v": "3"}}, "If-Match", etag); r.Status != 412 {
		t.Errorf("PATCH with the etag before the last write: %d, want 412", r.Status)
	}
	if r := do(t, http.MethodPut, nsg, map[string]any{"location": "westeurope"}, "If-None-Match", "*"); r.Status != 412 || errCode(r) != "PreconditionFailed" {
		t.Errorf("PUT If-None-Match * on an existing resource: %d %s, want 412", r.Status, r.Raw)
	}
	if r := do(t, http.MethodPatch, nsg, map[string]any{"tags": map[string]any{"v": "4"}}, "If-Match", "*"); r.Status != 200 {
		t.Errorf("PATCH If-Match *: %d %s, want 200", r.Status, r.Raw)
	}
	if r := do(t, http.MethodPut, base+"/providers/Microsoft.Network/networkSecurityGroups/absent"+av, map[string]any{"location": "westeurope"}, "If-Match", "*"); r.Status != 412 {
		t.Errorf("PUT If-Match * on a missing resource: %d, want 412", r.Status)
	}
	if r := do(t, http.MethodDelete, nsg, nil, "If-Match", next); r.Status != 412 {
		t.Errorf("DELETE with a superseded etag: %d, want 412", r.Status)
	}
	g := do(t, http.MethodGet, nsg, nil)
	if r := do(t, http.MethodDelete, nsg, nil, "If-Match", str(g.Body, "etag")); r.Status != 200 && r.Status != 202 && r.Status != 204 {
		t.Errorf("DELETE with the current etag: %d %s", r.Status, r.Raw)
	}
}
