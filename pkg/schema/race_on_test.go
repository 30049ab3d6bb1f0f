//go:build race

package schema

// raceEnabled: the race detector slows decoding several-fold, so timing
// budgets are not measured under it.
const raceEnabled = true
