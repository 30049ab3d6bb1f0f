package emulator

import "github.com/kubectl-azure/kubectl-azure/pkg/schema"

// defaultSchema is pkg/schema's embedded registry: create-only properties,
// secrets, PATCH support and long-running operations per type.
func defaultSchema() SchemaSource {
	if r := schema.Default(); r != nil {
		return r
	}
	return nil
}
