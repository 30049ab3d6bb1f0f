package schema

import "strings"

// Some child "resources" are operations on a list their parent holds: a
// PUT merges the body's entries into the parent's property, and ARM has
// no GET for them (the Bicep type index marks them readableScopes 0). So
// the only way to see whether one is in place is to read its parent and
// find the entries it wrote there, matched on the entry's identifiers.

// MergeChild describes such a type.
type MergeChild struct {
	// Property is the list, in the child's body and in the parent's alike.
	Property []string
	// Keys identify an entry of the list.
	Keys []string
	// Unions names the fixed child names whose PUT unions what an entry
	// holds with what it already had (add); any other readable name sets
	// the entry as given (replace).
	Unions []string
	// Readable are the child names whose effect a read can confirm
	// (remove takes entries away: nothing of it is left to read).
	Readable []string
	// Remover is the child name whose PUT takes entries away again: how
	// one of the others is deleted, ARM having no DELETE for any.
	Remover string
}

// mergeChildren by lower-cased type. Key Vault: "Vaults - Update Access
// Policy" (PUT .../accessPolicies/{add|replace|remove}, no GET in
// Microsoft.KeyVault keyvault.json 2023-07-01); entries are matched by
// tenantId, objectId and applicationId.
var mergeChildren = map[string]MergeChild{
	"microsoft.keyvault/vaults/accesspolicies": {
		Property: []string{"properties", "accessPolicies"},
		Keys:     []string{"tenantId", "objectId", "applicationId"},
		Unions:   []string{"add"},
		Readable: []string{"add", "replace"},
		Remover:  "remove",
	},
}

// MergeChildOf returns how a resource of type typ named name (its own last
// segment) is read through its parent; false when it is read as itself.
func MergeChildOf(typ, name string) (MergeChild, bool) {
	m, ok := mergeChildren[strings.ToLower(typ)]
	if !ok || len(m.Property) == 0 {
		return MergeChild{}, false
	}
	for _, n := range m.Readable {
		if strings.EqualFold(n, name) {
			return m, true
		}
	}
	return MergeChild{}, false
}

// Union reports whether the child named name adds to what an entry holds.
func (m MergeChild) Union(name string) bool {
	for _, n := range m.Unions {
		if strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}
