package emulator

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// Rules the Network provider applies across a resource and its siblings,
// which no single body's schema can express. Codes and messages are ARM's,
// as clients print them (public az transcripts):
//
//   - SecurityRuleConflict: "Security rule set-port-80 conflicts with rule
//     AllowHTTPInbound. Rules cannot have the same Priority and Direction."
//   - NetcfgSubnetRangeOutsideVnet: "Subnet 'subnet-alb' is not valid
//     because its IP address range is outside the IP address range of
//     virtual network 'aks-vnet-34152116'."
//   - NetcfgSubnetRangesOverlap: "Subnet 'B' is not valid because its IP
//     address range overlaps with that of an existing subnet 'A' in virtual
//     network 'V'."
//
// Prefixes that do not parse are left to the body validation.

const (
	typeVNet    = "microsoft.network/virtualnetworks"
	typeSubnet  = "microsoft.network/virtualnetworks/subnets"
	typeNSG     = "microsoft.network/networksecuritygroups"
	typeNSGRule = "microsoft.network/networksecuritygroups/securityrules"
)

// checkNetworkRules runs the rules a provider applies beyond the schema
// (siblings, one-way switches) for a write of p with body.
func (s *Server) checkNetworkRules(p armid.Path, body map[string]any) *armError {
	switch strings.ToLower(p.Type()) {
	case typeVNet:
		return checkVNetBody(p.Name(), body)
	case typeSubnet:
		return s.checkSubnetWrite(p, body)
	case typeNSG:
		rules, _ := propsOf(body)["securityRules"].([]any)
		return checkRulePriorities(namedBodies(rules))
	case typeNSGRule:
		return s.checkRuleWrite(p, body)
	case "microsoft.keyvault/vaults":
		return checkVaultBody(body)
	}
	return nil
}

type named struct {
	name  string
	props map[string]any
}

func namedBodies(items []any) []named {
	out := make([]named, 0, len(items))
	for _, it := range items {
		m, _ := it.(map[string]any)
		name, _ := m["name"].(string)
		out = append(out, named{name: name, props: propsOf(m)})
	}
	return out
}

func propsOf(body map[string]any) map[string]any {
	p, _ := body["properties"].(map[string]any)
	return p
}

// checkVNetBody checks a virtual network's inline subnets against its
// address space and each other.
func checkVNetBody(vnet string, body map[string]any) *armError {
	props := propsOf(body)
	space := vnetSpace(props)
	subnets, _ := props["subnets"].([]any)
	return checkSubnets(vnet, space, namedBodies(subnets), nil)
}

// checkSubnetWrite checks one subnet against its virtual network's address
// space and the other subnets the emulator holds.
func (s *Server) checkSubnetWrite(p armid.Path, body map[string]any) *armError {
	parent := s.store.get(p.ParentID())
	if parent == nil {
		return nil // the parent check answers this
	}
	vnetName := ""
	if pp, ok := armid.ParsePath(parent.ID); ok {
		vnetName = pp.Name()
	}
	var siblings []named
	for _, r := range s.store.children(p.ParentID(), p.Type()) {
		if rp, ok := armid.ParsePath(r.ID); ok && !strings.EqualFold(rp.Name(), p.Name()) {
			siblings = append(siblings, named{name: rp.Name(), props: propsOf(r.Body)})
		}
	}
	return checkSubnets(vnetName, vnetSpace(propsOf(parent.Body)), []named{{name: p.Name(), props: propsOf(body)}}, siblings)
}

func vnetSpace(props map[string]any) []netip.Prefix {
	as, _ := props["addressSpace"].(map[string]any)
	list, _ := as["addressPrefixes"].([]any)
	return parsePrefixes(list)
}

func subnetPrefixes(props map[string]any) []netip.Prefix {
	var raw []any
	if v, ok := props["addressPrefix"].(string); ok {
		raw = append(raw, v)
	}
	if list, ok := props["addressPrefixes"].([]any); ok {
		raw = append(raw, list...)
	}
	return parsePrefixes(raw)
}

