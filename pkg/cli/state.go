package cli

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

func newStateCommand(g *GlobalOptions, s genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "state",
		Short: "Inspect and repair recorded state (list, show, rm, unlock)",
	}
	format := func() string {
		if g.Output == "json" || g.Output == "yaml" {
			return g.Output
		}
		return ""
	}
	cmd.AddCommand(
		&cobra.Command{
			Use:   "list",
			Short: "List the recorded resources",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				st, err := g.openState(cmd.Context())
				if err != nil {
					return err
				}
				defer st.Close()
				return state.List(cmd.Context(), s.Out, st, format())
			},
		},
		&cobra.Command{
			Use:   "show ID",
			Short: "Show one resource's record: last-applied body (secrets hashed), baseline, etag",
			Args:  cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				st, err := g.openState(cmd.Context())
				if err != nil {
					return err
				}
				defer st.Close()
				return state.Show(cmd.Context(), s.Out, st, args[0], format())
			},
		},
		&cobra.Command{
			Use:   "rm ID",
			Short: "Forget a resource (it stays in Azure; the next plan shows it as adopt)",
			Args:  cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				st, err := g.openState(cmd.Context())
				if err != nil {
					return err
				}
				defer st.Close()
				return state.Remove(cmd.Context(), st, args[0])
			},
		},
		&cobra.Command{
			Use:   "unlock",
			Short: "Release a lock left by a run that died (Kubernetes Lease); shows the holder",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				st, err := g.openState(cmd.Context())
				if err != nil {
					return err
				}
				defer st.Close()
				return state.Unlock(cmd.Context(), s.Out, st)
			},
		},
	)
	return cmd
}
