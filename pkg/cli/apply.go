package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/apply"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/printer"
)

// Values of apply's and delete's --dry-run.
const (
	dryRunNone   = "none"
	dryRunClient = "client" // validate the manifests; no request
	dryRunServer = "server" // read-only plan against Azure, as diff
)

// validateDryRun refuses a --dry-run value that is none of the above.
func validateDryRun(v string) error {
	switch v {
	case dryRunNone, dryRunClient, dryRunServer:
		return nil
	}
	return withCode(ExitValidation, fmt.Errorf("unknown --dry-run %q: use none, client or server", v))
}

// applyOptions are `kubectl azure apply`'s.
type applyOptions struct {
	planCore
	dryRun string // --dry-run
	// watch is --watch and the reconcile loop's flags (watch.go).
	watch *watchOptions

	// Filled by Complete from a plan saved by diff --out.
	savedPath string
	saved     *apply.SavedPlan
}

func newApplyCommand(g *GlobalOptions, s genericiooptions.IOStreams) *cobra.Command {
	o := &applyOptions{dryRun: dryRunNone}
	cmd := &cobra.Command{
		Use:   "apply -f FILE|DIR | apply PLAN.json",
		Short: "Plan, confirm, write, wait and record",
		Example: `  kubectl azure apply -f infra/
  kubectl azure apply -f infra/ --yes --prune
  kubectl azure apply -f infra/ --dry-run=server   # the plan, nothing written
  kubectl azure apply plan.json --yes              # exactly the plan saved by diff --out
  kubectl azure apply -f infra/ --replace Microsoft.Storage/storageAccounts/stdemo001
  kubectl azure apply -f infra/ --refresh-only --yes   # accept drift as the new baseline, write nothing`,
		Args: cobra.MaximumNArgs(1),
		RunE: runE(o),
	}
	o.planCore = newPlanCore(g, s, cmd)
	fs := cmd.Flags()
	o.addFlags(fs)
	o.addChangeFlags(fs)
	o.addWriteFlags(fs)
	fs.BoolVar(&o.apply.AllowReplace, "allow-replace", false, "delete and recreate resources whose create-only properties changed")
	fs.BoolVar(&o.apply.AllowPruneAll, "allow-prune-all", false, "permit --prune without a terminal to delete every resource of the set")
	fs.StringVar(&o.dryRun, "dry-run", o.dryRun, "none|client (validate the manifests, send nothing)|server (plan against Azure, write nothing)")
	fs.Lookup("dry-run").NoOptDefVal = dryRunServer
	o.watch = addWatchFlags(cmd)
	return cmd
}

func (o *applyOptions) Complete(cmd *cobra.Command, args []string) error {
	if len(args) == 1 {
		if err := o.completeSaved(cmd, args[0]); err != nil {
			return err
		}
	}
	return o.complete(cmd)
}

func (o *applyOptions) Validate() error {
	if err := validateDryRun(o.dryRun); err != nil {
		return err
	}
	if err := o.validate(); err != nil {
		return err
	}
	if o.apply.Mode == plan.ModeRefreshOnly && o.saved != nil {
		return withCode(ExitValidation, errors.New("--refresh-only cannot apply a saved plan"))
	}
	if !o.manifests.given() {
		return withCode(ExitValidation, errors.New("no manifests given: use -f FILE|DIR|- or -k DIR"))
	}
	if o.watch.watch {
		return o.validateWatch()
	}
	return nil
}

// validateWatch rejects what the reconcile loop cannot do.
func (o *applyOptions) validateWatch() error {
	// The loop applies again and again: a forced replacement would
	// recreate the resource every round, and a refresh would accept drift
	// the loop is there to correct.
	if len(o.replace) > 0 || o.apply.Mode == plan.ModeRefreshOnly {
		return withCode(ExitValidation, errors.New("--watch cannot be combined with --replace or --refresh-only: run those once with a plain apply"))
	}
	if o.saved != nil {
		return withCode(ExitValidation, errors.New("--watch applies manifests (-f/-k), not a saved plan"))
	}
	if o.dryRun != dryRunNone {
		return withCode(ExitValidation, errors.New("--watch cannot be combined with --dry-run: use `kubectl azure diff` or --drift-policy detect"))
	}
	if o.apply.Prune {
		return withCode(ExitValidation, errors.New("--watch never prunes: run `kubectl azure apply --prune` on its own"))
	}
	for _, f := range o.manifests.load.Filenames {
		if f == "-" {
			return withCode(ExitValidation, errors.New("--watch needs files or directories to watch, not standard input"))
		}
	}
	if err := o.watch.complete(); err != nil {
		return err
	}
	return checkOutputPaths(o.g.State, o.manifests.load,
		outputPath{"--status-file", o.watch.loop.StatusFile}, outputPath{"--plan-file", o.watch.loop.PlanFile})
}

