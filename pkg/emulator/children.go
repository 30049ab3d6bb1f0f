package emulator

import (
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// Child resources that ARM lets a parent declare inline (a virtual
// network's subnets, an NSG's rules, an AKS cluster's agent pool profiles)
// are stored as real children, and both views stay in sync: a parent PUT
// creates, updates and deletes children; a child PUT or DELETE rewrites the
// parent's array.

// inlineChild describes one inline collection of a parent type.
type inlineChild struct {
	prop      string // key under properties, e.g. subnets
	childType string // full child type, e.g. Microsoft.Network/virtualNetworks/subnets
	segment   string // the child's type segment in its ID, e.g. subnets
	flat      bool   // items carry the child's properties at top level (AKS)
}

// inlineChildren lists the inline collections of typ: every properties.X
// array whose items have names and for which the index knows typ/X, plus
// AKS's agentPoolProfiles.
func (s *Server) inlineChildren(typ string, body map[string]any) []inlineChild {
	var out []inlineChild
	if strings.EqualFold(typ, "Microsoft.ContainerService/managedClusters") {
		out = append(out, inlineChild{prop: "agentPoolProfiles", childType: typ + "/agentPools", segment: "agentPools", flat: true})
	}
	props, _ := body["properties"].(map[string]any)
	tl, _ := s.opts.Schema.(typeLister)
	if tl == nil {
		return out
	}
	for k, v := range props {
		if _, isArr := v.([]any); !isArr || strings.EqualFold(k, "defaultSecurityRules") {
			continue // the default rules are read-only: the server owns them
		}
		ct := typ + "/" + k
		if len(tl.Versions(ct)) > 0 && !strings.EqualFold(k, "agentPoolProfiles") {
			out = append(out, inlineChild{prop: k, childType: ct, segment: k})
		}
	}
	return out
}

// syncChildrenFromParent makes the stored children match the parent's
// inline arrays (req is what the client sent: only arrays it sent are
// authoritative) and writes ids, types and etags back into the items.
func (s *Server) syncChildrenFromParent(parentID, typ, apiVersion string, req, live map[string]any) {
	props, _ := live["properties"].(map[string]any)
	if props == nil {
		return
	}
	reqProps, _ := req["properties"].(map[string]any)
	for _, ic := range s.inlineChildren(typ, live) {
		items, _ := props[ic.prop].([]any)
		_, sent := reqProps[ic.prop]
		keep := map[string]bool{}
		for _, it := range items {
			m, ok := it.(map[string]any)
			name, _ := m["name"].(string)
			if !ok || name == "" {
				continue
			}
			cid := parentID + "/" + ic.segment + "/" + name
			keep[armid.Key(cid)] = true
			child := childBodyFromItem(ic, m)
			prev := s.store.get(cid)
			res := &resource{ID: cid, Type: ic.childType, APIVersion: apiVersion, Created: s.now(), Derived: true}
			if prev != nil {
				res.ID, res.Created, res.Derived = prev.ID, prev.Created, prev.Derived
			}
			child["id"], child["name"], child["type"] = res.ID, name, ic.childType
			setProvisioningState(child, "Succeeded")
			if strings.HasPrefix(strings.ToLower(ic.childType), "microsoft.network/") {
				res.Etag = `W/"` + newGUID() + `"`
				child["etag"] = res.Etag
			}
			res.Body = child
			s.store.put(res)
			if !ic.flat {
				m["id"], m["type"] = res.ID, ic.childType
				if res.Etag != "" {
					m["etag"] = res.Etag
				}
				if cp, ok := child["properties"].(map[string]any); ok {
					m["properties"] = deepCopy(cp)
				}
			}
		}
		if !sent {
			continue
		}
		for _, c := range s.store.children(parentID, ic.childType) {
			if !keep[armid.Key(c.ID)] {
				s.store.removeTree(c.ID)
			}
		}
	}
}

// childBodyFromItem turns an inline item into the child's body.
func childBodyFromItem(ic inlineChild, item map[string]any) map[string]any {
	if !ic.flat {
		out := map[string]any{}
		if p, ok := item["properties"].(map[string]any); ok {
			out["properties"] = deepCopy(p)
		} else {
			out["properties"] = map[string]any{}
		}
		return out
	}
	props := map[string]any{}
	for k, v := range item {
		if k != "name" && k != "id" && k != "type" {
			props[k] = deepCopy(v)
		}
	}
	return map[string]any{"properties": props}
}

// itemFromChild is the inverse: the parent's array item for a child body.
func itemFromChild(ic inlineChild, child map[string]any) map[string]any {
	if ic.flat {
		item := map[string]any{"name": child["name"]}
		if p, ok := child["properties"].(map[string]any); ok {
			for k, v := range p {
				item[k] = deepCopy(v)
			}
		}
		return item
	}
	item := map[string]any{}
	for _, k := range []string{"name", "id", "etag", "type", "properties"} {
		if v, ok := child[k]; ok {
			item[k] = deepCopy(v)
		}
	}
	return item
}

// parentInline finds the parent of a child ID and the inline collection
// the child belongs to; ok is false for children ARM does not inline.
func (s *Server) parentInline(p armid.Path) (*resource, inlineChild, bool) {
	if len(p.Names) < 2 {
		return nil, inlineChild{}, false
	}
	parent := s.store.get(p.ParentID())
	if parent == nil {
		return nil, inlineChild{}, false
	}
	seg := p.Types[len(p.Types)-1]
	for _, ic := range s.inlineChildren(parent.Type, parent.Body) {
		if strings.EqualFold(ic.segment, seg) {
			return parent, ic, true
		}
	}
	// The parent may not carry the array yet: accept when the index knows
	// the child type as an inline collection name of the parent's spec.
	if f := s.facts(parent.Type, parent.APIVersion); f.schema != nil {
		if prop := f.schema.Prop("properties." + seg); prop != nil && prop.Type == "array" && !prop.ReadOnly {
			return parent, inlineChild{prop: seg, childType: p.Type(), segment: seg}, true
		}
	}
	return nil, inlineChild{}, false
}

// syncParentFromChild rewrites the parent's inline array after a child
// write (child != nil) or delete (child == nil).
func (s *Server) syncParentFromChild(p armid.Path, child *resource) {
	parent, ic, ok := s.parentInline(p)
	if !ok {
		return
	}
	props, _ := parent.Body["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
		parent.Body["properties"] = props
	}
	items, _ := props[ic.prop].([]any)
	name := p.Name()
	out := make([]any, 0, len(items)+1)
	replaced := false
	for _, it := range items {
		m, _ := it.(map[string]any)
		if n, _ := m["name"].(string); strings.EqualFold(n, name) {
			if child != nil && !replaced {
				out = append(out, itemFromChild(ic, child.Body))
				replaced = true
			}
			continue
		}
		out = append(out, it)
	}
	if child != nil && !replaced {
		out = append(out, itemFromChild(ic, child.Body))
	}
	props[ic.prop] = out
}

// addImplicitChildren creates the children ARM creates with a resource:
// those of the server-created table (a storage account's default
// services, a namespace's root rule), an NSG's default rules.
func (s *Server) addImplicitChildren(res *resource) {
	s.addRPChildren(res)
	s.restoreDiagnosticSettings(res.ID)
	switch strings.ToLower(res.Type) {
	case "microsoft.network/networksecuritygroups":
		props, _ := res.Body["properties"].(map[string]any)
		if props == nil {
			return
		}
		var items []any
		for _, r := range nsgDefaultRules {
			id := res.ID + "/defaultSecurityRules/" + r.name
			body := map[string]any{
				"id": id, "name": r.name, "type": res.Type + "/defaultSecurityRules", "etag": res.Etag,
				"properties": map[string]any{
					"provisioningState": "Succeeded", "description": r.desc, "protocol": "*",
					"sourcePortRange": "*", "destinationPortRange": "*",
					"sourceAddressPrefix": r.src, "destinationAddressPrefix": r.dst,
					"access": r.access, "priority": jsonNum(r.priority), "direction": r.dir,
					"sourcePortRanges": []any{}, "destinationPortRanges": []any{},
					"sourceAddressPrefixes": []any{}, "destinationAddressPrefixes": []any{},
				},
			}
			s.store.put(&resource{ID: id, Type: res.Type + "/defaultSecurityRules", APIVersion: res.APIVersion, Body: body, Etag: res.Etag, Created: s.now(), Derived: true})
			items = append(items, deepCopy(body))
		}
		props["defaultSecurityRules"] = items
	}
}

// nsgDefaultRules are the six rules every NSG has, as Azure documents them.
var nsgDefaultRules = []struct {
	name, desc, src, dst, access, dir string
	priority                          int
}{
	{"AllowVnetInBound", "Allow inbound traffic from all VMs in VNET", "VirtualNetwork", "VirtualNetwork", "Allow", "Inbound", 65000},
	{"AllowAzureLoadBalancerInBound", "Allow inbound traffic from azure load balancer", "AzureLoadBalancer", "*", "Allow", "Inbound", 65001},
	{"DenyAllInBound", "Deny all inbound traffic", "*", "*", "Deny", "Inbound", 65500},
	{"AllowVnetOutBound", "Allow outbound traffic from all VMs to all VMs in VNET", "VirtualNetwork", "VirtualNetwork", "Allow", "Outbound", 65000},
	{"AllowInternetOutBound", "Allow outbound traffic from all VMs to Internet", "*", "Internet", "Allow", "Outbound", 65001},
	{"DenyAllOutBound", "Deny all outbound traffic", "*", "*", "Deny", "Outbound", 65500},
}

func jsonNum(i int) any { return jsonNumber(itoa(i)) }
