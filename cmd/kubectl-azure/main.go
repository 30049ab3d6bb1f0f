// Command kubectl-azure is the kubectl plugin: `kubectl azure diff|apply|import|...`.
// It only wires the commands; all behaviour lives in pkg/.
package main

import (
	"os"
	"runtime/debug"

	"github.com/kubectl-azure/kubectl-azure/pkg/cli"
)

// gcPercent is the garbage collector's heap goal, in percent of live data
// over it. Most of a plan's heap is bodies waiting for their decision or
// already decided; a goal of half the live data instead of all of it keeps
// the peak memory of a 10,000-resource plan within its budget for a few
// more collections (BENCHMARKS.md, Plan10000Memory). GOGC overrides it.
const gcPercent = 50

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	os.Exit(cli.Main(os.Args[1:], cli.StdStreams()))
}
