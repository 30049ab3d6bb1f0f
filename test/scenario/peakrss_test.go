package scenario

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The peak RSS the kernel reports for a child started from this process is
// not the child's own. Go starts children with vfork (CLONE_VM), and when
// the child execs, Linux folds the high-water RSS of the memory it shared,
// this test process's with the emulator and its fixture, into the child's
// maxrss: `kubectl azure version` reads as 227 MB after a 10,000-resource
// fixture and 60 MB before it. So the benchmarks start the CLI through a
// fresh copy of this test binary, which has done nothing yet: it starts the
// CLI in turn and reports that child's maxrss, in which only its own small
// footprint can hide.
//
// maxrss also counts the pages of the executable the kernel mapped, and how
// many that is depends on the page cache: one build of the same code read
// 46 MB and 59 MB for `kubectl azure version` depending on whether its file
// was freshly written. So the launcher also samples the child's anonymous
// memory (RssAnon: heap, stacks) and reports its peak, which does not
// depend on the file's pages.

const (
	launchEnv = "KUBECTL_AZURE_BENCH_LAUNCH" // JSON array: the command to run
	rssEnv    = "KUBECTL_AZURE_BENCH_RSS"    // file to write the child's maxrss and anonymous peak (KB) to
)

func TestMain(m *testing.M) {
	if cmd := os.Getenv(launchEnv); cmd != "" {
		os.Exit(launch(cmd, os.Getenv(rssEnv)))
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

// launch runs the command with this process's standard streams and
// environment (less the launcher's variables) and exits with its code.
func launch(cmdJSON, rssFile string) int {
	var args []string
	if err := json.Unmarshal([]byte(cmdJSON), &args); err != nil || len(args) == 0 {
		fmt.Fprintf(os.Stderr, "launcher: bad %s: %v\n", launchEnv, err)
		return 125
	}
	c := exec.Command(args[0], args[1:]...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	os.Unsetenv(launchEnv)
	os.Unsetenv(rssEnv)
	c.Env = os.Environ()
	if err := c.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "launcher: %v\n", err)
		return 125
	}
	done := make(chan struct{})
	anon := make(chan int64)
	go func() { anon <- sampleAnon(c.Process.Pid, done) }()
	err := c.Wait()
	close(done)
	anonPeak := <-anon
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		fmt.Fprintf(os.Stderr, "launcher: %v\n", err)
		return 125
	}
	if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok && rssFile != "" {
		_ = os.WriteFile(rssFile, []byte(strconv.FormatInt(ru.Maxrss, 10)+" "+strconv.FormatInt(anonPeak, 10)), 0o644)
	}
	return c.ProcessState.ExitCode()
}

// sampleAnon returns the highest RssAnon (KB) of process pid seen every 5
// ms until done is closed; 0 where /proc is not there to read.
func sampleAnon(pid int, done <-chan struct{}) int64 {
	path := fmt.Sprintf("/proc/%d/status", pid)
	var peak int64
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for {
		if data, err := os.ReadFile(path); err == nil {
			for _, line := range strings.Split(string(data), "\n") {
				if v, ok := strings.CutPrefix(line, "RssAnon:"); ok {
					kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
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

// launched wraps a command so that it runs under the launcher; rssFile
// receives its peak RSS in KB.
func launched(b *testing.B, rssFile string, args ...string) *exec.Cmd {
	b.Helper()
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd, err := json.Marshal(args)
	if err != nil {
		b.Fatal(err)
	}
	c := exec.Command(self)
	c.Env = append(os.Environ(), launchEnv+"="+string(cmd), rssEnv+"="+rssFile)
	return c
}
