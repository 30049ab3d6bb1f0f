package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/printer"
)

// deleteOptions are `kubectl azure delete`'s.
type deleteOptions struct {
	planCore
	// refs are the TYPE/NAME arguments.
	refs []string
	// dryRun is --dry-run: client lists what would be considered, server
	// plans the deletion against Azure; neither writes.
	dryRun string
}

func newDeleteCommand(g *GlobalOptions, s genericiooptions.IOStreams) *cobra.Command {
	o := &deleteOptions{dryRun: dryRunNone}
	cmd := &cobra.Command{
		Use:   "delete -f FILE|DIR | delete TYPE/NAME...",
		Short: "Delete what the manifests (or the named recorded resources) describe, children first",
		Example: `  kubectl azure delete -f infra/ --yes
  kubectl azure delete Microsoft.Storage/storageAccounts/stdemo001 --yes
  kubectl azure delete -f infra/ storageAccounts/stdemo001   # only this one of the manifests
  kubectl azure delete storageAccounts/stdemo001 --dry-run   # the plan; exit 1 when something would be deleted`,
		RunE: runE(o),
	}
	o.planCore = newPlanCore(g, s, cmd)
	o.apply.Mode = plan.ModeDelete
	fs := cmd.Flags()
	o.addFlags(fs)
	o.addWriteFlags(fs)
	fs.StringVar(&o.dryRun, "dry-run", o.dryRun, "none|client (list what would be considered, send nothing)|server (plan the deletion against Azure, delete nothing; exit 1 when something would be deleted, as diff)")
	fs.Lookup("dry-run").NoOptDefVal = dryRunServer
	fs.BoolVar(&o.apply.AllowDeleteUnmanaged, "allow-delete-unmanaged", false, "permit deleting resources that exist in Azure but were never applied by this tool")
	return cmd
}

func (o *deleteOptions) Complete(cmd *cobra.Command, args []string) error {
	o.refs = args
	return o.complete(cmd)
}

func (o *deleteOptions) Validate() error {
	if err := validateDryRun(o.dryRun); err != nil {
		return err
	}
	if err := o.validate(); err != nil {
		return err
	}
	if !o.manifests.given() && len(o.refs) == 0 {
		return withCode(ExitValidation, errors.New("nothing to delete: use -f FILE|DIR, -k DIR, or name resources as TYPE/NAME (see `kubectl azure state list`)"))
	}
	return nil
}

func (o *deleteOptions) Run(ctx context.Context) error {
	set, sess, err := o.resources(ctx)
	if err != nil {
		return err
	}
	switch o.dryRun {
	case dryRunClient:
		sess.store.Close()
		return o.printManifests(set)
	case dryRunServer:
		return o.planOnly(ctx, set, sess)
	}
	return o.execute(ctx, set, sess, nil, "")
}

// planOnly is delete --dry-run=server: the deletion plan, read-only and
// without the state lock, as diff; exit 1 when it would delete something.
func (o *deleteOptions) planOnly(ctx context.Context, set *manifest.Set, sess *session) error {
	defer sess.store.Close()
	prep, err := o.prepare(ctx, sess, set)
	if err != nil {
		return err
	}
	warnInterrupted(ctx, sess.store, o.streams.ErrOut)
	if err := o.printer.PrintPlan(o.streams.Out, prep.Plan); err != nil {
		return err
	}
	// A dry run that looks clean must not hide what the real delete
	// refuses (a protected resource inside a group, a cascade victim).
	if err := sess.eng.Check(prep); err != nil {
		fmt.Fprintln(o.streams.ErrOut, printer.CleanText(o.g.runSecrets(), "warning: the delete would be refused: "+err.Error()))
	}
	if prep.Plan.HasChanges() {
		return errChanges
	}
	return nil
}

// resources returns the resources to plan: the manifests (narrowed to
// delete's TYPE/NAME arguments), or the named state records when delete
// is given names only.
func (o *deleteOptions) resources(ctx context.Context) (*manifest.Set, *session, error) {
	if !o.manifests.given() {
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
