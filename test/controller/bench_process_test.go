//go:build unix

package controller

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/test/internal/harness"
)

// BenchmarkObjectsProcess10000 is BenchmarkObjects10000 with the
// controller as a process of its own: the built binary (or
// KUBECTL_AZURE_TEST_CLI) runs `controller --source kubernetes://NS`
// against the emulator over HTTP and the same kube-apiserver, so its
// memory is the controller's alone (the test process holds the emulator's
// 10,000 resources and the set-up's apply). It reports the first sync and
// the controller's peak RSS and peak anonymous memory.
//
//	go test -run '^$' -bench 'ObjectsProcess10000$' -benchtime 1x -timeout 40m ./test/controller
func BenchmarkObjectsProcess10000(b *testing.B) { benchObjectsProcess(b, 100, time.Minute) }

// BenchmarkObjectsProcess2000 is the same with 2,000 objects.
func BenchmarkObjectsProcess2000(b *testing.B) { benchObjectsProcess(b, 20, 20*time.Second) }

func benchObjectsProcess(b *testing.B, groups int, steady time.Duration) {
	fx := newObjectsFixture(b, groups)
	bin := harness.BuildCLI(b, b.TempDir())

	b.ResetTimer()
	for range b.N {
		rssFile := filepath.Join(b.TempDir(), "rss")
		// The controller's RssAnon is read every 50 ms: it runs for minutes.
		cmd := harness.Launched(b, rssFile, 50*time.Millisecond, bin, "--endpoint", fx.f.URL, "--subscription", harness.Sub, "--state", fx.statePath,
			"--kubeconfig", fx.env.Kubeconfig, "controller", "--source", "kubernetes://"+fx.ns, "--source-interval", "1s")
		var log strings.Builder
		cmd.Stdout, cmd.Stderr = &log, &log
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		waitAllReady(b, fx.fast, fx.ns, fx.n, 10*time.Minute)
		firstSync := time.Since(start)
		time.Sleep(steady)
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				b.Fatalf("the controller: %v\n%s", err, log.String())
			}
		case <-time.After(time.Minute):
			_ = cmd.Process.Kill()
			b.Fatalf("the controller did not stop on SIGTERM\n%s", log.String())
		}
		maxKB, anonKB, err := harness.ReadRSS(rssFile)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(firstSync.Seconds(), "s-first-sync")
		b.ReportMetric(float64(maxKB)/1024, "MB-RSS-controller")
		b.ReportMetric(float64(anonKB)/1024, "MB-anon-controller")
	}
}
