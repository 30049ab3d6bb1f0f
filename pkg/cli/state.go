package cli

import (
	"context"

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
	// sub builds a subcommand that runs fn on the opened state store.
	sub := func(use, short string, args cobra.PositionalArgs, fn func(ctx context.Context, st state.Store, args []string) error) *cobra.Command {
		return &cobra.Command{Use: use, Short: short, Args: args,
			RunE: func(cmd *cobra.Command, a []string) error {
				st, err := g.openState(cmd.Context())
				if err != nil {
					return err
				}
				defer st.Close()
				return fn(cmd.Context(), st, a)
			}}
	}
	cmd.AddCommand(
		sub("list", "List the recorded resources", cobra.NoArgs,
			func(ctx context.Context, st state.Store, _ []string) error {
				return state.List(ctx, s.Out, st, format())
			}),
		sub("show ID", "Show one resource's record: last-applied body (secrets hashed), baseline, etag", cobra.ExactArgs(1),
			func(ctx context.Context, st state.Store, a []string) error {
				return state.Show(ctx, s.Out, st, a[0], format())
			}),
		sub("rm ID", "Forget a resource (it stays in Azure; the next plan shows it as adopt)", cobra.ExactArgs(1),
			func(ctx context.Context, st state.Store, a []string) error { return state.Remove(ctx, st, a[0]) }),
		sub("unlock", "Release a lock left by a run that died (Kubernetes Lease); shows the holder", cobra.NoArgs,
			func(ctx context.Context, st state.Store, _ []string) error { return state.Unlock(ctx, s.Out, st) }),
	)
	return cmd
}
