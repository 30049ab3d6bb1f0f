// Command kubectl-azure is the kubectl plugin: `kubectl azure diff|apply|import|...`.
// It only wires the commands; all behaviour lives in pkg/.
package main

import (
	"os"

	"github.com/kubectl-azure/kubectl-azure/pkg/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], cli.StdStreams()))
}
