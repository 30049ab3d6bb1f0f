//go:build unix

package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
)

// TestFirstCtrlCLetsWritesFinish: one Ctrl-C during apply lets the writes
// already sent (long-running operations of 1.5 s) finish and be recorded,
// so the next plan adopts nothing; it only stops new writes.
func TestFirstCtrlCLetsWritesFinish(t *testing.T) {
	exited := catchExit(t)

	opts := emulator.DefaultOptions()
	opts.LRODuration = 1500 * time.Millisecond
	srv, err := emulator.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := filepath.Join("..", "..", "testdata", "landing-zone")
	state := filepath.Join(t.TempDir(), "state.json")
	common := []string{"--endpoint", srv.URL(), "--subscription", "00000000-0000-0000-0000-0000000000c1", "--state", state}

	log := &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- Main(append(append([]string{}, common...), "apply", "-f", dir, "--yes"), genericiooptions.IOStreams{In: strings.NewReader(""), Out: log, ErrOut: log})
	}()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(log.String(), "writing") {
		if time.Now().After(deadline) {
			t.Fatalf("apply never started writing:\n%s", log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case code := <-exited:
		t.Fatalf("one Ctrl-C exited the process (%d)", code)
	case <-time.After(60 * time.Second):
		t.Fatalf("apply did not stop after one Ctrl-C:\n%s", log.String())
	}
	out := log.String()
	if !strings.Contains(out, "Interrupted: nothing new starts; writes already sent finish and are recorded") {
		t.Errorf("the interrupt message does not say what happens:\n%s", out)
	}

	var plan bytes.Buffer
	var errOut bytes.Buffer
	code := Main(append(append([]string{}, common...), "diff", "-f", dir, "-o", "json"), genericiooptions.IOStreams{In: strings.NewReader(""), Out: &plan, ErrOut: &errOut})
	if code != 0 && code != 1 {
		t.Fatalf("diff after the interrupt: exit %d\n%s", code, errOut.String())
	}
	var doc struct {
		Resources []struct{ ID, Action string }
	}
	if err := json.Unmarshal(plan.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, r := range doc.Resources {
		if r.Action == "adopt" {
			t.Errorf("%s was written but not recorded: the next plan adopts it\napply output:\n%s", r.ID, out)
		}
	}
}
