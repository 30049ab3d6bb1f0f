//go:build unix

package state

import "syscall"

// Open flags: never follow a symbolic link at the final component, never
// block opening a FIFO.
const (
	oNoFollow = syscall.O_NOFOLLOW
	oNonBlock = syscall.O_NONBLOCK
)
