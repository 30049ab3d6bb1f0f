package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/kubectl-azure/kubectl-azure/pkg/apply"
	"github.com/kubectl-azure/kubectl-azure/pkg/apply/armclient"
	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/printer"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
	"github.com/kubectl-azure/kubectl-azure/pkg/version"
	"github.com/kubectl-azure/kubectl-azure/plugins"
)

// armClient builds the ARM client from the global flags.
func (g *GlobalOptions) armClient(log io.Writer) (*arm.Client, error) {
	return g.armClientHiding(log, nil)
}

// armClientHiding is armClient whose logs and errors also hide the values
// at the body paths paths names (arm.Options.SensitivePaths).
func (g *GlobalOptions) armClientHiding(log io.Writer, paths func(typ, apiVersion string) []string) (*arm.Client, error) {
	o := g.armOptions(log)
	o.SensitivePaths = paths
	c, err := arm.New(o)
	if err != nil {
		return nil, withCode(ExitError, err)
	}
	return c, nil
}

// armOptions are the ARM client's options from the global flags: the one
// place every command's client (and the reconcile loop's) starts from.
func (g *GlobalOptions) armOptions(log io.Writer) arm.Options {
	o := arm.DefaultOptions()
	o.Version = version.Version
	o.Endpoint = g.Endpoint
	o.Cloud = g.Cloud
	o.Auth = g.Auth
	o.AuthorityHost = g.AuthorityHost
	o.Verbosity = g.Verbosity
	if g.Timeout > 0 {
		o.Timeout = g.Timeout
	}
	o.Log = log
	o.Secrets = g.runSecrets()
	g.waits.mu.Lock()
	if g.waits.out == nil {
		g.waits.out = log
	}
	g.waits.mu.Unlock()
	o.OnWait = g.waits.notify
	o.OnRetry = g.waits.retry
	if g.Concurrency > 0 {
		o.Concurrency = g.Concurrency
	}
	return o
}

// schemas returns the embedded registry, or the user's specs checkout.
func (g *GlobalOptions) schemas() (*schema.Registry, error) {
	if g.SchemaDir == "" {
		return schema.Default(), nil
	}
	r, err := schema.Open(g.SchemaDir)
	if err != nil {
		return nil, withCode(ExitError, fmt.Errorf("--schema-dir %s: %w", g.SchemaDir, err))
	}
	return r, nil
}

// openState opens the state backend named by --state.
func (g *GlobalOptions) openState(ctx context.Context) (state.Store, error) {
	o := state.DefaultOptions()
	o.KubeConfig = g.KubeFlags
	o.LockTimeout = g.LockTimeout
	o.Secrets = g.runSecrets()
	o.SecretRule = stateSecretRule(sync.OnceValues(g.schemas))
	if g.LeaseDuration > 0 {
		o.LeaseDuration = g.LeaseDuration
	}
	st, err := state.Open(ctx, g.State, o)
	if err != nil {
		// A file that is not a state file is bad input; the store leaves
		// it untouched and its message says what to do.
		var fe *state.FormatError
		var re *state.RefError
		if errors.As(err, &fe) || errors.As(err, &re) {
			return nil, withCode(ExitValidation, err)
		}
		return nil, withCode(ExitError, fmt.Errorf("opening state %s: %w", g.State, err))
	}
	return st, nil
}

// setName is the manifest set recorded in state: --set, else the Kubernetes
// backend's SETNAME, else the default set.
func (g *GlobalOptions) setName() string {
	if g.Set != "" {
		return g.Set
	}
	if rest, ok := strings.CutPrefix(g.State, "kubernetes://"); ok {
		if i := strings.LastIndex(rest, "/"); i >= 0 && i < len(rest)-1 {
			return rest[i+1:]
		}
	}
	return apply.DefaultSet
}

