package cli

import (
	"context"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/printer"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

func newStateCommand(g *GlobalOptions, s genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "state",
		Short: "Inspect and repair recorded state (list, show, rm, mv, unlock)",
	}
	// format maps -o to the state package's formats; text is its default.
	format := func(f *printer.PrintFlags) string {
		if f.Format() == printer.OutputText {
			return ""
		}
		return f.Format()
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
	// resolve turns TYPE/NAME, a name or an ID into the recorded ARM ID.
	resolve := func(ctx context.Context, st state.Store, ref string) (string, error) {
		recs, err := state.Heads(ctx, st)
		if err != nil {
			return "", withCode(ExitError, err)
		}
		i, err := resolveRef(ref, recordCandidates(recs))
		if err != nil {
			return "", err
		}
		return recs[i].ID, nil
	}
	var listFlags, showFlags *printer.PrintFlags
	list := sub("list", "List the recorded resources", cobra.NoArgs,
		func(ctx context.Context, st state.Store, _ []string) error {
			return listState(ctx, s.Out, st, format(listFlags))
		})
	listFlags = g.printFlags(list, printer.OutputText, printer.OutputWide, printer.OutputName, printer.OutputJSON, printer.OutputYAML)
	show := sub("show TYPE/NAME|NAME|ID", "Show one resource's record: last-applied body (secrets hashed), baseline, etag", cobra.ExactArgs(1),
		func(ctx context.Context, st state.Store, a []string) error {
			id, err := resolve(ctx, st, a[0])
			if err != nil {
				return err
			}
			return state.Show(ctx, s.Out, st, id, format(showFlags))
		})
	showFlags = g.printFlags(show, printer.OutputText, printer.OutputJSON, printer.OutputYAML)
	cmd.AddCommand(
		list,
		show,
		sub("rm TYPE/NAME|NAME|ID", "Forget a resource (it stays in Azure; the next plan shows it as adopt)", cobra.ExactArgs(1),
			func(ctx context.Context, st state.Store, a []string) error {
				id, err := resolve(ctx, st, a[0])
				if err != nil {
					return err
				}
				return state.Remove(ctx, st, id)
			}),
		newStateMoveCommand(g, s),
		sub("unlock", "Release a lock left by a run that died (Kubernetes Lease); shows the holder", cobra.NoArgs,
			func(ctx context.Context, st state.Store, _ []string) error { return state.Unlock(ctx, s.Out, st) }),
	)
	return cmd
}

func newStateMoveCommand(g *GlobalOptions, s genericiooptions.IOStreams) *cobra.Command {
	var toSet string
	cmd := &cobra.Command{
		Use:   "mv TYPE/NAME|NAME|ID [NEW-ID] [--to-set SET]",
		Short: "File a record under a new ARM ID (a resource moved to another group) or set, without touching Azure",
		Example: `  # rg-old's storage account was moved to rg-new with ARM's move operation:
  kubectl azure state mv storageAccounts/st1 /subscriptions/SUB/resourceGroups/rg-new/providers/Microsoft.Storage/storageAccounts/st1
  # hand a resource over to another manifest set sharing the state:
  kubectl azure state mv storageAccounts/st1 --to-set team-b`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, a []string) error {
			st, err := g.openState(cmd.Context())
			if err != nil {
				return err
			}
			defer st.Close()
			newID := ""
			if len(a) == 2 {
				newID = a[1]
			}
			return moveRecord(cmd.Context(), s.Out, st, a[0], newID, toSet)
		},
	}
	cmd.Flags().StringVar(&toSet, "to-set", "", "file the record under this manifest set")
	return cmd
}
