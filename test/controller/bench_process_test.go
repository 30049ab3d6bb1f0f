//go:build unix

package controller

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/dynamic"

	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
	"github.com/kubectl-azure/kubectl-azure/pkg/state/statetest"
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
	setup := harness.FastOptions()
	setup.Throttle.Reads = emulator.Bucket{Size: 100000, Refill: 100000}
	setup.Throttle.Writes = emulator.Bucket{Size: 100000, Refill: 100000}
	f := newFront(b, setup)
	dir, statePath := managed(b, f, "o", groups, 99)
	armLike := harness.FastOptions()
	armLike.Latency = 40 * time.Millisecond
	f.arm.Reconfigure(armLike)

	env := statetest.Shared(b)
	installCRD(b, env)
	ns := env.NewNamespace(b)
	cfg, err := env.ConfigFlags().ToRESTConfig()
	if err != nil {
		b.Fatal(err)
	}
	cfg.QPS, cfg.Burst = -1, 0
	fast := dynamic.NewForConfigOrDie(cfg)
	docs := splitDocs(b, filepath.Join(dir, "groups.yaml"))
	finalizerWebhook(b, env, ns)
	createMany(b, fast, ns, docs)
	n := len(docs)
	bin := harness.BuildCLI(b, b.TempDir())

	b.ResetTimer()
	for range b.N {
		rssFile := filepath.Join(b.TempDir(), "rss")
		args, _ := json.Marshal([]string{bin, "--endpoint", f.URL, "--subscription", harness.Sub, "--state", statePath,
			"--kubeconfig", env.Kubeconfig, "controller", "--source", "kubernetes://" + ns, "--source-interval", "1s"})
		// Through a fresh copy of this test binary (see launchMain).
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), launchEnv+"="+string(args), launchRSSEnv+"="+rssFile)
		var log strings.Builder
		cmd.Stdout, cmd.Stderr = &log, &log
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		waitAllReady(b, fast, ns, n, 10*time.Minute)
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
		raw, err := os.ReadFile(rssFile)
		if err != nil {
			b.Fatal(err)
		}
		var maxKB, anonKB float64
		if _, err := fmt.Sscan(string(raw), &maxKB, &anonKB); err != nil {
			b.Fatalf("%s: %v", raw, err)
		}
		b.ReportMetric(firstSync.Seconds(), "s-first-sync")
		b.ReportMetric(maxKB/1024, "MB-RSS-controller")
		b.ReportMetric(anonKB/1024, "MB-anon-controller")
	}
}

// The kernel folds the peak RSS of the memory a vfork'ed child shared
// with its parent (this test process, with the emulator and its fixture)
// into the child's maxrss at exec. So the controller is started by a
// fresh copy of this test binary, which has done nothing yet; it reports
// that child's maxrss and samples its anonymous memory (RssAnon: heap and
// stacks, independent of the executable's pages in the page cache).
const (
	launchEnv    = "KUBECTL_AZURE_TEST_LAUNCH"     // JSON array: the command to run
	launchRSSEnv = "KUBECTL_AZURE_TEST_LAUNCH_RSS" // file for the child's maxrss and peak RssAnon, in KB
)

// launchMain runs the command, forwards SIGTERM to it, and writes its
// maxrss and peak anonymous memory to the file named by launchRSSEnv.
func launchMain(cmdJSON string) int {
	var args []string
	if err := json.Unmarshal([]byte(cmdJSON), &args); err != nil || len(args) == 0 {
		fmt.Fprintf(os.Stderr, "launcher: bad %s: %v\n", launchEnv, err)
		return 125
	}
	rssFile := os.Getenv(launchRSSEnv)
	os.Unsetenv(launchEnv)
	os.Unsetenv(launchRSSEnv)
	c := exec.Command(args[0], args[1:]...)
	c.Stdout, c.Stderr = os.Stdout, os.Stderr
	if err := c.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "launcher: %v\n", err)
		return 125
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		for s := range sigs {
			_ = c.Process.Signal(s)
		}
	}()
	done := make(chan struct{})
	peak := make(chan int64)
	go func() { peak <- sampleAnon(c.Process.Pid, done) }()
	err := c.Wait()
	close(done)
	anon := <-peak
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		fmt.Fprintf(os.Stderr, "launcher: %v\n", err)
		return 125
	}
	var maxKB int64
	if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
		maxKB = ru.Maxrss
	}
	if rssFile != "" {
		_ = os.WriteFile(rssFile, []byte(strconv.FormatInt(maxKB, 10)+" "+strconv.FormatInt(anon, 10)+"\n"), 0o600)
	}
	return c.ProcessState.ExitCode()
}

// sampleAnon polls the RssAnon of pid every 50 ms until done and returns
// the largest seen, in KB.
func sampleAnon(pid int, done <-chan struct{}) int64 {
	var peak int64
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		if raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status"); err == nil {
			for _, l := range strings.Split(string(raw), "\n") {
				if rest, ok := strings.CutPrefix(l, "RssAnon:"); ok {
					kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
					peak = max(peak, kb)
				}
			}
		}
		select {
		case <-done:
			return peak
		case <-t.C:
		}
	}
}
