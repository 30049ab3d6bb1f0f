//go:build unix

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// An external diff program interrupted by Ctrl-C twice (the second exits
// at once, running no deferred call) leaves no temporary directory.
func TestExternalDiffInterruptedLeavesNoTempDir(t *testing.T) {
	exited := catchExit(t)
	tmp := t.TempDir()
	marker := filepath.Join(tmp, "dirs")
	// The program records the directories it was given, then leaves a
	// child holding its output, as an editor-based diff can.
	prog := filepath.Join(tmp, "slowdiff")
	script := "#!/bin/sh\necho \"$1\" > " + marker + ".tmp && mv " + marker + ".tmp " + marker + "\nsleep 10 &\nsleep 10\n"
	if err := os.WriteFile(prog, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	p := &plan.Plan{Resources: []plan.Resource{{ID: "/subscriptions/s/resourceGroups/rg-a", Type: "Microsoft.Resources/resourceGroups",
		Action: plan.ActionCreate, Changes: []plan.Change{{Path: "location", After: "westeurope"}}}}}
	ctx, stop := interruptContext(&bytes.Buffer{})
	defer stop()
	var out bytes.Buffer
	go func() {
		_ = externalDiff(ctx, prog, p, genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out}, nil)
	}()
	var live string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(marker); err == nil {
			live = strings.TrimSpace(string(b))
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the diff program did not start")
		}
	}
	for range 2 {
		if err := syscall.Kill(syscall.Getpid(), syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	select {
	case code := <-exited:
		if code != ExitInterrupted {
			t.Fatalf("exit %d, want %d", code, ExitInterrupted)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the second Ctrl-C did not exit")
	}
	if _, err := os.Stat(filepath.Dir(live)); !os.IsNotExist(err) {
		t.Errorf("the temporary directory %s is left behind (%v)", filepath.Dir(live), err)
	}
}
