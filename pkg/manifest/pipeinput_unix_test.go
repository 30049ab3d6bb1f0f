//go:build unix

package manifest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A pipe named with -f (process substitution) whose writer never finishes
// stops being read when the run is cancelled (Ctrl-C, SIGTERM).
func TestNamedPipeReadStopsOnCancel(t *testing.T) {
	p := filepath.Join(t.TempDir(), "in.yaml")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	// A writer that holds the pipe open and never writes a byte.
	w, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := Load(ctx, LoadOptions{Filenames: []string{p}, LookupEnv: envOf(map[string]string{"AZURE_SUBSCRIPTION_ID": testSub})})
		done <- err
	}()
	time.Sleep(200 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), p) {
			t.Fatalf("Load after cancel: %v, want a problem naming %s", err, p)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Load kept reading the pipe after the run was cancelled")
	}
}

// A FIFO among kustomize's input is refused, not waited on.
func TestKustomizeFIFORefused(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"kustomization.yaml": "resources: [pipe.yaml]\n"})
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.yaml"), 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	done := make(chan *ValidationError, 1)
	go func() { done <- loadErr(t, LoadOptions{Kustomize: dir}) }()
	select {
	case ve := <-done:
		if len(ve.Problems) != 1 || !strings.Contains(ve.Problems[0].Message, "named pipe") {
			t.Fatalf("got %v", ve)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("kustomize blocked on a FIFO")
	}
}
