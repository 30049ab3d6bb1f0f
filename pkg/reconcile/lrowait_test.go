package reconcile

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// TestBatchLetsGoOfTheLockOnlyWhileWaiting: a batch holds the state lock
// for its state operations, lets it go while a write waits for Azure, and
// hides the intent of that write from another batch's repair (which would
// otherwise settle a write still in flight as if its run had died).
func TestBatchLetsGoOfTheLockOnlyWhileWaiting(t *testing.T) {
	ctx := context.Background()
	st, err := state.Open(ctx, filepath.Join(t.TempDir(), "state.json"), state.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c := &Controller{Store: st, Options: DefaultOptions()}
	c.Options.Holder, c.Options.LockTimeout = "loop", 100*time.Millisecond
	b, err := c.lockBatch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer b.done()
	const id = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/slow"
	if err := b.store().BeginIntent(ctx, state.Intent{ID: id, Op: state.OpPut, Type: "Microsoft.Network/virtualNetworks", APIVersion: "2024-01-01"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Lock(ctx, "someone", 50*time.Millisecond); err == nil {
		t.Fatal("another run took the lock while the batch journaled its write")
	}
	waiting, finish := make(chan struct{}), make(chan struct{})
	done := make(chan struct{})
	go func() {
		b.wait(id, func() { close(waiting); <-finish })
		close(done)
	}()
	<-waiting
	// While Azure provisions: another run gets the lock, and another batch
	// of this loop does not see the intent in flight.
	unlock, err := st.Lock(ctx, "someone", time.Second)
	if err != nil {
		t.Fatalf("the lock is still held during the wait: %v", err)
	}
	_ = unlock()
	other, err := c.lockBatch(ctx)
	if err != nil {
		t.Fatalf("another batch of the loop cannot start during the wait: %v", err)
	}
	ins, err := other.store().Intents(ctx)
	if err != nil || len(ins) != 0 {
		t.Fatalf("another batch sees %d intent(s) (%v): the write in flight would be repaired", len(ins), err)
	}
	other.done()
	close(finish)
	<-done
	// Recording takes the lock again; the intent is visible once no write
	// waits for it.
	ins, err = b.store().Intents(ctx)
	if err != nil || len(ins) != 1 {
		t.Fatalf("after the wait: %d intent(s), %v", len(ins), err)
	}
	if _, err := st.Lock(ctx, "someone", 50*time.Millisecond); err == nil {
		t.Fatal("the batch does not hold the lock again after the wait")
	}
}

// TestBatchWaitsForAWriteInFlight: with the locks let go during a wait,
// another batch (a parent's, which plans what is declared inside it) may
// plan the resource being written; it waits instead of sending a second
// write over the first.
func TestBatchWaitsForAWriteInFlight(t *testing.T) {
	c := &Controller{Options: DefaultOptions()}
	c.init()
	const id = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/slow"
	res := &manifest.Resource{ID: id, Type: "Microsoft.Network/virtualNetworks", APIVersion: "2024-01-01"}
	set := &manifest.Set{Resources: []*manifest.Resource{res}}
	p := &plan.Plan{Resources: []plan.Resource{{ID: id, Action: plan.ActionUpdate, Changes: []plan.Change{{Path: "tags.a", Cause: plan.CauseUser}}}}}
	key := armid.Key(id)
	c.inflight = map[string]int{key: 1}
	writes, wait, stop := c.admit(p, set, set, key, nil)
	if len(writes) != 0 || !wait || !stop {
		t.Fatalf("admit = %d write(s), wait %v, stop %v; want none, to wait", len(writes), wait, stop)
	}
	delete(c.inflight, key)
	if writes, _, _ := c.admit(p, set, set, key, nil); len(writes) != 1 {
		t.Fatalf("with no write in flight: %d write(s), want 1", len(writes))
	}
}
