package emulator

import (
	"net/http"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// Built-in role IDs are the same in every tenant; a wrong one makes a real
// manifest fail with RoleDefinitionDoesNotExist. Each pair below was
// checked against Microsoft Learn "Azure built-in roles" (its translated
// copies list the same IDs) and public templates that assign the role.
func TestBuiltinRoleIDs(t *testing.T) {
	_, base := armStart(t, nil)
	for id, name := range map[string]string{
		"a7ffa36f-339b-4b5c-8bdf-e2c188b2c0eb": "Azure Kubernetes Service RBAC Writer",
		"7f6c6a51-bcf8-42ba-9220-52d62157d7db": "Azure Kubernetes Service RBAC Reader",
		"b1ff04bb-8a4e-4dc4-8eb5-8693973ce19b": "Azure Kubernetes Service RBAC Cluster Admin",
		"4633458b-17de-408a-b874-0445c86b69e6": "Key Vault Secrets User",
		"14b46e9e-c2b7-41b4-b07b-48a6ebf60603": "Key Vault Crypto Officer",
		"25fbc0a9-bd7c-42a3-aa1a-3b75d497ee68": "Cognitive Services Contributor",
		"f58310d9-a9f6-439a-9e8d-f62e7b41a168": "Role Based Access Control Administrator",
	} {
		r := do(t, http.MethodGet, base+"/providers/Microsoft.Authorization/roleDefinitions/"+id+"?api-version=2022-04-01", nil)
		if r.Status != 200 || str(r.Body, "properties", "roleName") != name {
			t.Errorf("%s: %d %.200s, want %s", id, r.Status, r.Raw, name)
		}
	}
	seen := map[string]string{}
	for _, id := range armid.BuiltinRoleIDs() {
		name, _ := armid.BuiltinRole(id)
		if !guidRE.MatchString(id) || len(id) != 36 {
			t.Errorf("%q (%s) is not a GUID", id, name)
		}
		if prev, dup := seen[name]; dup {
			t.Errorf("%s has two IDs: %s and %s", name, prev, id)
		}
		seen[name] = id
	}
}
