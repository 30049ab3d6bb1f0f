// Command arm-emulator serves a local Azure Resource Manager for demos and
// tests: point kubectl-azure at it with --endpoint http://127.0.0.1:PORT.
//
// Contract (stable; outside checks rely on it): --addr, --throttle off|reads=S/R,writes=S/R,deletes=S/R,
// --latency 50ms, --lro 2s, --quirks corpus|none, --faults 503=0.1,reset=0.02;
// admin API under /_emulator (see --help).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
)

func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "arm-emulator:", err)
		os.Exit(2)
	}
}

// defaultAddr is where the binary listens unless --addr says otherwise.
const defaultAddr = "127.0.0.1:8080"

// flagHelp lists the options that map onto emulator.ApplyFlag. Their
// defaults come from emulator.DefaultOptions, the one place they live.
func flagHelp(d emulator.Options) []struct{ name, def, help string } {
	return []struct{ name, def, help string }{
		{"addr", defaultAddr, "listen address (keep it on loopback: plain HTTP, no auth)"},
		{"throttle", d.Throttle.String(), "token buckets per subscription as SIZE/REFILL-per-second, or off"},
		{"latency", d.Latency.String(), "mean latency added to every ARM request (jitter ±50%), e.g. 50ms or 50ms,PUT=200ms"},
		{"lro", d.LRODuration.String(), "duration of long-running operations, e.g. 2s or 2s,Microsoft.ContainerService/managedClusters=30s"},
		{"cache-lag", d.CacheLag.String(), "how long ARM's generic lists (.../resources) lag writes, e.g. 2s: each resource is listed as it was that long ago (0: no lag)"},
		{"quirks", string(d.Quirks), "corpus: behave like recorded ARM traffic; none: plain server"},
		{"faults", "", "fault rates, e.g. 503=0.1,500=0.01,reset=0.02,lro=0.05,lost=0.05 (lost: the operation's polls answer 404, the work still finishes)"},
		{"tls-cert-dir", "", "serve HTTPS with a self-signed certificate written to DIR/cert.pem"},
		{"seed", "0", "seed for jitter and faults (0: from the clock)"},
		{"page-size", "0", "items per list page before a nextLink, for every list (0: each list pages as ARM does for its type)"},
		{"no-parent-locks", "false", "true: let writes under one virtual network, NSG, … overlap (no 409 AnotherOperationInProgress)"},
		{"skip-reference-check", "false", "true: accept references to resources this emulator never saw (replays of recorded traffic; ARM refuses them)"},
	}
}

// usageText is what --help prints after the flags: the admin API and the
// behaviours that are always on, so a user knows what the server enforces.
const usageText = `
Admin API (never throttled, delayed, faulted, counted or validated):
  POST   /_emulator/resources   {"id": ARM_ID, "apiVersion": V, "body": {...}}
                                stores the body verbatim (parents created); GET returns it as is
  GET    /_emulator/resources   {"value": [{"id", "apiVersion", "body"}]}; ?derived=true adds
                                the children the server made itself
  DELETE /_emulator/resources   forget every resource and operation, zero the counters
  GET    /_emulator/stats       {"requests": {"GET","PUT","PATCH","DELETE","POST","POLL"},
                                 "throttled", "faults", "byClient": {"<User-Agent>": {...}}}
  POST   /_emulator/operations/forget
                                lose every long-running operation in flight, as an endpoint
                                that restarts does: polls answer 404, the work still finishes

With --tls-cert-dir the server speaks HTTPS and answers Entra ID token requests
(POST /{tenant}/oauth2/v2.0/token, OpenID discovery), so azidentity credentials work.

Always on (ARM's own rules, whatever --quirks says):
  validation with ARM's codes (api-version on every path, names, locations, JSON types,
  required properties, references); management locks (CanNotDelete, ReadOnly → 409
  ScopeLocked); readonly input ignored; write-only values never returned; globally unique
  names and Key Vault soft delete; role-assignment rules; tag limits; unknown POST actions
  refused; 405 for types without DELETE; the Microsoft.Resources/tags extension resource;
  children and action answers RPs create; long-running operations with
  Azure-AsyncOperation/Location; etags and If-Match/If-None-Match; paging and $filter.
--quirks corpus adds what recorded traffic shows per type (server-added keys, value
normalisation, ID casing, etag style). See pkg/emulator/README.md.
`

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("arm-emulator", flag.ContinueOnError)
	fs.SetOutput(stderr)
	config := fs.String("config", "", "JSON file of flag values (flags given on the command line win)")
	opts := emulator.DefaultOptions()
	opts.Addr = defaultAddr
	vals := map[string]*string{}
	for _, f := range flagHelp(opts) {
		vals[f.name] = fs.String(f.name, f.def, f.help)
	}
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: arm-emulator [flags]\n\nA local Azure Resource Manager for demos and tests.\n\nFlags:")
		fs.PrintDefaults()
		fmt.Fprint(fs.Output(), usageText)
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %v (all settings are flags; see -h)", fs.Args())
	}
	// Defaults, then the config file, then the flags set explicitly.
	if *config != "" {
		if err := emulator.LoadConfig(&opts, *config); err != nil {
			return err
		}
	}
	var ferr error
	fs.Visit(func(f *flag.Flag) {
		if v, ok := vals[f.Name]; ok && ferr == nil {
			ferr = emulator.ApplyFlag(&opts, f.Name, *v)
		}
	})
	if ferr != nil {
		return ferr
	}

	srv, err := emulator.Start(opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "arm-emulator listening on %s (quirks=%s, throttle=%s, lro=%s)\n", srv.URL(), opts.Quirks, opts.Throttle, opts.LRODuration)
	if opts.TLSCertDir != "" {
		fmt.Fprintf(stdout, "certificate: %s/%s\n", opts.TLSCertDir, emulator.CertFile)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	return srv.Close()
}
