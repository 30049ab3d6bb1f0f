package arm

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// Big integers survive PUT and GET digit for digit: request bodies are
// encoded from json.Number as is, responses decoded with UseNumber.
func TestNumbersRoundTripExactly(t *testing.T) {
	f := newFakeARM(t)
	var mu sync.Mutex
	var stored []byte
	f.handle("PUT", testID, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		stored = mustRead(r)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(stored)
	})
	f.handle("GET", testID, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(stored)
	})
	nums := map[string]string{
		"beyondInt64":   "12345678901234567890",
		"beyondFloat53": "9007199254740993",
		"negative":      "-9223372036854775809",
		"fraction":      "0.10000000000000000001",
		"exponent":      "1e400",
	}
	props := map[string]any{}
	for k, v := range nums {
		props[k] = json.Number(v)
	}
	props["list"] = []any{json.Number("9007199254740993")}
	c := f.client()
	put, err := c.Put(context.Background(), testID, testAPI, map[string]any{"properties": props}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range nums {
		if !strings.Contains(string(stored), `"`+k+`":`+v) {
			t.Errorf("sent %s as %s", k, stored)
		}
	}
	get, err := c.Get(context.Background(), testID, testAPI)
	if err != nil {
		t.Fatal(err)
	}
	for _, resp := range []*Response{put, get} {
		got := resp.Body["properties"].(map[string]any)
		for k, v := range nums {
			if n, ok := got[k].(json.Number); !ok || string(n) != v {
				t.Errorf("%s came back as %#v, want json.Number(%s)", k, got[k], v)
			}
		}
		if l := got["list"].([]any); l[0] != json.Number("9007199254740993") {
			t.Errorf("array item came back as %#v", l[0])
		}
	}
}

func TestListKeepsNumbersExact(t *testing.T) {
	f := newFakeARM(t)
	p := rg + "/providers/Microsoft.Storage/storageAccounts"
	f.handle("GET", p, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"value":[{"id":"x","properties":{"n":12345678901234567890}}]}`))
	})
	items, err := f.client().List(context.Background(), p, testAPI)
	if err != nil {
		t.Fatal(err)
	}
	if n := items[0]["properties"].(map[string]any)["n"]; n != json.Number("12345678901234567890") {
		t.Fatalf("n = %#v", n)
	}
}

func FuzzDecodeObject(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1e999}`, `{"a":[1,{"b":null}]}`, `[]`, `null`, `{"a":1} x`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := decodeObject(data)
		if err != nil {
			return
		}
		// Whatever decodes re-encodes, and decodes to the same value.
		out, err := encodeJSON(m)
		if err != nil {
			t.Fatalf("re-encode %q: %v", data, err)
		}
		m2, err := decodeObject(out)
		if err != nil {
			t.Fatalf("decode of re-encoded %q: %v", out, err)
		}
		a, _ := encodeJSON(m2)
		if string(a) != string(out) {
			t.Fatalf("not stable: %s vs %s", out, a)
		}
	})
}
