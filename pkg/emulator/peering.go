package emulator

import (
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

const peeringType = "microsoft.network/virtualnetworks/virtualnetworkpeerings"

// settlePeering sets a virtual network peering's state as the Network RP
// does: Initiated while the remote network has no peering back, Connected
// on both sides once it has (Microsoft Learn "Create, change, or delete a
// virtual network peering": "When you create the peering to the second
// virtual network from the first, the peering status is Initiated. When
// you create the peering from the second to the first, its status is
// Connected", and the first one's turns Connected too). Caller holds s.mu.
func (s *Server) settlePeering(id, typ string, body map[string]any) {
	if !strings.EqualFold(typ, peeringType) {
		return
	}
	props := asMap(body["properties"])
	p, ok := armid.ParsePath(id)
	if props == nil || !ok {
		return
	}
	local := p.ParentID()
	remote := str0(asMap(props["remoteVirtualNetwork"])["id"])
	back := s.peeringTo(remote, local)
	if back == nil {
		props["peeringState"] = "Initiated"
		return
	}
	props["peeringState"] = "Connected"
	if bp := asMap(back.Body["properties"]); bp != nil && bp["peeringState"] != "Connected" {
		bp["peeringState"] = "Connected"
		if bpath, ok := armid.ParsePath(back.ID); ok {
			s.syncParentFromChild(bpath, back)
		}
		s.store.put(back)
	}
}

// peeringTo is the peering of network vnet whose remote is target, if any.
// Caller holds s.mu.
func (s *Server) peeringTo(vnet, target string) *resource {
	if vnet == "" {
		return nil
	}
	for _, r := range s.store.children(vnet, "Microsoft.Network/virtualNetworks/virtualNetworkPeerings") {
		if armid.Equal(str0(asMap(asMap(r.Body["properties"])["remoteVirtualNetwork"])["id"]), target) {
			return r
		}
	}
	return nil
}
