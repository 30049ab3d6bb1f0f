package emulator

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strings"
)

// Generated values are derived from the resource's ID (case-insensitive)
// and a purpose, so they are stable across requests and restarts and
// distinct per resource — never one recorded constant shared by all.

func digest(id, purpose string) [32]byte {
	return sha256.Sum256([]byte(purpose + "\x00" + lowerID(id)))
}

// derivedGUID is a version-4-shaped GUID for id and purpose.
func derivedGUID(id, purpose string) string {
	b := digest(id, purpose)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// derivedKey is a base64 key of n bytes, like the storage and Cosmos keys.
func derivedKey(id, purpose string, n int) string {
	var out []byte
	for i := 0; len(out) < n; i++ {
		b := digest(id, fmt.Sprintf("%s#%d", purpose, i))
		out = append(out, b[:]...)
	}
	return base64.StdEncoding.EncodeToString(out[:n])
}

// derivedHex is n lower-case hex characters.
func derivedHex(id, purpose string, n int) string {
	b := digest(id, purpose)
	return fmt.Sprintf("%x", b[:])[:n]
}

// derivedPublicIP is a public IPv4 address in 20.0.0.0/8 (a range Azure
// allocates from), avoiding .0 and .255.
func derivedPublicIP(id string) string {
	b := digest(id, "publicIP")
	v := binary.BigEndian.Uint32(b[:4])
	return fmt.Sprintf("20.%d.%d.%d", byte(v>>16), byte(v>>8), 1+byte(v)%254)
}

// aksFQDN is the API server name AKS derives from dnsPrefix.
func aksFQDN(id, dnsPrefix, location, zone string) string {
	if dnsPrefix == "" {
		dnsPrefix = "aks"
	}
	return fmt.Sprintf("%s-%s.%s.%s.azmk8s.io", strings.ToLower(dnsPrefix), derivedHex(id, "fqdn", 8), zone, LocationKey(location))
}

// applyGenerated replaces recorded constants with values derived from the
// resource: identities' principal and tenant IDs, public IP addresses,
// AKS FQDNs. prev keeps values already assigned.
func applyGenerated(id, typ string, body map[string]any) {
	if ident, ok := body["identity"].(map[string]any); ok {
		t, _ := ident["type"].(string)
		if strings.Contains(strings.ToLower(t), "systemassigned") {
			ident["principalId"] = derivedGUID(id, "principalId")
			ident["tenantId"] = emulatorTenant
		} else {
			delete(ident, "principalId")
			delete(ident, "tenantId")
		}
		if uai, ok := ident["userAssignedIdentities"].(map[string]any); ok {
			for uid := range uai {
				uai[uid] = map[string]any{
					"principalId": derivedGUID(uid, "principalId"),
					"clientId":    derivedGUID(uid, "clientId"),
				}
			}
		}
	}
	props, _ := body["properties"].(map[string]any)
	if props == nil {
		return
	}
	loc, _ := body["location"].(string)
	switch strings.ToLower(typ) {
	case "microsoft.managedidentity/userassignedidentities":
		props["principalId"] = derivedGUID(id, "principalId")
		props["clientId"] = derivedGUID(id, "clientId")
		props["tenantId"] = emulatorTenant
	case "microsoft.network/publicipaddresses":
		if v, _ := props["publicIPAddressVersion"].(string); !strings.EqualFold(v, "IPv6") {
			props["ipAddress"] = derivedPublicIP(id)
		}
		if dns, ok := props["dnsSettings"].(map[string]any); ok {
			if label, _ := dns["domainNameLabel"].(string); label != "" {
				dns["fqdn"] = strings.ToLower(label) + "." + LocationKey(loc) + ".cloudapp.azure.com"
			}
		}
	case "microsoft.containerservice/managedclusters":
		prefix, _ := props["dnsPrefix"].(string)
		if prefix != "" {
			props["fqdn"] = aksFQDN(id, prefix, loc, "hcp")
			props["azurePortalFQDN"] = aksFQDN(id, prefix, loc, "portal.hcp")
		}
	case "microsoft.keyvault/vaults":
		name := id[strings.LastIndex(id, "/")+1:]
		props["vaultUri"] = "https://" + strings.ToLower(name) + ".vault.azure.net/"
	}
}