func parsePrefixes(raw []any) []netip.Prefix {
	var out []netip.Prefix
	for _, v := range raw {
		s, _ := v.(string)
		if p, err := netip.ParsePrefix(strings.TrimSpace(s)); err == nil {
			out = append(out, p.Masked())
		}
	}
	return out
}

// checkSubnets checks each of subnets inside space (when the space is
// known) and against every other subnet and every sibling.
func checkSubnets(vnet string, space []netip.Prefix, subnets, siblings []named) *armError {
	for i, sn := range subnets {
		for _, pre := range subnetPrefixes(sn.props) {
			if len(space) > 0 && !insideAny(pre, space) {
				return newError(http.StatusBadRequest, "NetcfgSubnetRangeOutsideVnet",
					"Subnet '%s' is not valid because its IP address range is outside the IP address range of virtual network '%s'.", sn.name, vnet)
			}
			others := append(append([]named{}, subnets[:i]...), siblings...)
			for _, o := range others {
				for _, op := range subnetPrefixes(o.props) {
					if pre.Overlaps(op) {
						return newError(http.StatusBadRequest, "NetcfgSubnetRangesOverlap",
							"Subnet '%s' is not valid because its IP address range overlaps with that of an existing subnet '%s' in virtual network '%s'.", sn.name, o.name, vnet)
					}
				}
			}
		}
	}
	return nil
}

func insideAny(p netip.Prefix, space []netip.Prefix) bool {
	for _, sp := range space {
		if sp.Addr().Is4() == p.Addr().Is4() && sp.Bits() <= p.Bits() && sp.Contains(p.Addr()) {
			return true
		}
	}
	return false
}

// checkRuleWrite checks one security rule against the NSG's other rules.
func (s *Server) checkRuleWrite(p armid.Path, body map[string]any) *armError {
	rules := []named{{name: p.Name(), props: propsOf(body)}}
	for _, r := range s.store.children(p.ParentID(), p.Type()) {
		if rp, ok := armid.ParsePath(r.ID); ok && !strings.EqualFold(rp.Name(), p.Name()) {
			rules = append(rules, named{name: rp.Name(), props: propsOf(r.Body)})
		}
	}
	// Only the written rule can be new: check it against the rest.
	return checkRulePriorities(rules[:1:1], rules[1:]...)
}

// checkRulePriorities refuses two rules with one priority and direction.
// With others, only rules is checked, against others too.
func checkRulePriorities(rules []named, others ...named) *armError {
	all := append(append([]named{}, rules...), others...)
	for i, a := range rules {
		ka, ok := ruleKey(a.props)
		if !ok {
			continue
		}
		for j, b := range all {
			if j == i {
				continue
			}
			if kb, ok := ruleKey(b.props); ok && kb == ka {
				return newError(http.StatusBadRequest, "SecurityRuleConflict",
					"Security rule %s conflicts with rule %s. Rules cannot have the same Priority and Direction.", a.name, b.name)
			}
		}
	}
	return nil
}

func ruleKey(props map[string]any) (string, bool) {
	dir, _ := props["direction"].(string)
	if dir == "" || props["priority"] == nil {
		return "", false
	}
	return strings.ToLower(dir) + "/" + fmt.Sprint(props["priority"]), true
}

// checkVaultBody refuses what Key Vault's provider refuses of a vault body.
// enablePurgeProtection: the spec says "the property does not accept false
// as its value", and deployments that sent false (at creation too) were
// answered 400 BadRequest: The property "enablePurgeProtection" cannot be
// set to false. Enabling the purge protection for a vault is an
// irreversible action. (public deployment logs quoting it).
func checkVaultBody(body map[string]any) *armError {
	if v, ok := propsOf(body)["enablePurgeProtection"]; ok && v == false {
		return newError(http.StatusBadRequest, "BadRequest",
			`The property "enablePurgeProtection" cannot be set to false. Enabling the purge protection for a vault is an irreversible action.`)
	}
	return nil
}