// load reads and validates the manifests. Validation problems exit 2 and
// nothing is sent anywhere. Secrets go to lo.SecretValues when set (a
// loop's load of its own), else to the run's registry.
func (g *GlobalOptions) load(ctx context.Context, lo manifest.LoadOptions, streams io.Writer) (*manifest.Set, error) {
	lo.Subscription = g.Subscription
	if lo.SecretValues == nil {
		lo.SecretValues = g.runSecrets()
	}
	if !strings.HasPrefix(g.State, "kubernetes://") {
		lo.Skip = append(lo.Skip, g.State) // state kept beside the manifests is not one
	}
	if g.SchemaDir != "" {
		reg, err := g.schemas()
		if err != nil {
			return nil, err
		}
		lo.Schema = manifest.RegistryValidator(reg)
		lo.Versions = reg.Versions
	}
	if lo.ServedVersions == nil {
		// An api-version the schema index lacks is checked with ARM's
		// providers API by the loader, so the verdict is one problem with
		// its line. The client is built only when such a version exists.
		var once sync.Once
		var c *arm.Client
		var cerr error
		lo.ServedVersions = func(ctx context.Context, subscription, namespace string) (map[string][]string, error) {
			once.Do(func() { c, cerr = g.armClient(streams) })
			if cerr != nil {
				return nil, cerr
			}
			return c.ProviderAPIVersions(ctx, subscription, namespace)
		}
	}
	if lo.Secrets == nil {
		lo.Secrets = g.kubeSecrets(nil)
	}
	set, err := manifest.Load(ctx, lo)
	if err != nil {
		return nil, withCode(ExitValidation, err)
	}
	// Warnings with their file and line, on stderr whatever -o says, and
	// as annotations under GitHub Actions; machine formats carry them too.
	ws := manifestProblems(set.Findings)
	_ = printer.ProblemLines(streams, set.Secrets, ws)
	if g.annotations() == printer.AnnotationsGitHub {
		_ = printer.Annotate(streams, set.Secrets, ws)
	}
	return set, nil
}

// engine wires the apply engine; apply.New refuses one that could not
// check what its deletes and replaces destroy.
func (g *GlobalOptions) engine(c *arm.Client, st state.Store, reg *schema.Registry, opts apply.Options, warn io.Writer) (*apply.Engine, error) {
	opts.Concurrency = g.engineConcurrency()
	opts.Set = g.setName()
	opts.LockTimeout = g.LockTimeout
	e, err := apply.New(armclient.New(c), st, reg, opts)
	if err != nil {
		return nil, withCode(ExitError, err)
	}
	sec := g.runSecrets()
	e.Plugins, e.Warn, e.Secrets = plugins.For, cleanWriter{warn, sec}, sec
	return e, nil
}

// isTerminal reports whether f is an interactive terminal.
func isTerminal(f any) bool {
	if fd, ok := f.(interface{ Fd() uintptr }); ok {
		return term.IsTerminal(int(fd.Fd()))
	}
	return false
}

// confirm asks on a terminal; elsewhere the caller must have passed --yes.
func confirm(in io.Reader, out io.Writer, question string) (bool, error) {
	if !isTerminal(in) {
		return false, withCode(ExitValidation, fmt.Errorf("not a terminal: pass --yes to %s without asking", question))
	}
	fmt.Fprintf(out, "\nDo you want to %s? Only 'yes' will be accepted: ", question)
	var answer string
	if _, err := fmt.Fscanln(in, &answer); err != nil {
		return false, nil
	}
	return strings.TrimSpace(answer) == "yes", nil
}

// complete derives the global options every command shares.
func (g *GlobalOptions) complete(cmd *cobra.Command) {
	g.ConcurrencySet = cmd.Flags().Changed("concurrency")
}

// engineConcurrency bounds resources in progress: --concurrency when given,
// else 0 for the engine's own default.
func (g *GlobalOptions) engineConcurrency() int {
	if g.ConcurrencySet {
		return g.Concurrency
	}
	return 0
}

// cleanWriter scrubs the values of sec (the run's registry) and escapes
// control characters in everything written through it; the engine writes
// whole lines.
type cleanWriter struct {
	w   io.Writer
	sec *secret.Registry
}

func (c cleanWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(c.w, printer.CleanText(c.sec, string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
