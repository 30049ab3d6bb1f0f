package cli

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// usageTemplate lists only a command's own flags and leaves the global ones
// (and the kubeconfig flags) to `kubectl azure options`, the way kubectl
// keeps its help about the command at hand instead of repeating the same
// sixteen lines under every command.
const usageTemplate = `Usage:{{if .Runnable}}
  {{.UseLine}}{{end}}{{if .HasAvailableSubCommands}}
  {{.CommandPath}} [command]{{end}}{{if gt (len .Aliases) 0}}

Aliases:
  {{.NameAndAliases}}{{end}}{{if .HasExample}}

Examples:
{{.Example}}{{end}}{{if .HasAvailableSubCommands}}

Available Commands:{{range .Commands}}{{if (or .IsAvailableCommand (eq .Name "help"))}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{end}}{{if .HasAvailableLocalFlags}}

Flags:
{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}

Use "kubectl azure options" for the global flags (--subscription, --state, --endpoint, -o, ...), accepted by every command.{{if .HasAvailableSubCommands}}
Use "{{.CommandPath}} [command] --help" for more information about a command.{{end}}
`

func setUsage(root *cobra.Command) {
	root.SetUsageTemplate(usageTemplate)
}

// newOptionsCommand lists every global flag, the kubeconfig ones included,
// like `kubectl options`.
func newOptionsCommand(streams genericiooptions.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "options",
		Short: "List the global flags, the kubeconfig flags included",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			global := pflag.NewFlagSet("global", pflag.ContinueOnError)
			kube := pflag.NewFlagSet("kube", pflag.ContinueOnError)
			cmd.Root().PersistentFlags().VisitAll(func(f *pflag.Flag) {
				c := *f
				if _, ok := f.Annotations[kubeFlagAnnotation]; ok {
					c.Hidden = false
					kube.AddFlag(&c)
				} else if !f.Hidden {
					global.AddFlag(&c)
				}
			})
			fmt.Fprintf(streams.Out, "Global flags, accepted by every command:\n%s\n", global.FlagUsages())
			fmt.Fprintf(streams.Out, "Kubeconfig flags, for --state kubernetes://NAMESPACE/SET and Kubernetes Secret references:\n%s", kube.FlagUsages())
			return nil
		},
	}
}
