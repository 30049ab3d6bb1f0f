// Package cli defines the kubectl-azure commands. Each command fills an
// options struct from flags and hands it to the package that does the work,
// in three steps: Complete (derive options), Validate (reject bad input
// before any request) and Run (only run).
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/apply"
	"github.com/kubectl-azure/kubectl-azure/pkg/printer"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// StdStreams returns the process's standard streams.
func StdStreams() genericiooptions.IOStreams {
	return genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
}

// exit ends the process on a second interrupt; tests replace it.
var exit = osExit

var osExit = os.Exit

// Main runs the CLI and returns the process exit code.
func Main(args []string, streams genericiooptions.IOStreams) int {
	out := &trackingWriter{w: streams.Out}
	streams.Out = out
	g := DefaultGlobalOptions()
	cmd := newRootCommand(g, streams)
	cmd.SetArgs(args)

	ctx, stop := interruptContext(streams.ErrOut)
	defer stop()
	err := cmd.ExecuteContext(ctx)
	if err != nil && err.Error() != "" {
		report(g, streams, out.written(), err)
	}
	return exitCode(err)
}

// report prints a failure: always on stderr, as annotations under GitHub
// Actions, and on stdout in the machine format when nothing was printed
// there yet, so `-o json | jq` and a markdown PR comment carry the error.
func report(g *GlobalOptions, streams genericiooptions.IOStreams, stdoutUsed bool, err error) {
	sec := g.runSecrets()
	msg := printer.CleanText(sec, err.Error())
	ps := problems(err)
	if isValidation(err) {
		// One line per problem, each with its severity, file and line; the
		// file name is escaped to one line (it may hold a newline).
		_ = printer.ProblemLines(streams.ErrOut, sec, ps)
	} else {
		fmt.Fprintln(streams.ErrOut, "error:", msg)
	}
	if g.annotations() == printer.AnnotationsGitHub {
		_ = printer.Annotate(streams.ErrOut, sec, ps)
	}
	if stdoutUsed {
		return
	}
	// The error document comes in the formats that are documents.
	p, err := printer.NewPrintFlags(printer.OutputJSON, printer.OutputYAML, printer.OutputMarkdown).WithOutput(&g.Output).ToPrinter(printer.Options{Secrets: sec})
	if err != nil {
		return
	}
	summary := msg
	if len(ps) > 1 || ps[0].File != "" {
		summary = fmt.Sprintf("%d problem(s) in the manifests; nothing was sent to Azure", len(ps))
	}
	_ = p.PrintProblems(streams.Out, summary, ps)
}

// interruptContext cancels on the first SIGINT or SIGTERM: reads stop and
// no new write starts, while apply lets writes already sent finish and be
// recorded (ExecuteUntil); a second signal exits at once with 130, leaving
// them journaled for the next run to repair.
func interruptContext(errOut io.Writer) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
		case <-done:
			return
		}
		fmt.Fprintf(errOut, "Interrupted: nothing new starts; writes already sent finish and are recorded (up to %s). Press Ctrl-C again to stop now; the next apply repairs what was cut short.\n", apply.DefaultDrainTimeout)
		cancel()
		select {
		case <-sigs:
			exit(ExitInterrupted)
		case <-done:
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(sigs)
			close(done)
			cancel()
		})
	}
}

// trackingWriter remembers whether anything was written, so Main knows
// whether stdout still has room for an error document.
type trackingWriter struct {
	w  io.Writer
	mu sync.Mutex
	n  int
}

func (t *trackingWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.n += len(p)
	t.mu.Unlock()
	return t.w.Write(p)
}

func (t *trackingWriter) written() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.n > 0
}

// Fd lets terminal detection see through the wrapper.
func (t *trackingWriter) Fd() uintptr {
	if f, ok := t.w.(interface{ Fd() uintptr }); ok {
		return f.Fd()
	}
	return ^uintptr(0)
}

func newRootCommand(g *GlobalOptions, streams genericiooptions.IOStreams) *cobra.Command {
	root := &cobra.Command{
		Use:   "kubectl-azure",
		Short: "Apply declarative desired state to Azure Resource Manager",
		Long: `kubectl azure plans and applies Kubernetes-style manifests of Azure resources.

The plan is three-way: your manifests, what was last applied, and what Azure
holds now. It stays silent when nothing you own changed.`,
		Annotations:   map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl azure"},
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			// Each run starts with a registry of its own: nothing one run
			// registered is scrubbed by, or leaks into, another.
			g.secrets = secret.NewRegistry()
			return g.validate(cmd)
		},
	}
	root.SetIn(streams.In)
	root.SetOut(streams.Out)
	root.SetErr(streams.ErrOut)
	g.AddFlags(root.PersistentFlags())
	// Bad flags are bad input: exit 2 like a bad manifest, before any request.
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return withCode(ExitValidation, err) })

	root.AddCommand(
		newVersionCommand(streams),
		newDiffCommand(g, streams),
		newApplyCommand(g, streams),
		newDeleteCommand(g, streams),
		newGetCommand(g, streams),
		newImportCommand(g, streams),
		newConvertCommand(g, streams),
		newExplainCommand(g, streams),
		newStateCommand(g, streams),
		newControllerCommand(g, streams),
		newStatusCommand(g, streams),
		newOptionsCommand(streams),
		newCompletionCommand(streams),
	)
	addCompletions(root, g)
	setUsage(root)
	return root
}

// validate rejects global flag values the command cannot honour, before
// anything is read or sent.
func (g *GlobalOptions) validate(cmd *cobra.Command) error {
	switch g.Annotations {
	case "auto", printer.AnnotationsGitHub, printer.AnnotationsNone:
	default:
		return withCode(ExitValidation, fmt.Errorf("unknown --annotations %q: use auto, github or none", g.Annotations))
	}
	if err := g.validateValues(); err != nil {
		return withCode(ExitValidation, err)
	}
	if err := g.printFlagsOf(cmd).Validate(); err != nil {
		var unknown *printer.UnknownFormatError
		if errors.As(err, &unknown) {
			unknown.Command = cmd.CommandPath()
		}
		return withCode(ExitValidation, err)
	}
	return nil
}

func newCompletionCommand(streams genericiooptions.IOStreams) *cobra.Command {
	shells := []string{"bash", "zsh", "fish", "powershell"}
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print a shell completion script",
		Long: `Print a shell completion script for kubectl-azure.

For "kubectl azure <TAB>", kubectl (1.26+) runs kubectl_complete-azure from
PATH: "kubectl-azure completion kubectl > kubectl_complete-azure" writes it
(make it executable); release archives ship it.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 || !(slices.Contains(shells, args[0]) || args[0] == "kubectl") {
				return withCode(ExitValidation, fmt.Errorf("want one of %s (or kubectl, for the kubectl_complete-azure helper)", strings.Join(shells, ", ")))
			}
			return nil
		},
		ValidArgs: shells,
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			var w io.Writer = streams.Out
			switch args[0] {
			case "kubectl":
				return writeKubectlComplete(w)
			case "bash":
				return root.GenBashCompletionV2(w, true)
			case "zsh":
				return root.GenZshCompletion(w)
			case "fish":
				return root.GenFishCompletion(w, true)
			default:
				return root.GenPowerShellCompletionWithDesc(w)
			}
		},
	}
}
