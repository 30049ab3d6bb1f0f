package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/apply"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/printer"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// planOptions are the flags shared by diff, apply and delete.
type planOptions struct {
	g       *GlobalOptions
	streams genericiooptions.IOStreams
	load    manifest.LoadOptions
	apply   apply.Options
	print   printer.Options
	strict  bool
	yes     bool
	out     string // diff --out
	color   string
}

func newPlanOptions(g *GlobalOptions, s genericiooptions.IOStreams) *planOptions {
	return &planOptions{g: g, streams: s, load: manifest.NewLoadOptions(), apply: apply.DefaultOptions(), print: printer.DefaultOptions(), color: printer.ColorAuto}
}

func (o *planOptions) addFlags(cmd *cobra.Command, writes bool) {
	fs := cmd.Flags()
	o.load.AddFlags(fs)
	fs.BoolVar(&o.strict, "strict", false, "treat readonly properties in a manifest as errors instead of ignoring them")
	fs.BoolVar(&o.apply.Explain, "explain", false, "for every owned path judged equal, show the rule that made it equal")
	fs.BoolVar(&o.apply.Prune, "prune", false, "also delete resources recorded for this set that the manifests no longer declare")
	fs.StringVar(&o.color, "color", o.color, "colour: auto|always|never (NO_COLOR is always respected)")
	if writes {
		fs.BoolVarP(&o.yes, "yes", "y", false, "do not ask for confirmation (required when not on a terminal)")
		fs.BoolVar(&o.apply.Adopt, "adopt", false, "take over resources that exist in Azure but not in state")
		fs.BoolVar(&o.apply.AllowReplace, "allow-replace", false, "delete and recreate resources whose create-only properties changed")
	}
}

func (o *planOptions) printOpts() printer.Options {
	p := o.print
	p.Output = o.g.Output
	p.Color = o.color
	p.Explain = o.apply.Explain
	return p
}

// session is one command's open connections.
type session struct {
	eng   *apply.Engine
	store state.Store
}

func (o *planOptions) open(ctx context.Context) (*session, error) {
	c, err := o.g.armClient(o.streams.ErrOut)
	if err != nil {
		return nil, err
	}
	reg, err := o.g.schemas()
	if err != nil {
		return nil, err
	}
	st, err := o.g.openState(ctx)
	if err != nil {
		return nil, err
	}
	return &session{store: st, eng: o.g.engine(c, st, reg, o.apply, o.streams.ErrOut)}, nil
}

func (o *planOptions) loadSet(ctx context.Context) (*manifest.Set, error) {
	// Output flags are checked before anything is read or sent.
	if err := o.printOpts().Validate(); err != nil {
		return nil, withCode(ExitValidation, err)
	}
	// State records no labels, so a selector cannot tell "left out by -l"
	// from "no longer declared": pruning then would delete live resources.
	if o.apply.Prune && o.load.Selector != "" {
		return nil, withCode(ExitValidation, errors.New("--prune cannot be combined with -l: resources the selector leaves out would look undeclared and be deleted; prune without a selector"))
	}
	if len(o.load.Filenames) == 0 && o.load.Kustomize == "" {
		return nil, withCode(ExitValidation, errors.New("no manifests given: use -f FILE|DIR|- or -k DIR"))
	}
	o.load.Strict = o.strict
	return o.g.load(ctx, o.load, o.streams.ErrOut)
}

func newDiffCommand(g *GlobalOptions, s genericiooptions.IOStreams) *cobra.Command {
	o := newPlanOptions(g, s)
	cmd := &cobra.Command{
		Use:   "diff -f FILE|DIR [-o json|yaml|markdown] [--out plan.json]",
		Short: "Show what apply would change, and why (exit 0: nothing, 1: changes)",
		Example: `  kubectl azure diff -f infra/
  kubectl azure diff -k overlays/prod -o markdown >> "$GITHUB_STEP_SUMMARY"
  kubectl azure diff -f infra/ --out plan.json && kubectl azure apply plan.json --yes`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.runDiff(cmd.Context()) },
	}
	o.addFlags(cmd, false)
	cmd.Flags().StringVar(&o.out, "out", "", "also save the plan to this file, for `kubectl azure apply FILE`")
	return cmd
}

func (o *planOptions) runDiff(ctx context.Context) error {
	set, err := o.loadSet(ctx)
	if err != nil {
		return err
	}
	sess, err := o.open(ctx)
	if err != nil {
		return err
	}
	defer sess.store.Close()
	warnInterrupted(ctx, sess.store, o.streams.ErrOut)
	prep, err := sess.eng.Plan(ctx, set)
	if err != nil {
		return err
	}
	if err := printer.Print(o.streams.Out, prep.Plan, o.printOpts()); err != nil {
		return err
	}
	if o.out != "" {
		src := apply.Source{Filenames: o.load.Filenames, Recursive: o.load.Recursive, Kustomize: o.load.Kustomize,
			Selector: o.load.Selector, Subscription: o.g.Subscription, State: o.g.State, Prune: o.apply.Prune}
		if err := apply.WriteSaved(o.out, prep.Plan, src); err != nil {
			return fmt.Errorf("saving the plan: %w", err)
		}
	}
	if prep.Plan.HasChanges() {
		return errChanges
	}
	return nil
}

