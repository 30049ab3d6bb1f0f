package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
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

// planFormats are the -o values of diff, apply and delete.
var planFormats = []string{printer.OutputText, printer.OutputJSON, printer.OutputYAML, printer.OutputMarkdown, printer.OutputName}

// planCore is what diff, apply and delete share: the manifest source, the
// engine's options and the output. Each command embeds it in its own
// options type (diffOptions, applyOptions, deleteOptions), which adds its
// flags and its Complete, Validate and Run.
type planCore struct {
	g          *GlobalOptions
	streams    genericiooptions.IOStreams
	manifests  manifestFlags
	apply      apply.Options
	printFlags *printer.PrintFlags
	color      string
	strict     bool
	yes        bool
	// replace are the --replace refs (TYPE/NAME or ARM ID), resolved to
	// IDs in apply.Replace once the manifests are loaded.
	replace []string

	// Filled by complete.
	printer *printer.Printer
	// findings are the manifests' warnings, carried into the plan.
	findings []printer.Problem
	// refreshOnly is --refresh-only; complete makes it the plan's Mode.
	refreshOnly bool
	// loaded is the set loadSet read: the ARM client's logs hide what
	// its manifests fill from valueFrom.
	loaded *manifest.Set
}

func newPlanCore(g *GlobalOptions, s genericiooptions.IOStreams, cmd *cobra.Command) planCore {
	return planCore{g: g, streams: s, manifests: newManifestFlags(), apply: apply.DefaultOptions(),
		printFlags: g.printFlags(cmd, planFormats...), color: printer.ColorAuto}
}

// addFlags binds the flags every plan command honours.
func (o *planCore) addFlags(fs *pflag.FlagSet) {
	o.manifests.addFlags(fs)
	fs.BoolVar(&o.strict, "strict", false, "treat warnings about the manifests (unknown or readonly properties) as errors")
	fs.StringVar(&o.color, "color", o.color, "colour: auto|always|never (NO_COLOR is always respected)")
	addReadFlags(fs, &o.apply)
}

// addChangeFlags binds the flags of the commands that plan changes to the
// manifests' resources (diff and apply; delete only deletes).
func (o *planCore) addChangeFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&o.apply.Explain, "explain", false, "for every owned path judged equal, show the rule that made it equal")
	fs.BoolVar(&o.apply.Prune, "prune", false, "also delete resources recorded for this set that the manifests no longer declare")
	fs.BoolVar(&o.apply.Adopt, "adopt", false, "take over resources that exist in Azure but not in state")
	fs.StringArrayVar(&o.replace, "replace", nil, "delete and create again this resource (TYPE/NAME or ARM ID; repeatable) although nothing forces it; naming it is the consent")
	fs.BoolVar(&o.refreshOnly, "refresh-only", false, "plan only drift (changes made in Azure outside this tool); apply records the live values as the new baseline and writes nothing to Azure")
}

// addWriteFlags binds the flags of the commands that write (apply and
// delete).
func (o *planCore) addWriteFlags(fs *pflag.FlagSet) {
	fs.BoolVarP(&o.yes, "yes", "y", false, "do not ask for confirmation (required when not on a terminal)")
	fs.BoolVar(&o.apply.AllowCascade, "allow-cascade", false, "permit deleting a parent that holds resources no manifest or state manages (ARM deletes them with it)")
}

// printOptions are the rendering choices besides the format.
func (o *planCore) printOptions() printer.Options {
	p := printer.DefaultOptions()
	p.Color = o.color
	p.Explain = o.apply.Explain
	p.Secrets = o.g.runSecrets()
	if o.apply.Mode == plan.ModeDelete {
		p.Operation = printer.OperationDelete
	}
	return p
}

// complete derives what every plan command shares from flags: the printer,
// the loader's strictness, the subscription and whether to ask.
func (o *planCore) complete(cmd *cobra.Command) error {
	o.g.complete(cmd)
	if o.refreshOnly {
		o.apply.Mode = plan.ModeRefreshOnly
	}
	p, err := o.printFlags.ToPrinter(o.printOptions())
	if err != nil {
		return withCode(ExitValidation, err)
	}
	o.printer = p
	o.manifests.load.Strict = o.strict
	o.apply.Subscription = manifest.Subscription(o.g.Subscription)
	o.apply.Interactive = !o.yes && isTerminal(o.streams.In)
	return nil
}

// validate rejects flag combinations no plan command can honour, before
// anything is read or sent.
func (o *planCore) validate() error {
	// State records no labels, so a selector cannot tell "left out by -l"
	// from "no longer declared": pruning then would delete live resources.
	if o.apply.Prune && o.manifests.load.Selector != "" {
		return withCode(ExitValidation, errors.New("--prune cannot be combined with -l: resources the selector leaves out would look undeclared and be deleted; prune without a selector"))
	}
	if o.apply.Mode == plan.ModeRefreshOnly {
		switch {
		case o.apply.Prune:
			return withCode(ExitValidation, errors.New("--refresh-only cannot be combined with --prune: a refresh never deletes; run the prune separately"))
		case len(o.replace) > 0:
			return withCode(ExitValidation, errors.New("--refresh-only cannot be combined with --replace: a refresh writes nothing to Azure; run the replacement separately"))
		}
	}
	return nil
}

