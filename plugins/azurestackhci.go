package plugins

import (
	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// Azure Stack HCI Arc extensions: typeHandlerVersion and protected
// settings are install-time inputs. Evidence:
// azure-cli-extensions:src/stack-hci/azext_stack_hci/tests/latest/recordings/test_stack_hci_extension_crud.yaml#5.
func azureStackHCIPlugins(b *builder) {
	b.add("Microsoft.AzureStackHCI/clusters/arcSettings/extensions", &diff.Funcs{R: diff.Rules{WriteOnly: []schema.Path{
		"properties.extensionParameters.typeHandlerVersion", "properties.extensionParameters.protectedSettings",
	}}})
}
