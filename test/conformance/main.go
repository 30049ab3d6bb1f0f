// Command conformance drives an ARM endpoint (the emulator, normally) with
// the real Azure SDK for Go management clients and reports, check by
// check, whether it behaves as Azure Resource Manager does: status codes
// the SDK accepts, pollers, pagers, HEAD, child resources, POST actions,
// validation errors with ARM's codes.
//
// Usage: conformance -endpoint http://127.0.0.1:PORT
//
// It prints one line per check and "N passed, M failed"; it exits 1 when
// any check failed.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"
)

func main() {
	endpoint := flag.String("endpoint", os.Getenv("ARM_ENDPOINT"), "ARM endpoint to test, e.g. http://127.0.0.1:8080")
	sub := flag.String("subscription", "00000000-0000-0000-0000-00000000c0f0", "subscription ID to use")
	timeout := flag.Duration("timeout", 3*time.Minute, "bound on the whole run")
	flag.Parse()
	if *endpoint == "" {
		fmt.Fprintln(os.Stderr, "conformance: -endpoint is required (start bin/arm-emulator and pass its URL)")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	env, err := newEnv(*endpoint, *sub)
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(2)
	}
	r := &runner{}
	for _, s := range suites {
		s(ctx, env, r)
	}
	fmt.Printf("%d passed, %d failed\n", r.passed, r.failed)
	if r.failed > 0 {
		os.Exit(1)
	}
}

// runner records check outcomes.
type runner struct{ passed, failed int }

// check runs one named check; a nil error is a pass.
func (r *runner) check(name string, fn func() error) {
	if err := fn(); err != nil {
		r.failed++
		fmt.Printf("FAIL %s: %v\n", name, err)
		return
	}
	r.passed++
	fmt.Printf("ok   %s\n", name)
}
