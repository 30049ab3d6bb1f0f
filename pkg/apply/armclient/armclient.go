// Package armclient adapts the ARM client (pkg/arm) to the apply engine's
// Client, so the engine decides in its own types: the one place where the
// two vocabularies meet.
package armclient

import (
	"github.com/kubectl-azure/kubectl-azure/pkg/apply"
	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
)

// New returns the engine's view of c. What c remembers per run (types
// whose PATCH answered 405) stays in c.
func New(c *arm.Client) apply.Client { return apply.FromARM(c) }

// Wrap adapts anything that speaks the ARM client's calls (a wrapper that
// fences or counts them) the same way.
func Wrap(a apply.ARM) apply.Client { return apply.FromARM(a) }
