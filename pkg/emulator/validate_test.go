package emulator

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestWalkBodyVisitsEveryValueWithItsPath(t *testing.T) {
	var body map[string]any
	if err := json.Unmarshal([]byte(`{"a":{"b":[1,{"c":"x"}]},"d":"y"}`), &body); err != nil {
		t.Fatal(err)
	}
	var got []string
	seen := map[string][]string{}
	walkBody(body, nil, func(v any, concrete []string) *armError {
		p := strings.Join(concrete, ".")
		got = append(got, p)
		seen[p] = concrete
		return nil
	})
	slices.Sort(got)
	want := []string{"", "a", "a.b", "a.b.[0]", "a.b.[1]", "a.b.[1].c", "d"}
	if !slices.Equal(got, want) {
		t.Fatalf("visited %q, want %q", got, want)
	}
	// Paths handed to visit must not share storage: a callback may keep one.
	if p := strings.Join(seen["a.b.[0]"], "."); p != "a.b.[0]" {
		t.Errorf("kept path changed to %q", p)
	}
}

func TestWalkBodyStopsAtFirstError(t *testing.T) {
	body := map[string]any{"a": []any{"x", "stop", "z"}}
	visits := 0
	err := walkBody(body, nil, func(v any, concrete []string) *armError {
		visits++
		if v == "stop" {
			return newError(400, "Stop", "stopped at %s", strings.Join(concrete, "."))
		}
		return nil
	})
	if err == nil || err.Code != "Stop" || !strings.Contains(err.Message, "a.[1]") {
		t.Fatalf("err = %+v, want Stop at a.[1]", err)
	}
	if visits != 4 { // body, a, a[0], a[1]
		t.Errorf("visited %d values, want 4", visits)
	}
}
