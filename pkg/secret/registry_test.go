package secret

import (
	"strings"
	"sync"
	"testing"
)

// TestRegistriesDoNotShare: two runs in one process each have their own
// registry; a value one registered is neither scrubbed nor recognised by
// the other. The process-wide registry this replaced failed here.
func TestRegistriesDoNotShare(t *testing.T) {
	a, b := NewRegistry(), NewRegistry()
	a.Register("first-run-secret-1")
	if b.Registered("first-run-secret-1") {
		t.Error("the second run's registry holds the first run's value")
	}
	if got := b.Scrub("x first-run-secret-1"); got != "x first-run-secret-1" {
		t.Errorf("the second run's registry scrubbed the first run's value: %s", got)
	}
	if got := a.Scrub("x first-run-secret-1"); strings.Contains(got, "first-run") {
		t.Errorf("the first run's registry lost its value: %s", got)
	}
}

// TestNilRegistry: a nil registry holds nothing and never panics.
func TestNilRegistry(t *testing.T) {
	var r *Registry
	r.Register("nil-secret-1")
	if r.Registered("nil-secret-1") || r.Scrub("nil-secret-1") != "nil-secret-1" {
		t.Error("a nil registry kept a value")
	}
	r.Include(NewRegistry())()
}

// TestLayeredRegistries: a child scrubs its parents' values, including
// ones registered later, while the parent never sees the child's; an
// included registry counts until released; across registries the longest
// value is still replaced first.
func TestLayeredRegistries(t *testing.T) {
	set := NewRegistry()
	set.Register("set-secret-1")
	run := NewRegistry(set)
	run.Register("run-secret-2")
	set.Register("set-later-3")
	for _, v := range []string{"set-secret-1", "run-secret-2", "set-later-3"} {
		if !run.Registered(v) || strings.Contains(run.Scrub("x "+v), v) {
			t.Errorf("the child misses %s", v)
		}
	}
	if set.Registered("run-secret-2") {
		t.Error("the parent holds the child's value")
	}

	long := NewRegistry()
	release := long.Include(run)
	if !long.Registered("run-secret-2") || !long.Registered("set-secret-1") {
		t.Error("an included registry is not consulted")
	}
	// A longer value in one registry containing a shorter one of another.
	other := NewRegistry()
	other.Register("run-secret-2-and-more")
	release2 := long.Include(other)
	if got := long.Scrub("x run-secret-2-and-more y"); got != "x "+Placeholder+" y" {
		t.Errorf("the longer value is not replaced whole: %s", got)
	}
	release2()
	release()
	release() // twice is harmless
	if long.Registered("run-secret-2") || long.Scrub("run-secret-2") != "run-secret-2" {
		t.Error("a released registry is still consulted")
	}
}

// TestRegistryConcurrent registers and scrubs at once (run with -race).
func TestRegistryConcurrent(t *testing.T) {
	r := NewRegistry()
	long := NewRegistry()
	defer long.Include(r)()
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for j := range 50 {
				r.Register(strings.Repeat("k", 4+i) + string(rune('a'+j%26)))
			}
		}()
		go func() {
			defer wg.Done()
			for range 50 {
				_ = long.Scrub(`x kkkka \"kkkkkb\" y`)
			}
		}()
	}
	wg.Wait()
	if strings.Contains(long.Scrub("x kkkka y"), "kkkka") {
		t.Error("a value registered concurrently is not scrubbed")
	}
}
