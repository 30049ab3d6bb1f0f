package cli

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

func newDiffCommand(g *GlobalOptions, s genericiooptions.IOStreams) *cobra.Command {
	return &cobra.Command{Use: "diff -f FILE", Short: "Show what apply would change, and why", RunE: func(*cobra.Command, []string) error { return notYet("diff", 6) }}
}
func newApplyCommand(g *GlobalOptions, s genericiooptions.IOStreams) *cobra.Command {
	return &cobra.Command{Use: "apply -f FILE | apply PLAN.json", Short: "Plan, confirm, write, wait, record", RunE: func(*cobra.Command, []string) error { return notYet("apply", 6) }}
}
func newDeleteCommand(g *GlobalOptions, s genericiooptions.IOStreams) *cobra.Command {
	return &cobra.Command{Use: "delete -f FILE", Short: "Delete what the manifests describe", RunE: func(*cobra.Command, []string) error { return notYet("delete", 6) }}
}
func newImportCommand(g *GlobalOptions, s genericiooptions.IOStreams) *cobra.Command {
	return &cobra.Command{Use: "import ID... | import --resource-group RG", Short: "Adopt existing resources and print their manifests", RunE: func(*cobra.Command, []string) error { return notYet("import", 11) }}
}
func newExplainCommand(g *GlobalOptions, s genericiooptions.IOStreams) *cobra.Command {
	return &cobra.Command{Use: "explain TYPE[@VERSION][.path]", Short: "Describe a resource type's fields", RunE: func(*cobra.Command, []string) error { return notYet("explain", 4) }}
}
func newStateCommand(g *GlobalOptions, s genericiooptions.IOStreams) *cobra.Command {
	return &cobra.Command{Use: "state list|show|rm|unlock", Short: "Inspect and repair recorded state", RunE: func(*cobra.Command, []string) error { return notYet("state", 7) }}
}
