package schema

import "strings"

// Which resources ARM can delete. The rule is the Swagger's: a type whose
// resource path has no DELETE operation cannot be deleted on its own; it
// goes with its parent. The index records the DELETE's status codes per
// (type, api-version) from the Swagger that supplied the type's facts, so
// "facts from a Swagger, and no DELETE status" means no DELETE. Types no
// Swagger describes are taken as deletable: nothing says otherwise.

// deleteByName lists types whose Swagger paths differ per fixed name: the
// index merges the names into one type, so the names that do have a
// DELETE are listed. Source: azure-rest-api-specs, Microsoft.Web
// WebApps.json (2023-12-01): of sites/{name}/config/*, only config/backup
// defines DELETE (Web Apps - Delete Backup Configuration); the same for
// slots.
var deleteByName = map[string][]string{
	"microsoft.web/sites/config":       {"backup"},
	"microsoft.web/sites/slots/config": {"backup"},
}

// removalHints say how to remove a resource ARM cannot delete, where
// there is another way than deleting its parent. Key Vault secrets and
// keys: the specs (Microsoft.KeyVault secrets.json, keys.json 2023-07-01)
// define GET and PUT only, ARM answers a DELETE with 400
// DisallowedResourceOperation ("The operation 'delete' on resource type
// 'vaults/secrets' is disallowed.", Azure/terraform-provider-azapi issue
// 879); Key Vault's data plane deletes them.
var removalHints = map[string]string{
	"microsoft.keyvault/vaults/secrets": "delete it through Key Vault's data plane (az keyvault secret delete --vault-name VAULT --name NAME) or delete its vault",
	"microsoft.keyvault/vaults/keys":    "delete it through Key Vault's data plane (az keyvault key delete --vault-name VAULT --name NAME) or delete its vault",
	// An access policy operation has no DELETE either (keyvault.json
	// 2023-07-01 defines PUT only): its entries leave the vault with a PUT
	// of the same body to accessPolicies/remove.
	"microsoft.keyvault/vaults/accesspolicies": "take its entries out of the vault with `az keyvault delete-policy --name VAULT --object-id ID` (a PUT of the same body to .../accessPolicies/remove), or delete its vault",
}

// CanDelete reports whether ARM accepts a DELETE of the resource of type
// typ named name at apiVersion (nearest known version when that one is
// not indexed). A registry without the type answers true.
func (r *Registry) CanDelete(typ, apiVersion, name string) bool {
	if names, ok := deleteByName[strings.ToLower(typ)]; ok {
		for _, n := range names {
			if strings.EqualFold(n, name) {
				return true
			}
		}
		return false
	}
	if r == nil {
		return true
	}
	if apiVersion == "" {
		if vs := r.Versions(typ); len(vs) > 0 {
			apiVersion = vs[len(vs)-1]
		}
	}
	t, res := r.Lookup(typ, apiVersion)
	if !res.Found || t == nil {
		return true
	}
	return !singletonWithoutDelete(t)
}

// RemovalHint says how a resource ARM cannot delete is removed: another
// way where one exists, else with its parent.
func RemovalHint(typ string) string {
	if h := removalHints[strings.ToLower(typ)]; h != "" {
		return h
	}
	return "it goes only with its parent"
}
