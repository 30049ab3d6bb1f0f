package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/apply"
	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/printer"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// Commands that plan.
const (
	cmdDiff   = "diff"
	cmdApply  = "apply"
	cmdDelete = "delete"
)

// Values of apply --dry-run.
const (
	dryRunNone   = "none"
	dryRunClient = "client" // validate the manifests; no request
	dryRunServer = "server" // read-only plan against Azure, as diff
)

// planOutputs are the -o values of diff, apply and delete.
var planOutputs = strings.Join([]string{printer.OutputText, printer.OutputJSON, printer.OutputYAML, printer.OutputMarkdown, printer.OutputName}, ",")

// planOptions are the flags shared by diff, apply and delete.
type planOptions struct {
	g       *GlobalOptions
	streams genericiooptions.IOStreams
	command string
	load    manifest.LoadOptions
	apply   apply.Options
	print   printer.Options
	strict  bool
	yes     bool
	out     string // diff --out
	color   string
	dryRun  string // apply --dry-run
	// driftOnly makes diff exit 1 only for changes made outside this tool.
	driftOnly bool
	// refs are delete's TYPE/NAME arguments.
	refs []string
	// replace are the --replace refs (TYPE/NAME or ARM ID), resolved to
	// IDs in o.apply.Replace once the manifests are loaded.
	replace []string

	// Filled by complete.
	savedPath string
	saved     *apply.SavedPlan
	// findings are the manifests' warnings, carried into the plan.
	findings []printer.Problem
}

func newPlanOptions(g *GlobalOptions, s genericiooptions.IOStreams, command string) *planOptions {
	o := &planOptions{g: g, streams: s, command: command, load: manifest.NewLoadOptions(), apply: apply.DefaultOptions(),
		print: printer.DefaultOptions(), color: printer.ColorAuto, dryRun: dryRunNone}
	o.apply.Delete = command == cmdDelete
	return o
}

// addFlags binds only the flags the command honours, so --help never lists
// a flag that does nothing.
func (o *planOptions) addFlags(cmd *cobra.Command) {
	fs := cmd.Flags()
	o.load.AddFlags(fs)
	fs.BoolVar(&o.strict, "strict", false, "treat warnings about the manifests (unknown or readonly properties) as errors")
	fs.StringVar(&o.color, "color", o.color, "colour: auto|always|never (NO_COLOR is always respected)")
	fs.BoolVar(&o.apply.CollectionReads, "collection-reads", o.apply.CollectionReads, "read live state with one list per group or parent where that takes fewer requests")
	if o.command != cmdDelete {
		fs.BoolVar(&o.apply.Explain, "explain", false, "for every owned path judged equal, show the rule that made it equal")
		fs.BoolVar(&o.apply.Prune, "prune", false, "also delete resources recorded for this set that the manifests no longer declare")
	}
	if o.command != cmdDelete {
		fs.BoolVar(&o.apply.Adopt, "adopt", false, "take over resources that exist in Azure but not in state")
		fs.StringArrayVar(&o.replace, "replace", nil, "delete and create again this resource (TYPE/NAME or ARM ID; repeatable) although nothing forces it; naming it is the consent")
		fs.BoolVar(&o.apply.RefreshOnly, "refresh-only", false, "plan only drift (changes made in Azure outside this tool); apply records the live values as the new baseline and writes nothing to Azure")
	}
	if o.command == cmdDiff {
		fs.BoolVar(&o.driftOnly, "drift-only", false, "exit 1 only when something changed in Azure outside this tool (drift), not for manifest edits")
		return
	}
	fs.BoolVarP(&o.yes, "yes", "y", false, "do not ask for confirmation (required when not on a terminal)")
	fs.BoolVar(&o.apply.AllowCascade, "allow-cascade", false, "permit deleting a parent that holds resources no manifest or state manages (ARM deletes them with it)")
	if o.command == cmdApply {
		fs.BoolVar(&o.apply.AllowReplace, "allow-replace", false, "delete and recreate resources whose create-only properties changed")
		fs.BoolVar(&o.apply.AllowPruneAll, "allow-prune-all", false, "permit --prune without a terminal to delete every resource of the set")
		fs.StringVar(&o.dryRun, "dry-run", o.dryRun, "none|client (validate the manifests, send nothing)|server (plan against Azure, write nothing)")
		fs.Lookup("dry-run").NoOptDefVal = dryRunServer
	}
	if o.command == cmdDelete {
		fs.BoolVar(&o.apply.AllowDeleteUnmanaged, "allow-delete-unmanaged", false, "permit deleting resources that exist in Azure but were never applied by this tool")
	}
}

