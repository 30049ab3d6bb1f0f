package emulator

import (
	"net/http"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// deleteRule is the schema's answer to "does ARM accept a DELETE of this
// resource": *schema.Registry implements it (pkg/schema/operations.go,
// the rule the tool itself plans by).
type deleteRule interface {
	CanDelete(typ, apiVersion, name string) bool
}

// disallowedDelete refuses a DELETE of a type whose Swagger has no DELETE
// operation, as ARM does for Key Vault secrets and keys: 400
// DisallowedResourceOperation, "The operation 'delete' on resource type
// 'vaults/secrets' is disallowed." (Azure/terraform-provider-azapi issue
// 879). The types noDelete lists answer 405 before this is asked. Caller
// holds s.mu.
func (s *Server) disallowedDelete(p armid.Path, apiVersion string) *armError {
	dr, ok := s.opts.Schema.(deleteRule)
	if !ok || p.Kind != armid.PathResource || len(p.Types) < 2 || dr.CanDelete(p.Type(), apiVersion, p.Name()) {
		return nil
	}
	return newError(http.StatusBadRequest, "DisallowedResourceOperation",
		"The operation 'delete' on resource type '%s' is disallowed.", strings.Join(p.Types, "/"))
}