// warnInterrupted tells the user when a crashed run left writes unrecorded;
// diff is read-only, so the repair is left to the next apply.
func warnInterrupted(ctx context.Context, st state.Store, w interface{ Write([]byte) (int, error) }) {
	if in, err := st.Intents(ctx); err == nil && len(in) > 0 {
		fmt.Fprintf(w, "warning: an earlier run was interrupted with %d write(s) unrecorded; the next apply repairs them first\n", len(in))
	}
}

func newApplyCommand(g *GlobalOptions, s genericiooptions.IOStreams) *cobra.Command {
	o := newPlanOptions(g, s)
	cmd := &cobra.Command{
		Use:   "apply -f FILE|DIR | apply PLAN.json",
		Short: "Plan, confirm, write, wait and record",
		Example: `  kubectl azure apply -f infra/
  kubectl azure apply -f infra/ --yes --prune
  kubectl azure apply plan.json --yes      # exactly the plan saved by diff --out`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			saved := ""
			if len(args) == 1 {
				saved = args[0]
			}
			return o.runApply(cmd.Context(), saved)
		},
	}
	o.addFlags(cmd, true)
	return cmd
}

func newDeleteCommand(g *GlobalOptions, s genericiooptions.IOStreams) *cobra.Command {
	o := newPlanOptions(g, s)
	o.apply.Delete = true
	cmd := &cobra.Command{
		Use:     "delete -f FILE|DIR",
		Short:   "Delete what the manifests describe, children first",
		Example: `  kubectl azure delete -f infra/ --yes`,
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return o.runApply(cmd.Context(), "") },
	}
	o.addFlags(cmd, true)
	return cmd
}

func (o *planOptions) runApply(ctx context.Context, savedPath string) error {
	var saved *apply.SavedPlan
	if savedPath != "" {
		if len(o.load.Filenames) > 0 || o.load.Kustomize != "" {
			return withCode(ExitValidation, errors.New("give either a saved plan or -f/-k, not both"))
		}
		sp, err := apply.ReadSaved(savedPath)
		if err != nil {
			return withCode(ExitValidation, err)
		}
		saved = sp
		o.load.Filenames, o.load.Recursive, o.load.Kustomize, o.load.Selector = sp.Source.Filenames, sp.Source.Recursive, sp.Source.Kustomize, sp.Source.Selector
		if o.g.Subscription == "" {
			o.g.Subscription = sp.Source.Subscription
		}
		o.apply.Prune = o.apply.Prune || sp.Source.Prune
		// The saved plan was reviewed: its approval is the --yes.
		o.yes = true
	}
	set, err := o.loadSet(ctx)
	if err != nil {
		return err
	}
	sess, err := o.open(ctx)
	if err != nil {
		return err
	}
	defer sess.store.Close()

	unlock, err := sess.store.Lock(ctx, "", o.g.LockTimeout)
	if err != nil {
		return withCode(ExitError, err)
	}
	defer unlock()
	if _, err := sess.eng.Repair(ctx); err != nil {
		return fmt.Errorf("repairing the records of an interrupted run (nothing new was written): %w", err)
	}
	prep, err := sess.eng.Plan(ctx, set)
	if err != nil {
		return err
	}
	if saved != nil {
		if diffs := apply.Matches(&saved.Plan, prep.Plan); len(diffs) > 0 {
			return withCode(ExitError, apply.MatchError(savedPath, diffs))
		}
	}
	popts := o.printOpts()
	if err := printer.Print(o.streams.Out, prep.Plan, popts); err != nil {
		return err
	}
	if err := sess.eng.Check(prep); err != nil {
		return withCode(ExitError, err)
	}
	if !needsExecute(prep.Plan, o.apply.Adopt) {
		return nil
	}
	if !o.yes {
		verb := "apply these changes"
		if o.apply.Delete {
			verb = "delete these resources"
		}
		ok, err := confirm(o.streams.In, o.streams.Out, verb)
		if err != nil {
			return err
		}
		if !ok {
			fmt.Fprintln(o.streams.Out, "Cancelled: nothing was written.")
			return withCode(ExitError, errors.New(""))
		}
	}
	prog := printer.NewProgress(o.streams.Out, popts)
	sess.eng.Progress = prog
	execErr := sess.eng.Execute(ctx, prep)
	_ = prog.Close()
	if execErr != nil {
		return withCode(ExitError, execErr)
	}
	return nil
}

// needsExecute is true when the plan writes to Azure, or records adopted
// resources in state.
func needsExecute(p *plan.Plan, adopt bool) bool {
	if p.HasChanges() {
		return true
	}
	if adopt {
		for _, r := range p.Resources {
			if r.Action == plan.ActionAdopt {
				return true
			}
		}
	}
	return false
}
