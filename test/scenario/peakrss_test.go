package scenario

import (
	"fmt"
	"os"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

// The CLI's peak RSS is measured through the launcher
// (harness.Launched): see test/internal/harness/launch_unix.go for why a
// fresh copy of this test binary starts it.

func TestMain(m *testing.M) {
	if code, launched := harness.LaunchMain(); launched {
		os.Exit(code)
	}
	dir, err := os.MkdirTemp("", "kubectl-azure-scenario-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir // one build serves every benchmark of the run
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
