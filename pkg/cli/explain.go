package cli

import (
	"context"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/printer"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// explainOptions are `kubectl azure explain`'s.
type explainOptions struct {
	g          *GlobalOptions
	streams    genericiooptions.IOStreams
	printFlags *printer.PrintFlags
	recursive  bool
	query      string
}

func newExplainCommand(g *GlobalOptions, s genericiooptions.IOStreams) *cobra.Command {
	o := &explainOptions{g: g, streams: s}
	cmd := &cobra.Command{
		Use:   "explain [PROVIDER | TYPE[@VERSION][.path]]",
		Short: "Describe a resource type's fields: types, readonly, create-only, secret, defaults, enums",
		Example: `  kubectl azure explain                      # the providers the schema index knows
  kubectl azure explain Microsoft.Storage    # its types and api-versions
  kubectl azure explain Microsoft.Storage/storageAccounts
  kubectl azure explain Microsoft.Storage/storageAccounts@2023-05-01.properties.networkAcls
  kubectl azure explain Microsoft.Network/virtualNetworks.properties.subnets -o json`,
		Args: cobra.MaximumNArgs(1),
		RunE: runE(o),
	}
	o.printFlags = g.printFlags(cmd, printer.OutputText, printer.OutputJSON)
	cmd.Flags().BoolVar(&o.recursive, "recursive", false, "list every field below the path, not only direct members")
	return cmd
}

func (o *explainOptions) Complete(_ *cobra.Command, args []string) error {
	if len(args) == 1 {
		o.query = args[0]
	}
	return nil
}

// Validate has nothing to add: the root checked -o, and the schema
// package judges the query.
func (o *explainOptions) Validate() error { return nil }

// Run renders with the schema package, which speaks text ("") and json.
func (o *explainOptions) Run(context.Context) error {
	reg, err := o.g.schemas()
	if err != nil {
		return err
	}
	out := ""
	if o.printFlags.Format() == printer.OutputJSON {
		out = printer.OutputJSON
	}
	if err := schema.Explain(o.streams.Out, reg, o.query, schema.ExplainOptions{Output: out, Recursive: o.recursive}); err != nil {
		// An unknown type, provider or field is a wrong argument.
		return withCode(ExitValidation, err)
	}
	return nil
}
