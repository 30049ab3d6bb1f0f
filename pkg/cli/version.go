package cli

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/version"
)

// newVersionCommand must stay cheap: no schema, no network, no state.
func newVersionCommand(streams genericiooptions.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintf(streams.Out, "kubectl-azure %s %s/%s\n", version.String(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}
