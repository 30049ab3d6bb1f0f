package plugins

import "github.com/kubectl-azure/kubectl-azure/pkg/diff"

// Automation Python packages: the content link is a download instruction,
// not returned. Evidence:
// azure-cli-extensions:src/automation/azext_automation/tests/latest/recordings/test_automation.yaml#19 and #21.
func init() {
	register("Microsoft.Automation/automationAccounts/python3Packages", &diff.Funcs{R: diff.Rules{WriteOnly: []string{
		"properties.contentLink", "properties.contentLink.uri", "properties.contentLink.contentHash",
		"properties.contentLink.contentHash.algorithm", "properties.contentLink.contentHash.value", "properties.contentLink.version",
	}}})
}