func (o *applyOptions) Run(ctx context.Context) error {
	switch {
	case o.watch.watch:
		return o.watch.runApply(ctx, &o.planCore)
	case o.dryRun == dryRunClient:
		return o.runClientDryRun(ctx)
	case o.dryRun == dryRunServer:
		return o.runServerDryRun(ctx)
	}
	set, err := o.loadSet(ctx)
	if err != nil {
		return err
	}
	sess, err := o.open(ctx)
	if err != nil {
		return err
	}
	return o.execute(ctx, set, sess, o.saved, o.savedPath)
}

// completeSaved takes the manifests, subscription, state, set and flags
// from a plan saved by `diff --out`: the reviewed plan is the approval, and
// it was computed against that state and set, so another one given on the
// command line is refused rather than silently planned against.
func (o *applyOptions) completeSaved(cmd *cobra.Command, path string) error {
	if len(o.manifests.load.Filenames) > 0 || o.manifests.load.Kustomize != "" {
		return withCode(ExitValidation, errors.New("give either a saved plan or -f/-k, not both"))
	}
	sp, err := apply.ReadSaved(path)
	if err != nil {
		return withCode(ExitValidation, fmt.Errorf("reading the saved plan %s: %w", path, err))
	}
	if sp.Plan.RefreshOnly {
		// It records drift as the baseline; there is nothing in it to write.
		return withCode(ExitValidation, fmt.Errorf("the saved plan %s was made by diff --refresh-only: it is a review of drift, not a plan to apply; record Azure's values as the new baseline with\n  %s", path, shellCommand(append(sourceArgs(sp, "apply"), "--refresh-only"))))
	}
	o.savedPath, o.saved = path, sp
	o.manifests.load.Filenames, o.manifests.load.Recursive, o.manifests.load.Kustomize, o.manifests.load.Selector = sp.Source.Filenames, sp.Source.Recursive, sp.Source.Kustomize, sp.Source.Selector
	if o.g.Subscription == "" {
		o.g.Subscription = sp.Source.Subscription
	}
	changed := func(name string) bool { f := cmd.Flag(name); return f != nil && f.Changed }
	if st := savedState(sp); st != "" {
		if changed("state") && o.g.State != st {
			return withCode(ExitValidation, fmt.Errorf("the saved plan %s was made against state %s, not %s: drop --state, or make a new plan with it (kubectl azure diff ... --state %s --out %s)", path, st, o.g.State, o.g.State, path))
		}
		o.g.State = st
	}
	if set := sp.Plan.Set; set != "" {
		if changed("set") && o.g.Set != set {
			return withCode(ExitValidation, fmt.Errorf("the saved plan %s was made for set %s, not %s: drop --set, or make a new plan with it", path, set, o.g.Set))
		}
		o.g.Set = set
	}
	if o.apply.Mode == plan.ModeRefreshOnly {
		return withCode(ExitValidation, errors.New("--refresh-only cannot apply a saved plan: run `kubectl azure apply -f ... --refresh-only` (or diff --refresh-only first to review)"))
	}
	if len(o.replace) > 0 {
		return withCode(ExitValidation, fmt.Errorf("--replace cannot be added to the saved plan %s: make a new plan with it (kubectl azure diff ... --replace TYPE/NAME --out %s)", path, path))
	}
	o.replace = append(o.replace, sp.Source.Replace...)
	o.apply.Prune = o.apply.Prune || sp.Source.Prune
	o.apply.AllowReplace = o.apply.AllowReplace || sp.Source.AllowReplace
	o.apply.Adopt = o.apply.Adopt || sp.Source.Adopt
	o.yes = true
	return nil
}

