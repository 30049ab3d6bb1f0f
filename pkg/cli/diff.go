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
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/apply"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/printer"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// diffOptions are `kubectl azure diff`'s.
type diffOptions struct {
	planCore
	out string // --out: also save the plan
	// driftOnly makes diff exit 1 only for changes made outside this tool.
	driftOnly bool
}

func newDiffCommand(g *GlobalOptions, s genericiooptions.IOStreams) *cobra.Command {
	o := &diffOptions{}
	cmd := &cobra.Command{
		Use:   "diff -f FILE|DIR [-o json|yaml|markdown|name] [--out plan.json]",
		Short: "Show what apply would change, and why (exit 0: nothing, 1: changes)",
		Example: `  kubectl azure diff -f infra/
  kubectl azure diff -k overlays/prod -o markdown >> "$GITHUB_STEP_SUMMARY"
  kubectl azure diff -f infra/ --out plan.json && kubectl azure apply plan.json --yes
  kubectl azure diff -f infra/ --replace storageAccounts/stdemo001   # plan its delete and create
  kubectl azure diff -f infra/ --refresh-only       # only what changed in Azure outside this tool`,
		Args: cobra.NoArgs,
		RunE: runE(o),
	}
	o.planCore = newPlanCore(g, s, cmd)
	fs := cmd.Flags()
	o.addFlags(fs)
	o.addChangeFlags(fs)
	fs.BoolVar(&o.driftOnly, "drift-only", false, "exit 1 only when something changed in Azure outside this tool (drift), not for manifest edits")
	fs.StringVar(&o.out, "out", "", "also save the plan to this file, for 'kubectl azure apply FILE'")
	return cmd
}

func (o *diffOptions) Complete(cmd *cobra.Command, _ []string) error {
	return o.complete(cmd)
}

func (o *diffOptions) Validate() error {
	if err := o.validate(); err != nil {
		return err
	}
	if !o.manifests.given() {
		return withCode(ExitValidation, errors.New("no manifests given: use -f FILE|DIR|- or -k DIR"))
	}
	return checkOutputPaths(o.g.State, o.manifests.load, outputPath{"--out", o.out})
}

func (o *diffOptions) Run(ctx context.Context) error {
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
	if ext := externalDiffProgram(); ext != "" && o.printer.Format() == printer.OutputText {
		if err := externalDiff(ctx, ext, p, o.streams, o.g.runSecrets()); err != nil {
			return err
		}
	} else if err := o.printer.PrintPlan(o.streams.Out, p); err != nil {
		return err
	}
	if o.out != "" {
		load := o.manifests.load
		src := apply.Source{Filenames: load.Filenames, Recursive: load.Recursive, Kustomize: load.Kustomize,
			Selector: load.Selector, Subscription: o.g.Subscription, State: o.g.State, Prune: o.apply.Prune, Adopt: o.apply.Adopt,
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

// EnvExternalDiff names the program diff shows the plan with, as kubectl
// diff does: "diff -u -N", "meld", "dyff between".
const EnvExternalDiff = "KUBECTL_EXTERNAL_DIFF"

// externalDiffProgram is KUBECTL_EXTERNAL_DIFF, with a blank value
// treated as unset (there is no program to run).
func externalDiffProgram() string {
	return strings.TrimSpace(os.Getenv(EnvExternalDiff))
}

// externalDiff writes the plan as two directories (LIVE and MERGED, one
// YAML file of changed paths per resource) and runs the user's program on
// them. Its exit code 1 means "differences", as diff's does; anything else
// that is not 0 is an error. diff's own exit code still comes from the plan.
func externalDiff(ctx context.Context, program string, p *plan.Plan, streams genericiooptions.IOStreams, sec *secret.Registry) error {
	argv := strings.Fields(program)
	dir, err := os.MkdirTemp("", "kubectl-azure-diff-")
	if err != nil {
		return err
	}
	// Removed on return, and by a second Ctrl-C's immediate exit too,
	// which runs no deferred call.
	remove := func() { _ = os.RemoveAll(dir) }
	defer onInterruptExit(remove)()
	defer remove()
	live, merged := filepath.Join(dir, "LIVE"), filepath.Join(dir, "MERGED")
	for _, d := range []string{live, merged} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return err
		}
	}
	if err := printer.WriteDiffTrees(live, merged, p, sec); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, argv[0], append(argv[1:], live, merged)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = streams.In, streams.Out, streams.ErrOut
	// A program stopped on Ctrl-C may leave children holding its output;
	// do not wait for them before cleaning up.
	cmd.WaitDelay = 2 * time.Second
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
