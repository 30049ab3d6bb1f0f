// Package cli defines the kubectl-azure commands. Each command fills an
// options struct from flags and hands it to the package that does the work.
package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// StdStreams returns the process's standard streams.
func StdStreams() genericiooptions.IOStreams {
	return genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
}

// Main runs the CLI and returns the process exit code.
func Main(args []string, streams genericiooptions.IOStreams) int {
	cmd := NewRootCommand(streams)
	cmd.SetArgs(args)
	// Ctrl-C or a CI runner's SIGTERM cancels in-flight work; the journal
	// lets the next run repair whatever write was under way.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := cmd.ExecuteContext(ctx)
	if err != nil && err.Error() != "" {
		fmt.Fprintln(streams.ErrOut, "error:", err)
	}
	return exitCode(err)
}

// NewRootCommand builds the command tree.
func NewRootCommand(streams genericiooptions.IOStreams) *cobra.Command {
	g := DefaultGlobalOptions()
	root := &cobra.Command{
		Use:   "kubectl-azure",
		Short: "Apply declarative desired state to Azure Resource Manager",
		Long: `kubectl azure plans and applies Kubernetes-style manifests of Azure resources.

The plan is three-way: your manifests, what was last applied, and what Azure
holds now. It stays silent when nothing you own changed.`,
		Annotations:   map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl azure"},
		SilenceUsage:  true,
		SilenceErrors: true,
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
		newImportCommand(g, streams),
		newExplainCommand(g, streams),
		newStateCommand(g, streams),
		newCompletionCommand(streams),
	)
	return root
}

func newCompletionCommand(streams genericiooptions.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:       "completion bash|zsh|fish|powershell",
		Short:     "Print a shell completion script",
		Args:      cobra.ExactValidArgs(1),
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			var w io.Writer = streams.Out
			switch args[0] {
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