// savedState is the state a saved plan was made against: its source's,
// else the one its header names ("" in plans saved before either existed).
func savedState(sp *apply.SavedPlan) string {
	if sp.Source.State != "" {
		return sp.Source.State
	}
	return sp.Plan.State
}

// savedMismatch refuses a saved plan that no longer matches, listing a few
// of the differences and the command that makes a new plan from the same
// source (paths, state, set and flags), so the fix can be pasted.
func savedMismatch(path string, sp *apply.SavedPlan, diffs []string) error {
	const shown = 5
	var b strings.Builder
	fmt.Fprintf(&b, "refusing to apply %s: the plan no longer matches Azure, state or the manifests (nothing was written):", path)
	for i, d := range diffs {
		if i == shown {
			fmt.Fprintf(&b, "\n  ... and %d more", len(diffs)-shown)
			break
		}
		if id, msg, ok := strings.Cut(d, ": "); ok && strings.HasPrefix(id, "/") {
			d = printer.DisplayName(id, "") + ": " + msg
		}
		b.WriteString("\n  " + d)
	}
	fmt.Fprintf(&b, "\nmake a new plan from the same source, review it, then apply it:\n  %s", diffCommand(sp, path))
	return errors.New(b.String())
}

// diffCommand is the `kubectl azure diff` that remakes a saved plan.
func diffCommand(sp *apply.SavedPlan, out string) string {
	src := sp.Source
	args := sourceArgs(sp, "diff")
	if src.Prune {
		args = append(args, "--prune")
	}
	if src.Adopt {
		args = append(args, "--adopt")
	}
	for _, id := range src.Replace {
		args = append(args, "--replace", id)
	}
	return shellCommand(append(args, "--out", out))
}

// sourceArgs is `kubectl azure VERB` on the manifests, state, set and
// subscription a saved plan was made from.
func sourceArgs(sp *apply.SavedPlan, verb string) []string {
	src := sp.Source
	args := []string{"kubectl", "azure", verb}
	if src.Kustomize != "" {
		args = append(args, "-k", src.Kustomize)
	}
	for _, f := range src.Filenames {
		args = append(args, "-f", f)
	}
	if src.Recursive {
		args = append(args, "-R")
	}
	if src.Selector != "" {
		args = append(args, "-l", src.Selector)
	}
	if st := savedState(sp); st != "" {
		args = append(args, "--state", st)
	}
	if sp.Plan.Set != "" && sp.Plan.Set != apply.DefaultSet {
		args = append(args, "--set", sp.Plan.Set)
	}
	if src.Subscription != "" {
		args = append(args, "--subscription", src.Subscription)
	}
	return args
}

// shellCommand quotes each argument for a POSIX shell and joins them.
func shellCommand(args []string) string {
	for i, a := range args {
		args[i] = shellQuote(a)
	}
	return strings.Join(args, " ")
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:@,+%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// runClientDryRun validates the manifests and lists what apply would
// consider, without a single request.
func (o *applyOptions) runClientDryRun(ctx context.Context) error {
	set, err := o.loadSet(ctx)
	if err != nil {
		return err
	}
	return o.printManifests(set)
}

// printManifests lists a set's resources, as a client dry run shows them.
func (o *planCore) printManifests(set *manifest.Set) error {
	list := make([]printer.ManifestResource, 0, len(set.Resources))
	for _, r := range set.Resources {
		list = append(list, printer.ManifestResource{ID: r.ID, Type: r.Type, APIVersion: r.APIVersion, Name: r.Name, Origin: r.Origin.String()})
	}
	return o.printer.PrintManifests(o.streams.Out, list)
}

// runServerDryRun plans against Azure and writes nothing; unlike diff it
// exits 0 whatever the plan holds, as kubectl apply --dry-run=server does.
func (o *applyOptions) runServerDryRun(ctx context.Context) error {
	sess, prep, err := o.plan(ctx)
	if err != nil {
		return err
	}
	defer sess.store.Close()
	o.refreshHeader()
	return o.printer.PrintPlan(o.streams.Out, prep.Plan)
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
