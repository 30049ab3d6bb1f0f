//go:build !unix

package state

// Without O_NOFOLLOW, checkRegular's Lstat before each open is the guard.
const (
	oNoFollow = 0
	oNonBlock = 0
)
