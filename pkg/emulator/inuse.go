package emulator

import (
	"net/http"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// inUseCodes are the network types Azure refuses to delete while another
// resource points at them, with the code it answers.
var inUseCodes = map[string]string{
	"microsoft.network/virtualnetworks/subnets":   "InUseSubnetCannotBeDeleted",
	"microsoft.network/networksecuritygroups":     "InUseNetworkSecurityGroupCannotBeDeleted",
	"microsoft.network/routetables":               "InUseRouteTableCannotBeDeleted",
	"microsoft.network/publicipaddresses":         "PublicIPAddressInUse",
	"microsoft.network/networkinterfaces":         "NicInUse",
	"microsoft.network/virtualnetworks":           "InUseSubnetCannotBeDeleted",
	"microsoft.network/applicationsecuritygroups": "InUseApplicationSecurityGroupCannotBeDeleted",
	"microsoft.network/natgateways":               "InUseNatGatewayCannotBeDeleted",
}

// checkInUse refuses to delete a network resource (or, for a virtual
// network, any of its subnets) that a resource outside its own tree still
// references by ID, as the network RP does. Caller holds s.mu.
func (s *Server) checkInUse(res *resource) *armError {
	code := inUseCodes[strings.ToLower(res.Type)]
	if code == "" {
		return nil
	}
	self := armid.Key(res.ID)
	parent := ""
	if pp, ok := armid.ParsePath(res.ID); ok && len(pp.Names) > 1 {
		parent = armid.Key(pp.ParentID())
	}
	for k, other := range s.store.res {
		if k == self || strings.HasPrefix(k, self+"/") || other.Derived || k == parent {
			continue // itself, its own children, server-made copies, the parent's inline view
		}
		if ref := findReference(withoutBackRefs(other), self); ref != "" {
			return newError(http.StatusBadRequest, code,
				"%s %s is in use by %s and cannot be deleted. Delete or update the referencing resource first.",
				res.Type, res.ID, other.ID)
		}
	}
	return nil
}

// findReference returns the first string in v that is target (an ID,
// lower-cased) or lies under it.
func findReference(v any, target string) string {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			if k == "id" && len(x) > 1 {
				// An object's own id (an inline item) is not a reference;
				// a lone {"id": …} is.
				continue
			}
			if r := findReference(c, target); r != "" {
				return r
			}
		}
	case []any:
		for _, c := range x {
			if r := findReference(c, target); r != "" {
				return r
			}
		}
	case string:
		if len(x) >= len(target) && strings.HasPrefix(x, "/") {
			if k := armid.Key(x); k == target || strings.HasPrefix(k, target+"/") {
				return x
			}
		}
	}
	return ""
}

// withoutBackRefs is other's body less the lists the service keeps of who
// uses it (backrefs.go): those are not references from other.
func withoutBackRefs(other *resource) map[string]any {
	if _, ok := backRefs[strings.ToLower(other.Type)]; !ok {
		return other.Body
	}
	props := asMap(other.Body["properties"])
	if _, ok := props["subnets"]; !ok {
		return other.Body
	}
	b := make(map[string]any, len(other.Body))
	for k, v := range other.Body {
		b[k] = v
	}
	p := make(map[string]any, len(props))
	for k, v := range props {
		if k != "subnets" {
			p[k] = v
		}
	}
	b["properties"] = p
	return b
}