// loadSet reads the manifests; an empty set is invalid input, because
// applying or pruning "nothing" would look like "delete everything".
func (o *planCore) loadSet(ctx context.Context) (*manifest.Set, error) {
	set, err := o.g.load(ctx, o.manifests.load, o.streams.ErrOut)
	if err != nil {
		return nil, err
	}
	if len(set.Resources) == 0 {
		return nil, withCode(ExitValidation, fmt.Errorf("no resources loaded from %s: check the paths, -R for subdirectories, and the -l selector", o.manifests.sources()))
	}
	o.findings = manifestProblems(set.Findings)
	if err := o.resolveReplace(set); err != nil {
		return nil, err
	}
	o.loaded = set
	return set, nil
}

// resolveReplace turns the --replace refs into the IDs of the manifest
// resources they name, matched as delete TYPE/NAME matches. A ref that
// names nothing is invalid input: replacing nothing silently would hide a
// typo behind a plan that looks like the one asked for.
func (o *planCore) resolveReplace(set *manifest.Set) error {
	o.apply.Replace = nil
	if len(o.replace) == 0 {
		return nil
	}
	cs := make([]candidate, len(set.Resources))
	for i, r := range set.Resources {
		cs[i] = candidate{id: r.ID, typ: r.Type, name: r.Symbol}
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

// annotate names what the plan targets: subscriptions, state and set.
func (o *planCore) annotate(p *plan.Plan) {
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
	// Machine readers tell a refresh-only plan from a plan of writes by
	// this field; people by the header (refreshHeader).
	p.RefreshOnly = o.apply.Mode == plan.ModeRefreshOnly
}

// session is one command's open connections.
type session struct {
	eng   *apply.Engine
	store state.Store
	arm   *arm.Client
	reg   *schema.Registry
}

func (o *planCore) open(ctx context.Context) (*session, error) {
	reg, err := o.g.schemas()
	if err != nil {
		return nil, err
	}
	c, err := o.g.armClientHiding(o.streams.ErrOut, runSecretPaths(reg, o.loaded))
	if err != nil {
		return nil, err
	}
	st, err := o.g.openState(ctx)
	if err != nil {
		return nil, err
	}
	eng, err := o.g.engine(c, st, reg, o.apply, o.streams.ErrOut)
	if err != nil {
		st.Close()
		return nil, err
	}
	return &session{store: st, arm: c, reg: reg, eng: eng}, nil
}

// plan loads, opens and plans: the read-only part every command shares.
func (o *planCore) plan(ctx context.Context) (*session, *apply.Prepared, error) {
	set, err := o.loadSet(ctx)
	if err != nil {
		return nil, nil, err
	}
	sess, err := o.open(ctx)
	if err != nil {
		return nil, nil, err
	}
	prep, err := o.prepare(ctx, sess, set)
	if err != nil {
		sess.store.Close()
		return nil, nil, err
	}
	return sess, prep, nil
}

// prepare plans set and names what the plan targets.
func (o *planCore) prepare(ctx context.Context, sess *session, set *manifest.Set) (*apply.Prepared, error) {
	prep, err := sess.eng.Plan(ctx, set)
	if err != nil {
		if isValidation(err) {
			// Found while planning (a reference that can never resolve):
			// bad input, and nothing was written.
			return nil, withCode(ExitValidation, err)
		}
		return nil, err
	}
	o.annotate(prep.Plan)
	o.noteUndeclared(prep)
	noteInterrupted(ctx, sess.store, prep.Plan)
	return prep, nil
}

// noteInterrupted gives the resources with a journaled, unconfirmed write
// their true reason. The engine plans them as found in Azure but not in
// state (adopt), which on its own would send the user to --adopt.
func noteInterrupted(ctx context.Context, st state.Store, p *plan.Plan) {
	adopts := false
	for _, r := range p.Resources {
		adopts = adopts || r.Action == plan.ActionAdopt
	}
	if !adopts {
		return
	}
	intents, err := st.Intents(ctx)
	if err != nil || len(intents) == 0 {
		return
	}
	pending := map[string]bool{}
	for _, in := range intents {
		pending[armid.Key(in.ID)] = true
	}
	for i := range p.Resources {
		if r := &p.Resources[i]; r.Action == plan.ActionAdopt && pending[armid.Key(r.ID)] {
			r.Because(plan.ReasonInterrupted)
		}
	}
	p.Summarize()
}

// noteUndeclared names, in a plan that does not prune, the resources this
// set recorded that the manifests no longer declare: dropping a document
// must not look like "no changes" when --prune would delete something.
// With -l the selection leaves resources out on purpose, and delete names
// what it deletes, so neither gets the note.
func (o *planCore) noteUndeclared(prep *apply.Prepared) {
	if o.apply.Prune || o.apply.Mode == plan.ModeDelete || o.manifests.load.Selector != "" {
		return
	}
	prep.Plan.Undeclared = prep.Undeclared()
}

// RefreshOnlyHeader heads a --refresh-only plan.
const RefreshOnlyHeader = "refresh only: nothing will be written to Azure; drift below is recorded as the new baseline by apply --refresh-only"

// refreshHeader says, above a --refresh-only plan, that it writes nothing
// to Azure; on stderr when stdout carries a machine-readable document.
func (o *planCore) refreshHeader() {
	if o.apply.Mode != plan.ModeRefreshOnly {
		return
	}
	fmt.Fprintln(o.notes(), RefreshOnlyHeader)
}

// execute is apply's and delete's run once the resources are known: under
// the state lock it repairs an interrupted run, plans, checks a saved plan
// still matches, confirms, writes and prints the result. saved is nil
// unless apply was given a plan saved by diff --out.
func (o *planCore) execute(ctx context.Context, set *manifest.Set, sess *session, saved *apply.SavedPlan, savedPath string) error {
	defer sess.store.Close()

	unlock, err := sess.store.Lock(ctx, "", o.g.LockTimeout)
	if err != nil {
		return withCode(ExitError, err)
	}
	defer unlock()
	if _, err := sess.eng.Repair(ctx); err != nil {
		return fmt.Errorf("repairing the records of an interrupted run (nothing new was written): %w", err)
	}
	prep, err := o.prepare(ctx, sess, set)
	if err != nil {
		return err
	}
	if saved != nil {
		if diffs := apply.Matches(&saved.Plan, prep.Plan); len(diffs) > 0 {
			return withCode(ExitError, savedMismatch(savedPath, saved, diffs))
		}
	}
	o.refreshHeader()
	// In machine formats the plan is part of the one result document.
	if !o.printer.Machine() {
		if err := o.printer.PrintPlan(o.streams.Out, prep.Plan); err != nil {
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
	for _, line := range stateOnly {
		fmt.Fprintln(o.notes(), printer.CleanText(o.g.runSecrets(), line))
	}
	if writes && !o.yes {
		if err := o.confirm(prep.Plan); err != nil {
			return err
		}
	}
	// Progress is never part of a document: markdown (a PR comment) gets
	// the result only.
	progOut := o.notes()
	if o.printer.Format() == printer.OutputMarkdown {
		progOut = o.streams.ErrOut
	}
	prog := printer.NewProgress(progOut, o.printer.Options())
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
		return withCode(executeExit(execErr), execErr)
	}
	return nil
}

// executeExit is the exit code of a run that failed while executing: bad
// input when a resource's input proved invalid only then (a name computed
// from a value known after a create), any other error otherwise.
func executeExit(err error) int {
	var ee *apply.ExecuteError
	if errors.As(err, &ee) && ee.BadInput() {
		return ExitValidation
	}
	return ExitError
}

// progressAdapter feeds the engine's events to the printer's progress view.
type progressAdapter struct{ p printer.Progress }

// The row is named TYPE/NAME from the ID, as in the plan: manifest names
// may repeat across types.
func (a progressAdapter) Event(id, _ string, st apply.Status, detail string) {
	a.p.Event(id, "", st, detail)
}

// confirm asks at a terminal; without one, --yes is required (invalid input).
func (o *planCore) confirm(p *plan.Plan) error {
	verb := "apply these changes"
	if o.apply.Mode == plan.ModeRefreshOnly {
		verb = "record this drift as the new baseline (nothing is written to Azure)"
	}
	if o.apply.Mode == plan.ModeDelete {
		verb = "delete these resources"
	}
	prompt := o.notes()
	if o.printer.Machine() && isTerminal(o.streams.In) {
		// The plan is not on stdout yet: show it where the prompt is.
		text := o.printer.Options()
		text.Output = printer.OutputText
		if err := printer.Print(prompt, p, text); err != nil {
			return err
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
func (o *planCore) printResult(res *plan.Result) error {
	return o.printer.PrintResult(o.streams.Out, *res)
}

// notes is where notes for people go: stdout, unless it carries a
// document for a program.
func (o *planCore) notes() io.Writer {
	if o.printer.Machine() {
		return o.streams.ErrOut
	}
	return o.streams.Out
}

// annotateFailures marks failed resources on the pull request under GitHub
// Actions, at the manifest that declared them.
func (o *planCore) annotateFailures(res *plan.Result) {
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
	_ = printer.Annotate(o.streams.ErrOut, o.g.runSecrets(), ps)
}
