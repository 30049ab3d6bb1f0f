package manifest

import "github.com/kubectl-azure/kubectl-azure/pkg/armid"

// ID is the project's ARM resource ID (package armid); the alias and the
// wrappers below keep manifest's API stable for its callers. Code that
// takes IDs apart uses package armid directly.
type ID = armid.ID

// ParseID parses and validates an ARM resource ID (see armid.Parse).
func ParseID(id string) (ID, error) { return armid.Parse(id) }

// ResourceGroupType is the ARM type of resource groups.
const ResourceGroupType = armid.ResourceGroupType
