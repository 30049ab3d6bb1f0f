//go:build !unix

package safefile

// Elsewhere there are no FIFOs to block on; the Stat checks still apply.
const (
	nonBlock     = 0
	noFollowFlag = 0
)
