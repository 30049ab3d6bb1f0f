package emulator

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
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

// BenchmarkGenericList is one page (1,000 items, $filter on the type) of
// the subscription's generic list, from the store and from the lagging
// cache.
func BenchmarkGenericList(b *testing.B) {
	for _, c := range []struct {
		name string
		lag  time.Duration
	}{{"store", 0}, {"cachelag", 10 * time.Second}} {
		b.Run(c.name, func(b *testing.B) {
			opts := DefaultOptions()
			opts.Throttle.Enabled = false
			opts.CacheLag = c.lag
			s, err := New(opts)
			if err != nil {
				b.Fatal(err)
			}
			for i := range 1000 {
				id := fmt.Sprintf("/subscriptions/%s/resourceGroups/rg%d/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id%d", testSub, i%10, i)
				if err := s.Seed(id, "2023-01-31", map[string]any{"location": "westeurope", "tags": map[string]any{"n": fmt.Sprint(i)}}); err != nil {
					b.Fatal(err)
				}
			}
			h := s.Handler()
			u := "/subscriptions/" + testSub + "/resources?api-version=2021-04-01&$expand=changedTime&$filter=" + url.QueryEscape("resourceType eq 'Microsoft.ManagedIdentity/userAssignedIdentities'")
			b.ResetTimer()
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, u, nil))
				if rec.Code != 200 {
					b.Fatalf("GET: %d %s", rec.Code, rec.Body)
				}
			}
		})
	}
}
