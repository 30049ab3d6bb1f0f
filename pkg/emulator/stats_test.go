package emulator

import (
	"net/http"
	"testing"
)

// GET /_emulator/stats splits the counters by User-Agent so a test can tell
// one client's traffic from another's (issue 30 item 4).
func TestStatsByClient(t *testing.T) {
	s := startTest(t, nil)
	g := s.URL() + "/subscriptions/" + testSub + "/resourceGroups/by-client?api-version=2021-04-01"
	do(t, http.MethodPut, g, map[string]any{"location": "westus"}, "User-Agent", "controller/1.0")
	do(t, http.MethodGet, g, nil, "User-Agent", "controller/1.0")
	do(t, http.MethodGet, g, nil, "User-Agent", "controller/1.0")
	do(t, http.MethodPatch, g, map[string]any{"tags": map[string]any{"k": "v"}}, "User-Agent", "person")
	// Admin requests are not counted, under any agent.
	do(t, http.MethodGet, s.URL()+"/_emulator/resources", nil, "User-Agent", "person")

	st := do(t, http.MethodGet, s.URL()+"/_emulator/stats", nil)
	by, _ := st.Body["byClient"].(map[string]any)
	if by == nil {
		t.Fatalf("stats lacks byClient: %s", st.Raw)
	}
	want := map[string]map[string]float64{
		"controller/1.0": {"GET": 2, "PUT": 1, "PATCH": 0, "DELETE": 0, "POST": 0, "POLL": 0},
		"person":         {"GET": 0, "PUT": 0, "PATCH": 1, "DELETE": 0, "POST": 0, "POLL": 0},
	}
	if len(by) != len(want) {
		t.Errorf("byClient has %d agents, want %d: %s", len(by), len(want), st.Raw)
	}
	for ua, counts := range want {
		got, _ := by[ua].(map[string]any)
		for m, n := range counts {
			if got[m] != n {
				t.Errorf("byClient[%q][%s] = %v, want %v (%s)", ua, m, got[m], n, st.Raw)
			}
		}
	}
	// The in-process view agrees, and a reset forgets the clients.
	if n := s.Stats().ByClient["controller/1.0"]["GET"]; n != 2 {
		t.Errorf("Stats().ByClient GET = %d, want 2", n)
	}
	s.Reset()
	if n := len(s.Stats().ByClient); n != 0 {
		t.Errorf("after Reset, %d clients remain", n)
	}
}

// A client that changes its User-Agent on every request cannot grow the
// table without bound.
func TestStatsByClientBounded(t *testing.T) {
	c := newStatsCounter()
	for i := 0; i < maxClients+50; i++ {
		c.request("GET", "agent-"+itoa(i))
	}
	st := c.snapshot()
	if len(st.ByClient) > maxClients+1 {
		t.Fatalf("byClient grew to %d entries", len(st.ByClient))
	}
	if st.ByClient[otherClients]["GET"] != 50 {
		t.Errorf("overflow counted %d, want 50", st.ByClient[otherClients]["GET"])
	}
	if st.Requests["GET"] != int64(maxClients+50) {
		t.Errorf("total GET = %d", st.Requests["GET"])
	}
}
