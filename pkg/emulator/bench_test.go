package emulator

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkGetResource is one validated GET through the whole pipeline.
func BenchmarkGetResource(b *testing.B) {
	opts := DefaultOptions()
	opts.Throttle.Enabled = false
	s, err := New(opts)
	if err != nil {
		b.Fatal(err)
	}
	h := s.Handler()
	group := "/subscriptions/" + testSub + "/resourceGroups/rg"
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPut, group+"?api-version=2021-04-01", strings.NewReader(`{"location":"westeurope"}`)))
	id := group + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/idbench?api-version=2023-01-31"
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPut, id, strings.NewReader(`{"location":"westeurope"}`)))
	b.ResetTimer()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, id, nil))
		if rec.Code != 200 {
			b.Fatalf("GET: %d %s", rec.Code, rec.Body)
		}
	}
}
