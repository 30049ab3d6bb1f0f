package state

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Tests that need a second process (lock holders to kill, concurrent
// appliers) re-run this test binary with helperEnv set; TestMain then runs
// the named helper instead of the tests.
const helperEnv = "KUBECTL_AZURE_STATE_TEST_HELPER"

func TestMain(m *testing.M) {
	if name := os.Getenv(helperEnv); name != "" {
		if err := runHelper(name); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			os.Exit(3)
		}
		os.Exit(0)
	}
	code := m.Run()
	stopTestEnv()
	os.Exit(code)
}

func runHelper(name string) error {
	ctx := context.Background()
	ref := os.Getenv("HELPER_STATE")
	opts := Options{Holder: fmt.Sprintf("%s-helper pid %d", name, os.Getpid())}
	if kc := os.Getenv("HELPER_KUBECONFIG"); kc != "" {
		opts.KubeConfig = kubeConfigFlags(kc)
	}
	if q := os.Getenv("HELPER_QPS"); q != "" {
		f, _ := strconv.ParseFloat(q, 32)
		opts.QPS, opts.Burst = float32(f), 1
	}
	if d := os.Getenv("HELPER_LEASE"); d != "" {
		opts.LeaseDuration, _ = time.ParseDuration(d)
	}
	st, err := Open(ctx, ref, opts)
	if err != nil {
		return err
	}
	defer st.Close()
	switch name {
	case "counter":
		// Lock, read-increment-write, unlock: a lost update shows as a
		// final count below the number of increments.
		n, _ := strconv.Atoi(os.Getenv("HELPER_N"))
		for range n {
			unlock, err := st.Lock(ctx, "", time.Minute)
			if err != nil {
				return err
			}
			count := int64(0)
			if r, err := st.Get(ctx, testID); err == nil {
				if count, err = r.LastApplied["count"].(json.Number).Int64(); err != nil {
					return err
				}
			} else if err != ErrNotFound {
				return err
			}
			rec := testRecord(testID)
			rec.LastApplied = map[string]any{"count": count + 1}
			if err := st.Put(ctx, rec); err != nil {
				return err
			}
			if err := unlock(); err != nil {
				return err
			}
		}
		return nil
	case "writer":
		// Writes forever under the lock until killed.
		if _, err := st.Lock(ctx, "", time.Minute); err != nil {
			return err
		}
		// Each acknowledged Put is noted in HELPER_ACKS (a write(2) per
		// line, so it survives the kill) for the test to check it is in state.
		var acks *os.File
		if p := os.Getenv("HELPER_ACKS"); p != "" {
			if acks, err = os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err != nil {
				return err
			}
		}
		fmt.Println("READY")
		pad := strings.Repeat("x", 8<<10)
		for i := 0; ; i++ {
			id := strings.Replace(testID, "stdemo001", fmt.Sprintf("st%03d", i%40), 1)
			rec := testRecord(id)
			rec.LastApplied["pad"] = pad
			rec.LastApplied["i"] = i
			if i%3 == 0 {
				if err := st.BeginIntent(ctx, Intent{ID: id, Op: OpPut, Record: rec}); err != nil {
					return err
				}
			}
			if err := st.Put(ctx, rec); err != nil {
				return err
			}
			if acks != nil {
				fmt.Fprintf(acks, "%d\n", i)
			}
		}
	case "paced":
		// Reads faster than Options.QPS allows, so the client waits.
		for range 3 {
			if _, err := st.Get(ctx, testID); err != nil && err != ErrNotFound {
				return err
			}
		}
		fmt.Println("DONE")
		return nil
	case "holder":
		// Takes the lock and hangs until killed, never releasing it.
		if _, err := st.Lock(ctx, "", time.Minute); err != nil {
			return err
		}
		fmt.Println("LOCKED")
		select {}
	}
	return fmt.Errorf("unknown helper %q", name)
}

// startHelper runs a helper and, when waitFor is set, returns once it has
// printed that line.
func startHelper(t *testing.T, name, ref string, env []string, waitFor string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append(env, helperEnv+"="+name, "HELPER_STATE="+ref)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if waitFor == "" {
		return cmd
	}
	ready := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if sc.Text() == waitFor {
				ready <- nil
				return
			}
		}
		ready <- fmt.Errorf("helper %s exited before printing %s", name, waitFor)
	}()
	select {
	case err := <-ready:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("helper %s did not print %s within 60s", name, waitFor)
	}
	return cmd
}