func (o *planOptions) printOpts() printer.Options {
	p := o.print
	p.Output = o.g.Output
	p.Color = o.color
	p.Explain = o.apply.Explain
	if o.command == cmdDelete {
		p.Operation = printer.OperationDelete
	}
	return p
}

// complete derives every option from flags and arguments, so run only runs.
func (o *planOptions) complete(cmd *cobra.Command, args []string) error {
	o.g.complete(cmd)
	switch o.command {
	case cmdApply:
		if len(args) == 1 {
			if err := o.completeSaved(cmd, args[0]); err != nil {
				return err
			}
		}
	case cmdDelete:
		o.refs = args
	}
	o.load.Strict = o.strict
	o.apply.Subscription = manifest.Subscription(o.g.Subscription)
	o.apply.Interactive = !o.yes && isTerminal(o.streams.In)
	return nil
}

// completeSaved takes the manifests, subscription, state, set and flags
// from a plan saved by `diff --out`: the reviewed plan is the approval, and
// it was computed against that state and set, so another one given on the
// command line is refused rather than silently planned against.
func (o *planOptions) completeSaved(cmd *cobra.Command, path string) error {
	if len(o.load.Filenames) > 0 || o.load.Kustomize != "" {
		return withCode(ExitValidation, errors.New("give either a saved plan or -f/-k, not both"))
	}
	sp, err := apply.ReadSaved(path)
	if err != nil {
		return withCode(ExitValidation, fmt.Errorf("reading the saved plan %s: %w", path, err))
	}
	o.savedPath, o.saved = path, sp
	o.load.Filenames, o.load.Recursive, o.load.Kustomize, o.load.Selector = sp.Source.Filenames, sp.Source.Recursive, sp.Source.Kustomize, sp.Source.Selector
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
	if o.apply.RefreshOnly {
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
	args := []string{"kubectl", "azure", "diff"}
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
	if src.Prune {
		args = append(args, "--prune")
	}
	if src.Adopt {
		args = append(args, "--adopt")
	}
	for _, id := range src.Replace {
		args = append(args, "--replace", id)
	}
	args = append(args, "--out", out)
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

// validate rejects bad input before anything is read or sent.
func (o *planOptions) validate() error {
	if err := o.printOpts().Validate(); err != nil {
		return withCode(ExitValidation, err)
	}
	switch o.dryRun {
	case dryRunNone, dryRunClient, dryRunServer:
	default:
		return withCode(ExitValidation, fmt.Errorf("unknown --dry-run %q: use none, client or server", o.dryRun))
	}
	// State records no labels, so a selector cannot tell "left out by -l"
	// from "no longer declared": pruning then would delete live resources.
	if o.apply.Prune && o.load.Selector != "" {
		return withCode(ExitValidation, errors.New("--prune cannot be combined with -l: resources the selector leaves out would look undeclared and be deleted; prune without a selector"))
	}
	if o.apply.RefreshOnly {
		switch {
		case o.apply.Prune:
			return withCode(ExitValidation, errors.New("--refresh-only cannot be combined with --prune: a refresh never deletes; run the prune separately"))
		case len(o.replace) > 0:
			return withCode(ExitValidation, errors.New("--refresh-only cannot be combined with --replace: a refresh writes nothing to Azure; run the replacement separately"))
		case o.saved != nil:
			return withCode(ExitValidation, errors.New("--refresh-only cannot apply a saved plan"))
		}
	}
	if len(o.load.Filenames) == 0 && o.load.Kustomize == "" && len(o.refs) == 0 {
		if o.command == cmdDelete {
			return withCode(ExitValidation, errors.New("nothing to delete: use -f FILE|DIR, -k DIR, or name resources as TYPE/NAME (see `kubectl azure state list`)"))
		}
		return withCode(ExitValidation, errors.New("no manifests given: use -f FILE|DIR|- or -k DIR"))
	}
	return nil
}

// loadSet reads the manifests; an empty set is invalid input, because
// applying or pruning "nothing" would look like "delete everything".
func (o *planOptions) loadSet(ctx context.Context) (*manifest.Set, error) {
	set, err := o.g.load(ctx, o.load, o.streams.ErrOut)
	if err != nil {
		return nil, err
	}
	if len(set.Resources) == 0 {
		return nil, withCode(ExitValidation, fmt.Errorf("no resources loaded from %s: check the paths, -R for subdirectories, and the -l selector", o.sources()))
	}
	o.findings = manifestProblems(set.Findings)
	if err := o.resolveReplace(set); err != nil {
		return nil, err
	}
	return set, nil
}

// resolveReplace turns the --replace refs into the IDs of the manifest
// resources they name, matched as delete TYPE/NAME matches. A ref that
// names nothing is invalid input: replacing nothing silently would hide a
// typo behind a plan that looks like the one asked for.
func (o *planOptions) resolveReplace(set *manifest.Set) error {
	o.apply.Replace = nil
	if len(o.replace) == 0 {
		return nil
	}
	cs := make([]candidate, len(set.Resources))
	for i, r := range set.Resources {
		cs[i] = candidate{id: r.ID, typ: r.Type, name: r.Name}
	}
	for _, ref := range o.replace {
		i, err := resolveRef(ref, cs)
		if err != nil {
			if near := suggestRef(ref, cs); len(near) > 0 {
				err = withCode(ExitValidation, fmt.Errorf("--replace %w; did you mean %s?", err, strings.Join(near, " or ")))
			} else {
				err = withCode(ExitValidation, fmt.Errorf("--replace %w", err))
			}
			return err
		}
		o.apply.Replace = append(o.apply.Replace, cs[i].id)
	}
	return nil
}

// suggestRef lists the TYPE/NAMEs of the candidates closest to ref, in the
// form ref was given (full type, short type, or manifest name).
func suggestRef(ref string, cs []candidate) []string {
	byForm := map[string]string{}
	var forms []string
	add := func(form, show string) {
		if _, ok := byForm[form]; !ok {
			byForm[form] = show
			forms = append(forms, form)
		}
	}
	r := strings.Trim(ref, "/")
	for _, c := range cs {
		disp := printer.DisplayName(c.id, c.typ)
		switch {
		case strings.HasPrefix(ref, "/"):
			add(c.id, disp)
		case strings.Count(r, "/") >= 2:
			add(disp, disp)
		case strings.Contains(r, "/"):
			short := disp
			if parts := strings.Split(disp, "/"); len(parts) >= 2 {
				short = strings.Join(parts[len(parts)-2:], "/")
			}
			add(short, disp)
		default:
			add(lastName(c.id), disp)
			if c.name != "" {
				add(c.name, disp)
			}
		}
	}
	var out []string
	for _, f := range schema.Suggest(r, forms) {
		out = append(out, byForm[f])
	}
	return out
}

// lastName is the name of the resource an ID names.
func lastName(id string) string {
	return id[strings.LastIndex(strings.TrimRight(id, "/"), "/")+1:]
}

func (o *planOptions) sources() string {
	var parts []string
	if o.load.Kustomize != "" {
		parts = append(parts, "-k "+o.load.Kustomize)
	}
	parts = append(parts, o.load.Filenames...)
	if o.load.Selector != "" {
		parts = append(parts, "(selector "+o.load.Selector+")")
	}
	return strings.Join(parts, ", ")
}

// annotate names what the plan targets: subscriptions, state and set.
func (o *planOptions) annotate(p *plan.Plan) {
	if p.Subscription == "" {
		p.Subscription = o.apply.Subscription
	}
	if len(p.Subscriptions) == 0 {
		p.Subscriptions = planSubscriptions(p)
	}
	if p.State == "" {
		p.State = o.g.State
	}
	if p.Set == "" {
		p.Set = o.g.setName()
	}
	if len(p.Problems) == 0 {
		p.Problems = o.findings
	}
}

// machine reports whether stdout carries a machine-readable document, so
// progress and prompts must go to stderr.
func (o *planOptions) machine() bool {
	switch o.g.Output {
	case printer.OutputJSON, printer.OutputYAML, printer.OutputName:
		return true
	}
	return false
}

// session is one command's open connections.
type session struct {
	eng   *apply.Engine
	store state.Store
	arm   *arm.Client
	reg   *schema.Registry
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
	return &session{store: st, arm: c, reg: reg, eng: o.g.engine(c, st, reg, o.apply, o.streams.ErrOut)}, nil
}

func newDiffCommand(g *GlobalOptions, s genericiooptions.IOStreams) *cobra.Command {
	o := newPlanOptions(g, s, cmdDiff)
	cmd := &cobra.Command{
		Use:   "diff -f FILE|DIR [-o json|yaml|markdown|name] [--out plan.json]",
		Short: "Show what apply would change, and why (exit 0: nothing, 1: changes)",
		Example: `  kubectl azure diff -f infra/
  kubectl azure diff -k overlays/prod -o markdown >> "$GITHUB_STEP_SUMMARY"
  kubectl azure diff -f infra/ --out plan.json && kubectl azure apply plan.json --yes
  kubectl azure diff -f infra/ --replace storageAccounts/stdemo001   # plan its delete and create
  kubectl azure diff -f infra/ --refresh-only       # only what changed in Azure outside this tool`,
		Args:        cobra.NoArgs,
		Annotations: map[string]string{outputsAnnotation: planOutputs},
		RunE:        o.runE(o.runDiff),
	}
	o.addFlags(cmd)
	cmd.Flags().StringVar(&o.out, "out", "", "also save the plan to this file, for 'kubectl azure apply FILE'")
	return cmd
}

// runE is every plan command's cobra entry: Complete, Validate, then run.
func (o *planOptions) runE(run func(context.Context) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := o.complete(cmd, args); err != nil {
			return err
		}
		if err := o.validate(); err != nil {
			return err
		}
		return run(cmd.Context())
	}
}

// plan loads, opens and plans: the read-only part every command shares.
func (o *planOptions) plan(ctx context.Context) (*session, *apply.Prepared, error) {
	set, err := o.loadSet(ctx)
	if err != nil {
		return nil, nil, err
	}
	sess, err := o.open(ctx)
	if err != nil {
		return nil, nil, err
	}
	prep, err := sess.eng.Plan(ctx, set)
	if err != nil {
		sess.store.Close()
		return nil, nil, err
	}
	o.annotate(prep.Plan)
	if err := o.noteUndeclared(ctx, sess.store, prep.Plan); err != nil {
		sess.store.Close()
		return nil, nil, err
	}
	return sess, prep, nil
}

// noteUndeclared names, in a plan that does not prune, the resources this
// set recorded that the manifests no longer declare: dropping a document
// must not look like "no changes" when --prune would delete something.
// With -l the selection leaves resources out on purpose, and delete names
// what it deletes, so neither gets the note.
func (o *planOptions) noteUndeclared(ctx context.Context, st state.Store, p *plan.Plan) error {
	if o.apply.Prune || o.command == cmdDelete || o.load.Selector != "" {
		return nil
	}
	recs, err := state.Heads(ctx, st)
	if err != nil {
		return withCode(ExitError, fmt.Errorf("reading state: %w", err))
	}
	declared := make(map[string]bool, len(p.Resources))
	for _, r := range p.Resources {
		declared[armid.Key(r.ID)] = true
	}
	set := o.g.setName()
	for _, r := range recs {
		if r.InScope(o.apply.Subscription, set) && !declared[armid.Key(r.ID)] {
			p.Undeclared = append(p.Undeclared, r.ID)
		}
	}
	sort.Strings(p.Undeclared)
	return nil
}

func (o *planOptions) runDiff(ctx context.Context) error {
	sess, prep, err := o.plan(ctx)
	if err != nil {
		return err
	}
	defer sess.store.Close()
	// Only the plan is used from here. What was read to make it is garbage
	// now but the heap's goal still counts it: collecting it once lets the
	// printer reuse that memory instead of growing the heap (a 10,000-
	// resource plan printed as JSON peaked 40 MB higher without this).
	p := prep.Plan
	warnInterrupted(ctx, sess.store, o.streams.ErrOut)
	runtime.GC()
	o.refreshHeader()
	if ext := os.Getenv(EnvExternalDiff); ext != "" && o.g.Output == printer.OutputText {
		if err := externalDiff(ctx, ext, p, o.streams); err != nil {
			return err
		}
	} else if err := printer.Print(o.streams.Out, p, o.printOpts()); err != nil {
		return err
	}
	if o.out != "" {
		src := apply.Source{Filenames: o.load.Filenames, Recursive: o.load.Recursive, Kustomize: o.load.Kustomize,
			Selector: o.load.Selector, Subscription: o.g.Subscription, State: o.g.State, Prune: o.apply.Prune, Adopt: o.apply.Adopt,
			Replace: o.apply.Replace}
		if err := apply.WriteSaved(o.out, p, src); err != nil {
			return fmt.Errorf("saving the plan: %w", err)
		}
	}
	if o.driftOnly {
		if hasDrift(p) {
			return errChanges
		}
		return nil
	}
	if p.HasChanges() {
		return errChanges
	}
	return nil
}

// hasDrift reports whether any planned change undoes a change made in Azure
// outside this tool.
func hasDrift(p *plan.Plan) bool {
	for _, r := range p.Resources {
		for _, c := range r.Changes {
			if c.IsDrift() {
				return true
			}
		}
	}
	return false
}

// warnInterrupted tells the user when a crashed run left writes unrecorded;
// diff is read-only, so the repair is left to the next apply.
func warnInterrupted(ctx context.Context, st state.Store, w io.Writer) {
	if in, err := st.Intents(ctx); err == nil && len(in) > 0 {
		fmt.Fprintf(w, "warning: an earlier run was interrupted with %d write(s) unrecorded; the next apply repairs them first\n", len(in))
	}
}

func newApplyCommand(g *GlobalOptions, s genericiooptions.IOStreams) *cobra.Command {
	o := newPlanOptions(g, s, cmdApply)
	var w *watchOptions // --watch: the reconcile loop (watch.go)
	cmd := &cobra.Command{
		Use:   "apply -f FILE|DIR | apply PLAN.json",
		Short: "Plan, confirm, write, wait and record",
		Example: `  kubectl azure apply -f infra/
  kubectl azure apply -f infra/ --yes --prune
  kubectl azure apply -f infra/ --dry-run=server   # the plan, nothing written
  kubectl azure apply plan.json --yes              # exactly the plan saved by diff --out
  kubectl azure apply -f infra/ --replace Microsoft.Storage/storageAccounts/stdemo001
  kubectl azure apply -f infra/ --refresh-only --yes   # accept drift as the new baseline, write nothing`,
		Args:        cobra.MaximumNArgs(1),
		Annotations: map[string]string{outputsAnnotation: planOutputs},
		RunE: o.runE(func(ctx context.Context) error {
			if w.watch {
				// The loop applies again and again: a forced replacement
				// would recreate the resource every round, and a refresh
				// would accept drift the loop is there to correct.
				if len(o.replace) > 0 || o.apply.RefreshOnly {
					return withCode(ExitValidation, errors.New("--watch cannot be combined with --replace or --refresh-only: run those once with a plain apply"))
				}
				return w.runApply(ctx, o)
			}
			switch o.dryRun {
			case dryRunClient:
				return o.runClientDryRun(ctx)
			case dryRunServer:
				return o.runServerDryRun(ctx)
			}
			return o.runApply(ctx)
		}),
	}
	o.addFlags(cmd)
	w = addWatchFlags(cmd)
	return cmd
}

func newDeleteCommand(g *GlobalOptions, s genericiooptions.IOStreams) *cobra.Command {
	o := newPlanOptions(g, s, cmdDelete)
	cmd := &cobra.Command{
		Use:   "delete -f FILE|DIR | delete TYPE/NAME...",
		Short: "Delete what the manifests (or the named recorded resources) describe, children first",
		Example: `  kubectl azure delete -f infra/ --yes
  kubectl azure delete Microsoft.Storage/storageAccounts/stdemo001 --yes
  kubectl azure delete -f infra/ storageAccounts/stdemo001   # only this one of the manifests`,
		Annotations: map[string]string{outputsAnnotation: planOutputs},
		RunE:        o.runE(o.runApply),
	}
	o.addFlags(cmd)
	return cmd
}

// runClientDryRun validates the manifests and lists what apply would
// consider, without a single request.
func (o *planOptions) runClientDryRun(ctx context.Context) error {
	set, err := o.loadSet(ctx)
	if err != nil {
		return err
	}
	list := make([]printer.ManifestResource, 0, len(set.Resources))
	for _, r := range set.Resources {
		list = append(list, printer.ManifestResource{ID: r.ID, Type: r.Type, APIVersion: r.APIVersion, Name: r.Name, Origin: r.Origin.String()})
	}
	return printer.PrintManifests(o.streams.Out, list, o.printOpts())
}

// runServerDryRun plans against Azure and writes nothing; unlike diff it
// exits 0 whatever the plan holds, as kubectl apply --dry-run=server does.
func (o *planOptions) runServerDryRun(ctx context.Context) error {
	sess, prep, err := o.plan(ctx)
	if err != nil {
		return err
	}
	defer sess.store.Close()
	o.refreshHeader()
	return printer.Print(o.streams.Out, prep.Plan, o.printOpts())
}

// RefreshOnlyHeader heads a --refresh-only plan.
const RefreshOnlyHeader = "refresh only: nothing will be written to Azure; drift below is recorded as the new baseline by apply --refresh-only"

// refreshHeader says, above a --refresh-only plan, that it writes nothing
// to Azure; on stderr when stdout carries a machine-readable document.
func (o *planOptions) refreshHeader() {
	if !o.apply.RefreshOnly {
		return
	}
	w := o.streams.Out
	if o.machine() {
		w = o.streams.ErrOut
	}
	fmt.Fprintln(w, RefreshOnlyHeader)
}

func (o *planOptions) runApply(ctx context.Context) error {
	set, sess, err := o.deleteOrLoad(ctx)
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
	o.annotate(prep.Plan)
	if err := o.noteUndeclared(ctx, sess.store, prep.Plan); err != nil {
		return err
	}
	if o.saved != nil {
		if diffs := apply.Matches(&o.saved.Plan, prep.Plan); len(diffs) > 0 {
			return withCode(ExitError, savedMismatch(o.savedPath, o.saved, diffs))
		}
	}
	popts := o.printOpts()
	o.refreshHeader()
	// In machine formats the plan is part of the one result document.
	if !o.machine() {
		if err := printer.Print(o.streams.Out, prep.Plan, popts); err != nil {
			return err
		}
	}
	if err := sess.eng.Check(prep); err != nil {
		return withCode(ExitError, err)
	}
	// A change of prevent-destroy alone writes nothing to Azure but must be
	// recorded (or lifted) in state, so it still executes.
	stateOnly := prep.StateOnly()
	writes := needsExecute(prep.Plan, o.apply.Adopt)
	if !writes && len(stateOnly) == 0 {
		return o.printResult(&plan.Result{FormatVersion: plan.FormatVersion, Plan: prep.Plan, Results: []plan.ResourceResult{}})
	}
	noteOut := o.streams.Out
	if o.machine() {
		noteOut = o.streams.ErrOut
	}
	for _, line := range stateOnly {
		fmt.Fprintln(noteOut, printer.CleanText(line))
	}
	if writes && !o.yes {
		if err := o.confirm(prep.Plan); err != nil {
			return err
		}
	}
	progOut := o.streams.Out
	if o.machine() || o.g.Output == printer.OutputMarkdown {
		progOut = o.streams.ErrOut
	}
	prog := printer.NewProgress(progOut, popts)
	sess.eng.Progress = progressAdapter{prog}
	if n, ok := prog.(printer.Notifier); ok {
		o.g.waits.attach(n)
		defer o.g.waits.attach(nil)
	}
	// The first Ctrl-C cancels ctx: nothing new starts, but writes already
	// sent finish and are recorded (apply.DefaultDrainTimeout at most); a
	// second Ctrl-C ends the process (interruptContext).
	res, execErr := sess.eng.ExecuteUntil(context.WithoutCancel(ctx), ctx, prep)
	if res == nil {
		_ = prog.Close()
		return withCode(ExitError, execErr)
	}
	_ = prog.Finish(res)
	if err := o.printResult(res); err != nil {
		return err
	}
	o.annotateFailures(res)
	if execErr != nil {
		// The message's counts come from the same result as the summary
		// line and the document, so all three agree.
		return withCode(ExitError, execErr)
	}
	return nil
}

// progressAdapter feeds the engine's events to the printer's progress view.
type progressAdapter struct{ p printer.Progress }

// The row is named TYPE/NAME from the ID, as in the plan: manifest names
// may repeat across types.
func (a progressAdapter) Event(id, _ string, st apply.Status, detail string) {
	a.p.Event(id, "", st, detail)
}

// deleteOrLoad returns the resources to plan: the manifests (narrowed to
// delete's TYPE/NAME arguments), or the named state records when delete
// is given names only.
func (o *planOptions) deleteOrLoad(ctx context.Context) (*manifest.Set, *session, error) {
	if len(o.load.Filenames) == 0 && o.load.Kustomize == "" {
		sess, err := o.open(ctx)
		if err != nil {
			return nil, nil, err
		}
		set, err := recordedSet(ctx, sess.store, o.refs)
		if err != nil {
			sess.store.Close()
			return nil, nil, err
		}
		return set, sess, nil
	}
	set, err := o.loadSet(ctx)
	if err != nil {
		return nil, nil, err
	}
	if len(o.refs) > 0 {
		if set, err = selectRefs(set, o.refs); err != nil {
			return nil, nil, err
		}
	}
	sess, err := o.open(ctx)
	if err != nil {
		return nil, nil, err
	}
	return set, sess, nil
}

// confirm asks at a terminal; without one, --yes is required (invalid input).
func (o *planOptions) confirm(p *plan.Plan) error {
	verb := "apply these changes"
	if o.apply.RefreshOnly {
		verb = "record this drift as the new baseline (nothing is written to Azure)"
	}
	if o.apply.Delete {
		verb = "delete these resources"
	}
	prompt := o.streams.Out
	if o.machine() {
		// The plan is not on stdout yet: show it where the prompt is.
		prompt = o.streams.ErrOut
		if isTerminal(o.streams.In) {
			text := o.printOpts()
			text.Output = printer.OutputText
			if err := printer.Print(prompt, p, text); err != nil {
				return err
			}
		}
	}
	ok, err := confirm(o.streams.In, prompt, verb)
	if err != nil {
		return err
	}
	if !ok {
		fmt.Fprintln(prompt, "Cancelled: nothing was written.")
		return withCode(ExitError, errors.New(""))
	}
	return nil
}

// printResult ends apply: the result document in machine formats (the only
// thing on stdout); in text, the notes Azure left (values it kept), since
// progress already showed the rest.
func (o *planOptions) printResult(res *plan.Result) error {
	return printer.PrintResult(o.streams.Out, *res, o.printOpts())
}

// annotateFailures marks failed resources on the pull request under GitHub
// Actions, at the manifest that declared them.
func (o *planOptions) annotateFailures(res *plan.Result) {
	if o.g.annotations() != printer.AnnotationsGitHub || res.Plan == nil {
		return
	}
	origins := map[string]string{}
	for _, r := range res.Plan.Resources {
		origins[armid.Key(r.ID)] = r.Origin
	}
	var ps []printer.Problem
	for _, r := range res.Results {
		if r.Status != plan.StatusFailed {
			continue
		}
		file, doc := printer.SplitOrigin(origins[armid.Key(r.ID)])
		ps = append(ps, printer.Problem{File: file, Document: doc, Message: printer.DisplayName(r.ID, "") + ": " + r.Error})
	}
	_ = printer.Annotate(o.streams.ErrOut, ps)
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

// EnvExternalDiff names the program diff shows the plan with, as kubectl
// diff does: "diff -u -N", "meld", "dyff between".
const EnvExternalDiff = "KUBECTL_EXTERNAL_DIFF"

// externalDiff writes the plan as two directories (LIVE and MERGED, one
// YAML file of changed paths per resource) and runs the user's program on
// them. Its exit code 1 means "differences", as diff's does; anything else
// that is not 0 is an error. diff's own exit code still comes from the plan.
func externalDiff(ctx context.Context, program string, p *plan.Plan, streams genericiooptions.IOStreams) error {
	argv := strings.Fields(program)
	dir, err := os.MkdirTemp("", "kubectl-azure-diff-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	live, merged := filepath.Join(dir, "LIVE"), filepath.Join(dir, "MERGED")
	for _, d := range []string{live, merged} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return err
		}
	}
	if err := printer.WriteDiffTrees(live, merged, p); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, argv[0], append(argv[1:], live, merged)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = streams.In, streams.Out, streams.ErrOut
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 {
		return nil
	}
	if err != nil {
		return withCode(ExitError, fmt.Errorf("%s=%q: %w", EnvExternalDiff, program, err))
	}
	return nil
}
