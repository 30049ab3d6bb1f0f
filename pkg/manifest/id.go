package manifest

import "github.com/kubectl-azure/kubectl-azure/pkg/armid"

// ID is the project's ARM resource ID (package armid); the alias and the
// wrappers below keep manifest's API stable for its callers. Code that
// takes IDs apart uses package armid directly.
type ID = armid.ID

// IsGUID reports whether s looks like a GUID.
func IsGUID(s string) bool { return armid.IsGUID(s) }

// ParseID parses and validates an ARM resource ID (see armid.Parse).
func ParseID(id string) (ID, error) { return armid.Parse(id) }

// EqualIDs compares two ARM IDs the way ARM does.
func EqualIDs(a, b string) bool { return armid.Equal(a, b) }

// ResourceGroupType is the ARM type of resource groups.
const ResourceGroupType = armid.ResourceGroupType
