package cli

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

func newExplainCommand(g *GlobalOptions, s genericiooptions.IOStreams) *cobra.Command {
	var recursive bool
	cmd := &cobra.Command{
		Use:   "explain [PROVIDER | TYPE[@VERSION][.path]]",
		Short: "Describe a resource type's fields: types, readonly, create-only, secret, defaults, enums",
		Example: `  kubectl azure explain                      # the providers the schema index knows
  kubectl azure explain Microsoft.Storage    # its types and api-versions
  kubectl azure explain Microsoft.Storage/storageAccounts
  kubectl azure explain Microsoft.Storage/storageAccounts@2023-05-01.properties.networkAcls
  kubectl azure explain Microsoft.Network/virtualNetworks.properties.subnets -o json`,
		Args:        cobra.MaximumNArgs(1),
		Annotations: map[string]string{outputsAnnotation: "text,json"},
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := g.schemas()
			if err != nil {
				return err
			}
			out := ""
			if g.Output == "json" {
				out = "json"
			}
			query := ""
			if len(args) == 1 {
				query = args[0]
			}
			if err := schema.Explain(s.Out, reg, query, schema.ExplainOptions{Output: out, Recursive: recursive}); err != nil {
				// An unknown type, provider or field is a wrong argument.
				return withCode(ExitValidation, err)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&recursive, "recursive", false, "list every field below the path, not only direct members")
	return cmd
}
