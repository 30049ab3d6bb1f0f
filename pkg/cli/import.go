package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/importer"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/printer"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
	"github.com/kubectl-azure/kubectl-azure/plugins"
)

// importOptions are the import command's flags on top of the global ones.
type importOptions struct {
	g           *GlobalOptions
	streams     genericiooptions.IOStreams
	opts        importer.Options
	apiVersions []string
	outputDir   string
	noState     bool
}

// newImportCommand is owned by the import work (issue 11).
func newImportCommand(g *GlobalOptions, s genericiooptions.IOStreams) *cobra.Command {
	o := &importOptions{g: g, streams: s, opts: importer.DefaultOptions()}
	cmd := &cobra.Command{
		Use:   "import ID... | import --resource-group RG",
		Short: "Adopt existing resources and print their manifests",
		Long: `Read existing Azure resources and print the manifests a person would have
written for them: no readonly fields, no server defaults, no secrets, other
imported resources referenced with ${ref:TYPE/NAME} rather than by ID, and no
hard-coded subscription. The resources are recorded in state, so the first
diff of the printed manifests is empty.`,
		Example: `  kubectl azure import /subscriptions/$SUB/resourceGroups/rg-demo/providers/Microsoft.Storage/storageAccounts/stdemo001 > infra/storage.yaml
  kubectl azure import --resource-group rg-demo --children --output-dir infra/
  kubectl azure import ID --api-version Microsoft.Network/virtualNetworks=2023-09-01`,
		RunE: runE(o),
	}
	// Manifests are YAML: text is the same YAML. The root checks -o
	// against these before any command runs.
	g.printFlags(cmd, printer.OutputText, printer.OutputYAML)
	fs := cmd.Flags()
	fs.StringVarP(&o.opts.ResourceGroup, "resource-group", "g", "", "import every resource ARM lists in this resource group")
	fs.BoolVar(&o.opts.Children, "children", false, "also import child collections (subnets, NSG security rules, routes, SQL databases, ...) as resources of their own")
	fs.StringArrayVar(&o.apiVersions, "api-version", nil, "pin the api-version: VERSION for every resource, or TYPE=VERSION (repeatable); default: the newest stable version the schema knows, then older ones if ARM rejects it")
	fs.StringVar(&o.outputDir, "output-dir", "", "write one manifest file per resource into this directory instead of printing them")
	fs.BoolVar(&o.opts.KeepUnknown, "keep-unknown", false, "keep properties the schema does not declare for the type's api-version (default: leave them out, listed in a comment)")
	fs.BoolVar(&o.noState, "no-state", false, "only print the manifests; record nothing in state (the first diff then compares with Azure directly)")
	return cmd
}

// Complete derives the importer's options from flags and arguments.
func (o *importOptions) Complete(_ *cobra.Command, args []string) error {
	o.opts.IDs = args
	o.opts.Subscription = manifest.Subscription(o.g.Subscription)
	o.opts.Concurrency = o.g.Concurrency
	o.opts.Set = o.g.setName()
	o.opts.Record = !o.noState
	return nil
}

// Validate rejects bad input before any request.
func (o *importOptions) Validate() error {
	if len(o.opts.IDs) == 0 && o.opts.ResourceGroup == "" {
		return withCode(ExitValidation, errors.New("nothing to import: give one or more ARM IDs, or --resource-group RG"))
	}
	for _, v := range o.apiVersions {
		if err := o.opts.ParseAPIVersionFlag(v); err != nil {
			return withCode(ExitValidation, err)
		}
	}
	return nil
}

func (o *importOptions) Run(ctx context.Context) error {
	c, err := o.g.armClient(o.streams.ErrOut)
	if err != nil {
		return err
	}
	reg, err := o.g.schemas()
	if err != nil {
		return err
	}
	im := &importer.Importer{ARM: c, Schemas: reg, Plugins: plugins.For, Options: o.opts, Warn: o.streams.ErrOut}
	var st state.Store
	if o.opts.Record {
		// Opened before Read: a resource already recorded keeps secret
		// the values its record hashes, in the printed manifest too.
		if st, err = o.g.openState(ctx); err != nil {
			return err
		}
		defer st.Close()
		im.State = st
	}
	res, err := im.Read(ctx)
	if err != nil {
		return withCode(ExitError, err)
	}
	if o.outputDir != "" {
		if err := res.WriteDir(o.outputDir); err != nil {
			return withCode(ExitError, err)
		}
	} else if err := res.WriteYAML(o.streams.Out); err != nil {
		return withCode(ExitError, err)
	}
	if o.opts.Record {
		if err := im.Record(ctx, st, res, o.g.LockTimeout); err != nil {
			return withCode(ExitError, fmt.Errorf("the manifests were written but not recorded in state: %w; rerun the import once the problem is fixed", err))
		}
	}
	if o.outputDir != "" {
		fmt.Fprintf(o.streams.ErrOut, "Imported %d resource(s) into %s.\n", len(res.Resources), o.outputDir)
	}
	if res.Subscription != "" && o.opts.Subscription == "" {
		fmt.Fprintf(o.streams.ErrOut, "note: the manifests do not hard-code subscription %s: run diff and apply with --subscription %s (or AZURE_SUBSCRIPTION_ID)\n", res.Subscription, res.Subscription)
	}
	if len(res.Failed) > 0 {
		for _, f := range res.Failed {
			fmt.Fprintln(o.streams.ErrOut, "error:", f)
		}
		return withCode(ExitError, fmt.Errorf("%d of %d resource(s) could not be imported (the others were)", len(res.Failed), len(res.Failed)+len(res.Resources)))
	}
	return nil
}
