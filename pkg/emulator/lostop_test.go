package emulator

import (
	"net/http"
	"testing"
	"time"
)

// TestLostOperations pins the two ways to lose long-running operations:
// ForgetOperations (and its admin call) loses every one in flight, the
// lost fault a share of them. A lost operation's polls answer 404
// OperationNotFound, and the write it tracked still finishes: a GET shows
// the resource Succeeded.
func TestLostOperations(t *testing.T) {
	for _, c := range []struct {
		name   string
		mutate func(*Options)
		lose   func(*testing.T, *Server) int
	}{
		{"ForgetOperations", nil, func(_ *testing.T, s *Server) int { return s.ForgetOperations() }},
		{"admin call", nil, func(t *testing.T, s *Server) int {
			r := do(t, http.MethodPost, s.URL()+"/_emulator/operations/forget", nil)
			n, _ := r.Body["forgotten"].(float64)
			return int(n)
		}},
		{"fault lost=1", func(o *Options) { o.Faults.LostOperation = 1 }, func(*testing.T, *Server) int { return 1 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, base := armStart(t, func(o *Options) {
				o.LRODuration = 300 * time.Millisecond
				if c.mutate != nil {
					c.mutate(o)
				}
			})
			vnet := base + "/providers/Microsoft.Network/virtualNetworks/lost?api-version=2023-11-01"
			put := do(t, http.MethodPut, vnet, map[string]any{"location": "westeurope",
				"properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"10.1.0.0/16"}}}})
			status, result := put.Header.Get("Azure-AsyncOperation"), put.Header.Get("Location")
			if put.Status != 201 || status == "" || result == "" {
				t.Fatalf("PUT: %d, polling headers %q %q", put.Status, status, result)
			}
			if n := c.lose(t, s); n != 1 {
				t.Fatalf("lost %d operations, want 1", n)
			}
			for _, u := range []string{status, result} {
				if r := do(t, http.MethodGet, u, nil); r.Status != 404 || errCode(r) != "OperationNotFound" {
					t.Errorf("poll %s: %d %s, want 404 OperationNotFound", u, r.Status, r.Raw)
				}
			}
			time.Sleep(350 * time.Millisecond)
			if g := do(t, http.MethodGet, vnet, nil); g.Status != 200 || str(g.Body, "properties", "provisioningState") != "Succeeded" {
				t.Errorf("the write behind a lost operation did not finish: %d %s", g.Status, g.Raw)
			}
			if n := s.ForgetOperations(); n != 0 {
				t.Errorf("nothing is in flight any more, but %d operations were lost", n)
			}
		})
	}
}
