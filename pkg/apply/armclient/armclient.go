// Package armclient gives the apply engine the ARM client (pkg/arm) as
// the engine's own Client, so the engine decides in its own types.
//
// The adapter's code sits in pkg/apply (armadapter.go, FromARM) because
// the engine's own tests, which cannot import this package, drive it with
// fakes and the emulator through the same adapter.
package armclient

import (
	"github.com/kubectl-azure/kubectl-azure/pkg/apply"
	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
)

// New returns the engine's view of c. What c remembers per run (types
// whose PATCH answered 405) stays in c.
func New(c *arm.Client) apply.Client { return apply.FromARM(c) }
