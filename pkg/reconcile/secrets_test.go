package reconcile

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// TestRegistryDoesNotGrowAcrossReconciles: every plan or batch registers
// what it reads (here a rotated key per batch) in a registry of its own
// over its set's. The loop's long-lived registry (the ARM clients', the
// store's) sees those values while the batch runs and forgets them when it
// ends, and the set's registry keeps only the set's own values. With the
// process-wide registry every key ever read stayed for the process's life.
func TestRegistryDoesNotGrowAcrossReconciles(t *testing.T) {
	c := &Controller{}
	c.init()
	run := c.Secrets
	if run == nil {
		t.Fatal("Run must give the loop a registry when none was passed")
	}
	set := &manifest.Set{Secrets: secret.NewRegistry()}
	set.Secrets.Register("set-secret-value-1")
	const batches = 50
	for i := range batches {
		eng, release := c.engine(nil, true, set)
		key := fmt.Sprintf("rotated-key-%03d", i)
		eng.Secrets.Register(key)
		if !run.Registered(key) || !run.Registered("set-secret-value-1") {
			t.Fatalf("batch %d: the long-lived registry misses the running batch's values", i)
		}
		if strings.Contains(run.Scrub("x "+key+" y"), key) {
			t.Fatalf("batch %d: a running batch's value is not scrubbed from the clients' text", i)
		}
		release()
	}
	for i := range batches {
		key := fmt.Sprintf("rotated-key-%03d", i)
		if run.Registered(key) || set.Secrets.Registered(key) {
			t.Fatalf("%s outlived its batch", key)
		}
	}
	if run.Registered("set-secret-value-1") {
		t.Error("the loop's registry holds a set's value with no batch of it running")
	}
	if !set.Secrets.Registered("set-secret-value-1") {
		t.Error("the set lost its own value")
	}

	// The set the loop observes is seen until another replaces it.
	c.adopt(set, time.Now())
	if !run.Registered("set-secret-value-1") {
		t.Error("the observed set's values are not scrubbed from the loop's text")
	}
	next := &manifest.Set{Secrets: secret.NewRegistry()}
	next.Secrets.Register("next-set-value-2")
	c.adopt(next, time.Now())
	if run.Registered("set-secret-value-1") || !run.Registered("next-set-value-2") {
		t.Error("a replaced set's values stay in the loop's registry")
	}
	c.adopt(nil, time.Time{})
	if run.Registered("next-set-value-2") {
		t.Error("the loop's registry keeps a set after the loop stopped")
	}

	// Two loops in one process never share one.
	other := &Controller{}
	other.init()
	if other.Secrets == run {
		t.Error("two loops share a registry")
	}
}
