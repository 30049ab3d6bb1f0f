package emulator

import (
	"sort"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// backRefs are the Network types whose GET lists the subnets that use
// them, by the subnet property that points at them: an NSG's and a route
// table's properties.subnets ([{id}], readonly; Microsoft.Network REST
// "Network Security Groups - Get", "Route Tables - Get").
var backRefs = map[string]string{
	"microsoft.network/networksecuritygroups": "networkSecurityGroup",
	"microsoft.network/routetables":           "routeTable",
}

const subnetType = "microsoft.network/virtualnetworks/subnets"

// backRefTrigger: a write or delete of these changes who uses what.
var backRefTrigger = map[string]bool{
	"microsoft.network/virtualnetworks": true, subnetType: true,
	"microsoft.network/networksecuritygroups": true, "microsoft.network/routetables": true,
}

// syncBackRefs recomputes the subnets lists of the NSGs and route tables of
// id's subscription after a write or delete of a resource of type typ.
// Caller holds s.mu.
func (s *Server) syncBackRefs(id, typ string) {
	if s.profile == nil || !backRefTrigger[strings.ToLower(typ)] {
		return
	}
	p, ok := armid.ParsePath(id)
	if !ok || p.Subscription == "" {
		return
	}
	users := map[string][]string{} // lower-cased target ID → subnet IDs
	var targets []*resource
	for _, r := range s.store.res {
		rp, ok := armid.ParsePath(r.ID)
		if !ok || !strings.EqualFold(rp.Subscription, p.Subscription) {
			continue
		}
		lt := strings.ToLower(r.Type)
		if _, ok := backRefs[lt]; ok {
			targets = append(targets, r)
		}
		if lt != subnetType {
			continue
		}
		props := asMap(r.Body["properties"])
		for _, member := range backRefs {
			if ref := str0(asMap(props[member])["id"]); ref != "" {
				users[armid.Key(ref)] = append(users[armid.Key(ref)], r.ID)
			}
		}
	}
	for _, t := range targets {
		props := asMap(t.Body["properties"])
		if props == nil {
			continue
		}
		subnets := users[armid.Key(t.ID)]
		if len(subnets) == 0 {
			delete(props, "subnets")
			continue
		}
		sort.Strings(subnets)
		refs := make([]any, len(subnets))
		for i, sn := range subnets {
			refs[i] = map[string]any{"id": sn}
		}
		props["subnets"] = refs
	}
}
