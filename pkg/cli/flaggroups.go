package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kubectl-azure/kubectl-azure/pkg/apply"
	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/printer"
)

// Flag groups commands compose, as kubectl's commands compose
// FileNameFlags and PrintFlags. The ARM connection (--subscription,
// --endpoint, --auth, ...) and state (--state, --set, --lock-timeout) are
// global flags in GlobalOptions; session.go opens them.

// manifestFlags are the manifest source: -f, -k, -R and -l.
type manifestFlags struct {
	load manifest.LoadOptions
}

func newManifestFlags() manifestFlags { return manifestFlags{load: manifest.NewLoadOptions()} }

func (m *manifestFlags) addFlags(fs *pflag.FlagSet) { m.load.AddFlags(fs) }

// given reports whether -f or -k named manifests.
func (m *manifestFlags) given() bool { return len(m.load.Filenames) > 0 || m.load.Kustomize != "" }

// sources names what was read, for messages.
func (m *manifestFlags) sources() string {
	var parts []string
	if m.load.Kustomize != "" {
		parts = append(parts, "-k "+m.load.Kustomize)
	}
	parts = append(parts, m.load.Filenames...)
	if m.load.Selector != "" {
		parts = append(parts, "(selector "+m.load.Selector+")")
	}
	return strings.Join(parts, ", ")
}

// printFlags gives cmd its -o: the formats it accepts, reading the root's
// persistent -o so the flag may come before or after the command's name.
// A command given none accepts text only.
func (g *GlobalOptions) printFlags(cmd *cobra.Command, formats ...string) *printer.PrintFlags {
	f := printer.NewPrintFlags(formats...).WithOutput(&g.Output)
	if g.outputs == nil {
		g.outputs = map[*cobra.Command]*printer.PrintFlags{}
	}
	g.outputs[cmd] = f
	return f
}

// printFlagsOf is the -o of cmd: its own, else the nearest parent's, else
// text only.
func (g *GlobalOptions) printFlagsOf(cmd *cobra.Command) *printer.PrintFlags {
	for c := cmd; c != nil; c = c.Parent() {
		if f, ok := g.outputs[c]; ok {
			return f
		}
	}
	return printer.NewPrintFlags(printer.OutputText).WithOutput(&g.Output)
}

// runner is every command's options: kubectl's Complete (derive options
// from flags and arguments), Validate (reject bad input before any
// request) and Run (only run).
type runner interface {
	Complete(cmd *cobra.Command, args []string) error
	Validate() error
	Run(ctx context.Context) error
}

// runE is the cobra entry of a command with options o.
func runE(o runner) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := o.Complete(cmd, args); err != nil {
			return err
		}
		if err := o.Validate(); err != nil {
			return err
		}
		return o.Run(cmd.Context())
	}
}

// readFlags are how live state is read: --collection-reads and
// --cache-lag, shared by the plan commands and the controller.
func addReadFlags(fs *pflag.FlagSet, o *apply.Options) {
	fs.BoolVar(&o.CollectionReads, "collection-reads", o.CollectionReads, "read live state with one list per group or parent where that takes fewer requests")
	fs.Var((*cacheLag)(&o.CacheLag), "cache-lag", "how long ARM's generic resource list may lag a write: resources written more recently are read from their own lists or GETs (0: the list never lags)")
}

// cacheLag is --cache-lag: it shows the ARM client's default while unset
// (apply's zero value), and stores 0 as "no lag" (negative).
type cacheLag time.Duration

func (c *cacheLag) String() string {
	switch d := time.Duration(*c); {
	case d == 0:
		return arm.DefaultCacheLag.String()
	case d < 0:
		return "0s"
	default:
		return d.String()
	}
}

func (c *cacheLag) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return fmt.Errorf("want a duration such as 5m or 0, got %q", s)
	}
	if d == 0 {
		d = -1
	}
	*c = cacheLag(d)
	return nil
}

func (c *cacheLag) Type() string { return "duration" }
