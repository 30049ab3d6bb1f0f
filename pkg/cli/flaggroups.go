package cli

import (
	"context"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

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
