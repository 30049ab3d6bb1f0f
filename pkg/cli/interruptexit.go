package cli

import "sync"

// Clean-ups a second Ctrl-C runs before exiting at once: that exit skips
// every deferred call, so what must not be left behind (an external diff's
// temporary directories) registers here too.
var interruptExits struct {
	sync.Mutex
	next int
	fns  map[int]func()
}

// onInterruptExit registers fn and returns the function that unregisters it.
func onInterruptExit(fn func()) func() {
	interruptExits.Lock()
	defer interruptExits.Unlock()
	if interruptExits.fns == nil {
		interruptExits.fns = map[int]func(){}
	}
	id := interruptExits.next
	interruptExits.next++
	interruptExits.fns[id] = fn
	return func() {
		interruptExits.Lock()
		delete(interruptExits.fns, id)
		interruptExits.Unlock()
	}
}

// runInterruptExit runs every registered clean-up.
func runInterruptExit() {
	interruptExits.Lock()
	fns := make([]func(), 0, len(interruptExits.fns))
	for _, fn := range interruptExits.fns {
		fns = append(fns, fn)
	}
	interruptExits.Unlock()
	for _, fn := range fns {
		fn()
	}
}
