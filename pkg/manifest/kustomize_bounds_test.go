package manifest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// countingServer answers every request with a resource group and counts
// the requests: a refused remote resource must not reach it.
func countingServer(t *testing.T, tls bool) (*httptest.Server, *atomic.Int64) {
	var hits atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte(rgDoc))
	})
	srv := httptest.NewUnstartedServer(h)
	if tls {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv, &hits
}

// Remote resources, bases and components are refused before kustomize
// fetches anything, each at its field and line; with
// --allow-remote-kustomize plain http is still refused.
func TestKustomizeRemoteRefused(t *testing.T) {
	plainSrv, plainHits := countingServer(t, false)
	tlsSrv, tlsHits := countingServer(t, true)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"rg.yaml": rgDoc,
		"kustomization.yaml": "resources:\n- rg.yaml\n- " + tlsSrv.URL + "/rg.yaml\n- github.com/example/infra//base?ref=v1\n" +
			"components:\n- git@github.com:example/infra.git//c\n",
	})
	ve := loadErr(t, LoadOptions{Kustomize: dir})
	k := filepath.Join(dir, "kustomization.yaml")
	want := []struct {
		path string
		line int
	}{{"resources[1]", 3}, {"resources[2]", 4}, {"components[0]", 6}}
	if len(ve.Problems) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%v", len(ve.Problems), len(want), ve)
	}
	for i, w := range want {
		p := ve.Problems[i]
		if p.File != k || p.Path != w.path || p.Line != w.line || !strings.Contains(p.Message, "--allow-remote-kustomize") {
			t.Errorf("problem %d = %+v, want %s line %d at %s naming --allow-remote-kustomize", i, p, k, w.line, w.path)
		}
	}
	if tlsHits.Load() != 0 {
		t.Errorf("a refused remote resource was fetched %d times", tlsHits.Load())
	}

	// Allowed, still never over plain http.
	writeFiles(t, dir, map[string]string{"kustomization.yaml": "resources:\n- " + plainSrv.URL + "/rg.yaml\n"})
	ve = loadErr(t, LoadOptions{Kustomize: dir, AllowRemoteKustomize: true})
	if len(ve.Problems) != 1 || ve.Problems[0].Path != "resources[0]" || !strings.Contains(ve.Problems[0].Message, "unencrypted") {
		t.Fatalf("plain http with --allow-remote-kustomize: %v", ve)
	}
	if plainHits.Load() != 0 {
		t.Errorf("a plain-http resource was fetched %d times", plainHits.Load())
	}
	ve = loadErr(t, LoadOptions{Kustomize: "http://example.invalid/infra", AllowRemoteKustomize: true})
	if len(ve.Problems) != 1 || !strings.Contains(ve.Problems[0].Message, "unencrypted") {
		t.Fatalf("-k over plain http: %v", ve)
	}
}

func TestRemoteRef(t *testing.T) {
	for s, want := range map[string][2]bool{
		"../base":                        {false, false},
		"base/rg.yaml":                   {false, false},
		"https://example.com/x.yaml":     {true, false},
		"HTTP://example.com/x.yaml":      {true, true},
		"git://example.com/repo":         {true, true},
		"git::http://example.com/repo":   {true, true},
		"ssh://git@example.com/repo":     {true, false},
		"github.com/org/repo//dir?ref=1": {true, false},
		"git@gitlab.com:org/repo.git":    {true, false},
		"file:///srv/repo":               {true, false},
	} {
		r, p := remoteRef(s)
		if [2]bool{r, p} != want {
			t.Errorf("remoteRef(%q) = %v, %v; want %v", s, r, p, want)
		}
	}
}

// -f's bounds hold for what kustomize reads: a file over MaxFileBytes,
// a FIFO, and more reads than maxKustomizeReads are refused, naming the file.
func TestKustomizeInputBounded(t *testing.T) {
	dir := t.TempDir()
	big := "# " + strings.Repeat("x", 1<<20) + "\n"
	writeFiles(t, dir, map[string]string{
		"kustomization.yaml": "resources: [rg.yaml, big.yaml]\n",
		"rg.yaml":            rgDoc,
		"big.yaml":           strings.Repeat(big, 17),
	})
	ve := loadErr(t, LoadOptions{Kustomize: dir})
	if len(ve.Problems) != 1 || ve.Problems[0].File != filepath.Join(dir, "big.yaml") || !strings.Contains(ve.Problems[0].Message, "larger than 16 MiB") {
		t.Fatalf("a 17 MiB file under -k: %v", ve)
	}

	writeFiles(t, dir, map[string]string{
		"kustomization.yaml": "resources: [a.yaml, b.yaml, c.yaml]\n",
		"a.yaml":             rgDoc,
		"b.yaml":             strings.ReplaceAll(rgDoc, "rg-demo", "rg-b"),
		"c.yaml":             strings.ReplaceAll(rgDoc, "rg-demo", "rg-c"),
	})
	if s := load(t, LoadOptions{Kustomize: dir}); len(s.Resources) != 3 {
		t.Fatalf("loaded %d resources, want 3", len(s.Resources))
	}
	defer func(n int) { maxKustomizeReads = n }(maxKustomizeReads)
	maxKustomizeReads = 3
	ve = loadErr(t, LoadOptions{Kustomize: dir})
	if len(ve.Problems) != 1 || !strings.Contains(ve.Problems[0].Message, "more than 3 files") {
		t.Fatalf("over the read bound: %v", ve)
	}
}

// A cancelled run (Ctrl-C, SIGTERM) does not build: Load returns at once
// saying it stopped, instead of a set built after the user asked to stop.
func TestKustomizeStopsWhenCancelled(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"kustomization.yaml": "resources: [rg.yaml]\n", "rg.yaml": rgDoc})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	s, err := Load(ctx, LoadOptions{Kustomize: dir, LookupEnv: envOf(map[string]string{"AZURE_SUBSCRIPTION_ID": testSub})})
	if err == nil || !strings.Contains(err.Error(), "stopped") {
		t.Fatalf("Load with a cancelled context = %v, %v; want it stopped", s, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s", d)
	}
}

// stuckFS is a disk whose reads never return, as kustomize busy on a wide
// kustomization never returns: the build must be abandoned on cancel.
type stuckFS struct{ *boundedFS }

func (stuckFS) ReadFile(string) ([]byte, error) { select {} }

func TestKustomizeBuildAbandonedOnCancel(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"kustomization.yaml": "resources: [rg.yaml]\n", "rg.yaml": rgDoc})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	done := make(chan error, 1)
	go func() {
		_, err := kustomizeBuild(ctx, dir, stuckFS{newBoundedFS(context.Background(), false)})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "stopped") {
			t.Fatalf("got %v, want the build stopped", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the build went on after the run was cancelled")
	}
}
