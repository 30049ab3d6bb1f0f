package state

import (
	"fmt"
	"sync"
	"testing"
)

// writeConcurrently runs write(i) for i in [0, n) on the given number of
// goroutines, as an apply's workers record their writes, and fails t with
// the first error any of them returned once all are done.
func writeConcurrently(t *testing.T, n, workers int, write func(i int) error) {
	t.Helper()
	var wg sync.WaitGroup
	work := make(chan int)
	errs := make(chan error, n)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if err := write(i); err != nil {
					errs <- err
				}
			}
		}()
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// spreadVnetID is the ID of the i-th of many virtual networks spread over
// 20 resource groups.
func spreadVnetID(i int) string {
	return fmt.Sprintf("/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg-%02d/providers/Microsoft.Network/virtualNetworks/vnet-%04d", i%20, i)
}
