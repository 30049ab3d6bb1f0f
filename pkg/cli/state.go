package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/printer"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

func newStateCommand(g *GlobalOptions, s genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "state",
		Short: "Inspect and repair recorded state (list, show, rm, mv, unlock)",
	}
	list := newStateSubcommand(g, s, "list", "List the recorded resources", cobra.NoArgs,
		func(ctx context.Context, o *stateOptions, st state.Store) error {
			return listState(ctx, o.streams.Out, st, o.format(), o.g.runSecrets())
		}, printer.OutputText, printer.OutputWide, printer.OutputName, printer.OutputJSON, printer.OutputYAML)
	show := newStateSubcommand(g, s, "show TYPE/NAME|NAME|ID", "Show one resource's record: last-applied body (secrets hashed), baseline, etag", cobra.ExactArgs(1),
		func(ctx context.Context, o *stateOptions, st state.Store) error {
			id, err := resolveRecorded(ctx, st, o.args[0])
			if err != nil {
				return err
			}
			return state.Show(ctx, o.streams.Out, st, id, o.format())
		}, printer.OutputText, printer.OutputJSON, printer.OutputYAML)
	var rmYes bool
	rm := newStateSubcommand(g, s, "rm TYPE/NAME|NAME|ID", "Forget a resource (it stays in Azure; the next plan shows it as adopt)", cobra.ExactArgs(1),
		func(ctx context.Context, o *stateOptions, st state.Store) error {
			return forgetRecord(ctx, o, st, rmYes)
		})
	rm.Flags().BoolVarP(&rmYes, "yes", "y", false, "do not ask for confirmation (required when not on a terminal)")
	unlock := newStateSubcommand(g, s, "unlock", "Release a lock left by a run that died (Kubernetes Lease); shows the holder", cobra.NoArgs,
		func(ctx context.Context, o *stateOptions, st state.Store) error {
			return state.Unlock(ctx, o.streams.Out, st)
		})
	cmd.AddCommand(list, show, rm, newStateMoveCommand(g, s), unlock)
	return cmd
}

// forgetRecord implements state rm: it names what it will forget, asks
// unless --yes (without a terminal, --yes is required, as for apply), and
// says what it forgot. A forgotten resource would be adopted or left alone
// by the next plan, so the question is worth asking.
func forgetRecord(ctx context.Context, o *stateOptions, st state.Store, yes bool) error {
	id, err := resolveRecorded(ctx, st, o.args[0])
	if err != nil {
		return err
	}
	sec := o.g.runSecrets()
	shown := printer.CleanLine(sec, printer.DisplayName(id, armid.TypeOf(id)))
	if !yes {
		fmt.Fprintf(o.streams.ErrOut, "%s (%s) will be forgotten: Azure is not touched, and the next plan shows it as adopt if a manifest declares it.\n", shown, printer.CleanLine(sec, id))
		ok, err := confirm(o.streams.In, o.streams.ErrOut, "forget "+shown)
		if err != nil {
			return err
		}
		if !ok {
			fmt.Fprintln(o.streams.ErrOut, "Cancelled: nothing was forgotten.")
			return withCode(ExitError, errors.New(""))
		}
	}
	if err := state.Remove(ctx, st, id); err != nil {
		return err
	}
	fmt.Fprintf(o.streams.Out, "%s forgotten (it stays in Azure)\n", shown)
	return nil
}

// stateOptions are the options of the state subcommands: the store
// --state names, the arguments and -o.
type stateOptions struct {
	g          *GlobalOptions
	streams    genericiooptions.IOStreams
	printFlags *printer.PrintFlags
	args       []string
	run        func(ctx context.Context, o *stateOptions, st state.Store) error
}

// newStateSubcommand builds a state subcommand that runs fn on the opened
// store; formats are its -o values (text only when none).
func newStateSubcommand(g *GlobalOptions, s genericiooptions.IOStreams, use, short string, args cobra.PositionalArgs,
	fn func(ctx context.Context, o *stateOptions, st state.Store) error, formats ...string) *cobra.Command {
	o := &stateOptions{g: g, streams: s, run: fn}
	cmd := &cobra.Command{Use: use, Short: short, Args: args, RunE: runE(o)}
	if len(formats) == 0 {
		formats = []string{printer.OutputText}
	}
	o.printFlags = g.printFlags(cmd, formats...)
	return cmd
}

func (o *stateOptions) Complete(_ *cobra.Command, args []string) error {
	o.args = args
	return nil
}

// Validate has nothing to add: cobra counted the arguments, the root
// checked -o, and a reference is judged against the records (under the
// state lock, before anything is written).
func (o *stateOptions) Validate() error { return nil }

func (o *stateOptions) Run(ctx context.Context) error {
	st, err := o.g.openState(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	return o.run(ctx, o, st)
}

// format maps -o to the state package's formats; text is its default.
func (o *stateOptions) format() string {
	if f := o.printFlags.Format(); f != printer.OutputText {
		return f
	}
	return ""
}

// resolveRecorded turns TYPE/NAME, a name or an ID into the recorded ARM ID.
func resolveRecorded(ctx context.Context, st state.Store, ref string) (string, error) {
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

func newStateMoveCommand(g *GlobalOptions, s genericiooptions.IOStreams) *cobra.Command {
	var toSet string
	cmd := newStateSubcommand(g, s, "mv TYPE/NAME|NAME|ID [NEW-ID] [--to-set SET]", "File a record under a new ARM ID (a resource moved to another group) or set, without touching Azure", cobra.RangeArgs(1, 2),
		func(ctx context.Context, o *stateOptions, st state.Store) error {
			newID := ""
			if len(o.args) == 2 {
				newID = o.args[1]
			}
			return moveRecord(ctx, o.streams.Out, st, o.args[0], newID, toSet, o.g.runSecrets())
		})
	cmd.Example = `  # rg-old's storage account was moved to rg-new with ARM's move operation:
  kubectl azure state mv storageAccounts/st1 /subscriptions/SUB/resourceGroups/rg-new/providers/Microsoft.Storage/storageAccounts/st1
  # hand a resource over to another manifest set sharing the state:
  kubectl azure state mv storageAccounts/st1 --to-set team-b`
	cmd.Flags().StringVar(&toSet, "to-set", "", "file the record under this manifest set")
	return cmd
}
