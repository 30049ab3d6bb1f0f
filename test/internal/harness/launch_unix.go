//go:build unix

package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The peak RSS the kernel reports for a child started from a test process
// is not the child's own. Go starts children with vfork (CLONE_VM), and
// when the child execs, Linux folds the high-water RSS of the memory it
// shared (the test process's, with the emulator and its fixture) into the
// child's maxrss: `kubectl azure version` reads as 227 MB after a
// 10,000-resource fixture and 60 MB before it. So benchmarks start the
// measured command through a fresh copy of their test binary, which has
// done nothing yet: it starts the command in turn and reports that child's
// maxrss, in which only its own small footprint can hide.
//
// maxrss also counts the pages of the executable the kernel mapped, and
// how many that is depends on the page cache (46 MB or 59 MB for one build
// of `kubectl azure version`, depending on whether its file was freshly
// written). So the launcher also samples the child's anonymous memory
// (RssAnon: heap, stacks) and reports its peak.

const (
	launchEnv       = "KUBECTL_AZURE_TEST_LAUNCH"        // JSON array: the command to run
	launchRSSEnv    = "KUBECTL_AZURE_TEST_LAUNCH_RSS"    // file for the child's maxrss and peak RssAnon, in KB
	launchSampleEnv = "KUBECTL_AZURE_TEST_LAUNCH_SAMPLE" // how often RssAnon is read (a Go duration)
)

// LaunchMain is for a test binary's TestMain: when this process is a
// launcher Launched started, it runs the command and returns its exit
// code with true; otherwise false, and the tests run.
func LaunchMain() (int, bool) {
	cmd := os.Getenv(launchEnv)
	if cmd == "" {
		return 0, false
	}
	return launch(cmd, os.Getenv(launchRSSEnv), os.Getenv(launchSampleEnv)), true
}

// Launched wraps a command so that it runs under the launcher (a fresh
// copy of this test binary, whose TestMain calls LaunchMain). rssFile
// receives the command's maxrss and peak anonymous memory, in KB, as two
// numbers; sample is how often the anonymous memory is read.
func Launched(tb testing.TB, rssFile string, sample time.Duration, args ...string) *exec.Cmd {
	tb.Helper()
	self, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	cmd, err := json.Marshal(args)
	if err != nil {
		tb.Fatal(err)
	}
	c := exec.Command(self, "-test.run=^$")
	c.Env = append(os.Environ(), launchEnv+"="+string(cmd), launchRSSEnv+"="+rssFile, launchSampleEnv+"="+sample.String())
	return c
}

// ReadRSS reads what the launcher wrote to rssFile: maxrss and the peak
// anonymous memory, in KB.
func ReadRSS(rssFile string) (maxKB, anonKB int64, err error) {
	raw, err := os.ReadFile(rssFile)
	if err != nil {
		return 0, 0, err
	}
	if _, err := fmt.Sscan(string(raw), &maxKB, &anonKB); err != nil {
		return 0, 0, fmt.Errorf("the launcher reported %q, want maxrss and the anonymous peak: %v", raw, err)
	}
	return maxKB, anonKB, nil
}

// launch runs the command with this process's standard streams and
// environment (less the launcher's variables), forwards SIGTERM and SIGINT
// to it, and returns its exit code.
func launch(cmdJSON, rssFile, sample string) int {
	var args []string
	if err := json.Unmarshal([]byte(cmdJSON), &args); err != nil || len(args) == 0 {
		fmt.Fprintf(os.Stderr, "launcher: bad %s: %v\n", launchEnv, err)
		return 125
	}
	every, err := time.ParseDuration(sample)
	if err != nil || every <= 0 {
		every = 5 * time.Millisecond
	}
	for _, k := range []string{launchEnv, launchRSSEnv, launchSampleEnv} {
		os.Unsetenv(k)
	}
	c := exec.Command(args[0], args[1:]...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	c.Env = os.Environ()
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
	go func() { peak <- sampleAnon(c.Process.Pid, every, done) }()
	err = c.Wait()
	close(done)
	anon := <-peak
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		fmt.Fprintf(os.Stderr, "launcher: %v\n", err)
		return 125
	}
	if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok && rssFile != "" {
		_ = os.WriteFile(rssFile, []byte(strconv.FormatInt(ru.Maxrss, 10)+" "+strconv.FormatInt(anon, 10)+"\n"), 0o600)
	}
	return c.ProcessState.ExitCode()
}

// sampleAnon returns the highest RssAnon (KB) of process pid seen every
// period until done is closed; 0 where /proc is not there to read.
func sampleAnon(pid int, every time.Duration, done <-chan struct{}) int64 {
	path := "/proc/" + strconv.Itoa(pid) + "/status"
	var peak int64
	t := time.NewTicker(every)
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
