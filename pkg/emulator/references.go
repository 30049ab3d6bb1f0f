package emulator

import (
	"net/http"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// checkReferences refuses a body that points at a resource of this
// subscription's resource groups that does not exist, as ARM does
// (InvalidResourceReference), and a malformed ID where the spec declares
// one (LinkedInvalidPropertyId). References are strings at properties the
// spec marks format: arm-id, and at keys named id or ending in Id/ID.
// IDs under the resource itself (its own inline children) are skipped:
// they exist once this write lands.
func (s *Server) checkReferences(p armid.Path, t *schema.Type, self string, body map[string]any) *armError {
	if s.opts.SkipReferenceCheck || strings.EqualFold(p.Provider, "Microsoft.Resources") {
		return nil // deployments carry templates, whose IDs are not references yet
	}
	made := serviceMade[strings.ToLower(p.Type())]
	return walkBody(body, nil, func(v any, concrete []string) *armError {
		x, isStr := v.(string)
		if !isStr || len(concrete) < 2 || !s.isReferenceKey(t, concrete) {
			return nil
		}
		if made[schema.JoinPath(concrete)] {
			return nil // the service creates what this names
		}
		return s.checkReference(p, self, schema.JoinPath(concrete), x)
	})
}

// serviceMade lists, per type, the properties whose ID names a resource
// the service itself creates with this one, so it cannot exist before the
// write. Sources: Databricks "Workspaces - Create Or Update"
// (managedResourceGroupId: "The managed resource group Id", created by
// the service; the quickstart templates name a group that does not
// exist); Managed Applications "Applications - Create Or Update"
// (managedResourceGroupId, created on deployment).
var serviceMade = map[string]map[string]bool{
	"microsoft.databricks/workspaces":  {"properties.managedResourceGroupId": true},
	"microsoft.solutions/applications": {"properties.managedResourceGroupId": true},
}

func (s *Server) isReferenceKey(t *schema.Type, concrete []string) bool {
	last := concrete[len(concrete)-1]
	if schema.IsItem(last) && len(concrete) > 1 {
		last = concrete[len(concrete)-2] // an array of IDs
	}
	if t != nil && underAnyJSON(t, concrete) {
		return false
	}
	if t != nil {
		if _, prop := t.Resolve(concrete); prop != nil {
			if prop.ReadOnly {
				return false
			}
			if prop.ARMID {
				return true
			}
		}
	}
	return last == "id" || strings.HasSuffix(last, "Id") || strings.HasSuffix(last, "ID") || strings.HasSuffix(last, "Ids") || strings.HasSuffix(last, "IDs")
}

// underAnyJSON reports whether the value at concrete lies below a member the
// spec types as any JSON (a portal dashboard part's inputs and settings):
// the service stores it as given, so an "id" there is the user's data,
// not a reference it resolves. Only a complete (Bicep index) type says so.
func underAnyJSON(t *schema.Type, concrete []string) bool {
	if !t.Detailed || t.Fallback() {
		return false
	}
	for i := 1; i < len(concrete); i++ {
		sp, p := t.Resolve(concrete[:i])
		if p == nil {
			return false
		}
		if p.Type == "" && len(t.Children(sp)) == 0 {
			return true
		}
	}
	return false
}

func (s *Server) checkReference(p armid.Path, self, path, v string) *armError {
	if !hasPrefixFold(v, "/subscriptions/") {
		return nil
	}
	id, err := armid.Parse(v)
	if err != nil {
		return newError(http.StatusBadRequest, "LinkedInvalidPropertyId",
			"Property id '%s' at path '%s' is invalid. Expect fully qualified resource Id that start with '/subscriptions/{subscriptionId}' or '/providers/{resourceProviderNamespace}/'.",
			armid.Printable(v), path)
	}
	if id.ResourceGroup == "" || !strings.EqualFold(id.Subscription, p.Subscription) {
		return nil // built-in definitions, other subscriptions: not ours to judge
	}
	if armid.Contains(self, v) || armid.Equal(self, v) || s.store.get(v) != nil || s.inlinePartExists(v) || s.builtInUnder(v) {
		return nil
	}
	if strings.Contains(strings.ToLower(v), "/providers/microsoft.authorization/roledefinitions/") {
		return nil // role definitions are checked, and normalised, by checkRoleAssignment
	}
	if id.IsResourceGroup() && s.store.get("/subscriptions/"+id.Subscription+"/resourceGroups/"+id.ResourceGroup) != nil {
		return nil
	}
	return newError(http.StatusBadRequest, "InvalidResourceReference",
		"Resource %s referenced by resource %s was not found. Please make sure that the referenced resource exists, and that both resources are in the same region.",
		armid.Printable(v), self)
}

// inlinePartExists reports whether id names an inline part of a stored
// resource that the index does not know as a child type of its own (a
// load balancer's frontendIPConfigurations, backendAddressPools,
// inboundNatPools, probes, …; an application gateway's parts): ARM
// resolves such references inside the parent's body. Caller holds s.mu.
func (s *Server) inlinePartExists(id string) bool {
	p, ok := armid.ParsePath(id)
	if !ok || p.Kind != armid.PathResource || len(p.Names) < 2 {
		return false
	}
	parent := s.store.get(p.ParentID())
	if parent == nil {
		return false
	}
	seg := p.Types[len(p.Types)-1]
	for k, v := range asMap(parent.Body["properties"]) {
		if !strings.EqualFold(k, seg) {
			continue
		}
		items, _ := v.([]any)
		for _, it := range items {
			if n, _ := asMap(it)["name"].(string); strings.EqualFold(n, p.Name()) {
				return true
			}
		}
	}
	return false
}

// builtInUnder reports whether id names what a service has under every
// resource of a type without a client creating it, and that resource
// exists: Cosmos DB's built-in data-plane role definitions (Microsoft
// Learn "Use data plane role-based access control with Azure Cosmos DB
// for NoSQL": 00000000-0000-0000-0000-000000000001 Built-in Data Reader,
// …0002 Built-in Data Contributor) and a dev center's built-in gallery
// "Default" with its images (Microsoft Learn "Configure Azure Compute
// Gallery for Microsoft Dev Box": the images of the Default gallery), and
// a Recovery Services vault's DefaultPolicy, a virtual hub's default and
// none route tables. Caller holds s.mu.
func (s *Server) builtInUnder(id string) bool {
	p, ok := armid.ParsePath(id)
	if !ok || p.Kind != armid.PathResource || len(p.Names) < 2 {
		return false
	}
	switch t := strings.ToLower(p.Type()); {
	case t == "microsoft.documentdb/databaseaccounts/sqlroledefinitions":
		n := strings.ToLower(p.Name())
		return (n == "00000000-0000-0000-0000-000000000001" || n == "00000000-0000-0000-0000-000000000002") && s.store.get(p.ParentID()) != nil
	case t == "microsoft.network/virtualhubs/hubroutetables":
		// Every virtual hub has the route tables Default and None
		// (Microsoft Learn "About virtual hub routing"), named
		// defaultRouteTable and noneRouteTable in its IDs.
		n := strings.ToLower(p.Name())
		return (n == "defaultroutetable" || n == "noneroutetable") && s.store.get(p.ParentID()) != nil
	case t == "microsoft.recoveryservices/vaults/backuppolicies":
		// A vault is created with its policy DefaultPolicy (Microsoft
		// Learn "Back up an Azure VM from the VM settings": "DefaultPolicy
		// … created with the vault").
		return strings.EqualFold(p.Name(), "DefaultPolicy") && s.store.get(p.ParentID()) != nil
	case t == "microsoft.devcenter/devcenters/galleries/images" && !strings.EqualFold(p.Names[1], "default"):
		// An attached gallery's images are its Compute gallery's image
		// definitions (Dev Center REST "Images - Get"; galleries'
		// galleryResourceId).
		g := s.store.get(p.ParentID())
		if g == nil {
			return false
		}
		src := str0(asMap(g.Body["properties"])["galleryResourceId"])
		return src != "" && s.store.get(src+"/images/"+p.Name()) != nil
	case t == "microsoft.devcenter/devcenters/galleries" || t == "microsoft.devcenter/devcenters/galleries/images":
		if !strings.EqualFold(p.Names[1], "default") {
			return false
		}
		return s.store.get(strings.Join(strings.Split(p.Raw, "/")[:9], "/")) != nil
	}
	return false
}
