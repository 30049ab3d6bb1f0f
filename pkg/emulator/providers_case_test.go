package emulator

import (
	"net/http"
	"testing"
)

// The index spells a few namespaces two ways (types the Network spec
// defines under Microsoft.Compute); the providers answer for the
// namespace is one, with every type, every time (it once answered either
// spelling's handful of types at random).
func TestProvidersAnswerOneNamespaceIgnoringCase(t *testing.T) {
	s, _ := armStart(t, nil)
	url := s.URL() + "/subscriptions/" + testSub + "/providers/Microsoft.Compute?api-version=2021-04-01"
	for i := range 20 {
		r := do(t, http.MethodGet, url, nil)
		if r.Status != 200 {
			t.Fatalf("GET providers: %d %s", r.Status, r.Raw)
		}
		rts, _ := r.Body["resourceTypes"].([]any)
		var ext bool
		for _, rt := range rts {
			if m, _ := rt.(map[string]any); m["resourceType"] == "virtualMachines/extensions" {
				ext = true
			}
		}
		if !ext || len(rts) < 20 {
			t.Fatalf("answer %d: %d types, virtualMachines/extensions listed: %v", i, len(rts), ext)
		}
	}
}
