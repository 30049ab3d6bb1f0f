package emulator

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzParseFilter: any $filter a client sends either compiles to a
// predicate that runs on any body, or is refused with ARM's code; never a
// panic.
func FuzzParseFilter(f *testing.F) {
	for _, s := range []string{"resourceType eq 'A/b'", "name eq 'x' and tagName eq 't' and tagValue eq 'v'", "substringof('a', name)", "atScope()", "assignedTo('p')", "name eq 'o''k'", "", "eq", "'"} {
		f.Add(s)
	}
	body := map[string]any{"name": "n", "type": "A/b", "id": "/subscriptions/s/resourceGroups/g/providers/A/b/n", "tags": map[string]any{"t": "v"}, "properties": map[string]any{"x": 1}}
	f.Fuzz(func(t *testing.T, filter string) {
		pred, err := parseFilter(filter)
		if err != nil {
			if err.Code != "InvalidFilterInQueryString" || err.Status != 400 {
				t.Fatalf("refusal %d %s, want 400 InvalidFilterInQueryString", err.Status, err.Code)
			}
			return
		}
		_ = pred(body)
		_ = pred(map[string]any{})
	})
}

// FuzzPutBody: whatever body a client PUTs, the emulator answers with an
// ARM status, never an internal error.
func FuzzPutBody(f *testing.F) {
	for _, s := range []string{
		`{"location":"westeurope","properties":{"subnets":[{"name":"a","properties":{"addressPrefix":"10.0.0.0/24"}}]}}`,
		`{"location":"westeurope","properties":{"subnets":[{"name":1}],"addressSpace":"x"}}`,
		`{"location":7}`, `[]`, `null`, `{"properties":{"ipConfigurations":[{"properties":{"subnet":{"id":"/subscriptions/s/resourceGroups/rg/x"}}}]}}`,
		`{"location":"westeurope","properties":{"n":12345678901234567890}}`,
	} {
		f.Add(s)
	}
	opts := DefaultOptions()
	opts.Throttle.Enabled = false
	opts.LRODuration = 0
	s, err := New(opts)
	if err != nil {
		f.Fatal(err)
	}
	h := s.Handler()
	group := "/subscriptions/" + testSub + "/resourceGroups/rg"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPut, group+"?api-version=2021-04-01", strings.NewReader(`{"location":"westeurope"}`)))
	f.Fuzz(func(t *testing.T, body string) {
		for _, path := range []string{"/providers/Microsoft.Network/virtualNetworks/v", "/providers/Microsoft.Network/networkInterfaces/n", "/providers/Microsoft.Storage/storageAccounts/stfuzz"} {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodPut, group+path+"?api-version=2024-01-01", strings.NewReader(body)))
			if rec.Code >= 500 {
				t.Fatalf("PUT %s %q: %d %s", path, body, rec.Code, rec.Body)
			}
		}
	})
}
