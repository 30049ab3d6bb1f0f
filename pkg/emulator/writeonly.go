package emulator

import (
	"sort"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// dropReadOnly removes from a request body what the spec marks readonly
// and puts back the server's own value from the live body, when there is
// one: ARM ignores readonly input (resourceGuid, creationTime,
// primaryEndpoints, …) rather than storing it. Source: the ARM RPC
// ("Resource provider contract": read-only properties sent in a PUT are
// ignored) and the specs' readOnly markers (schema index). Paths under a
// map (…*…) or specific to one variant of a polymorphic body are left
// alone: the index cannot say which key or variant they apply to.
func dropReadOnly(t *schema.Type, body, prev map[string]any) {
	if t == nil {
		return
	}
	paths := make([]string, 0, len(t.Properties))
	for path, prop := range t.Properties {
		if !prop.ReadOnly || len(prop.Variants) > 0 || strings.Contains(path, "*") {
			continue
		}
		switch path {
		case "id", "name", "type", "etag", "systemData", "properties.provisioningState":
			continue // the envelope: set by the server on every write
		}
		paths = append(paths, path)
	}
	// Outermost first: a readonly object goes whole, unless it holds keys
	// the spec does not know (kept, as unknown properties are elsewhere);
	// then its known readonly members go one by one.
	sort.Slice(paths, func(i, j int) bool {
		if di, dj := strings.Count(paths[i], "."), strings.Count(paths[j], "."); di != dj {
			return di < dj
		}
		return paths[i] < paths[j]
	})
	for _, path := range paths {
		bodypath.Parents(body, path, func(obj map[string]any, key string) {
			if m, ok := obj[key].(map[string]any); ok {
				for k := range m {
					if t.Prop(path+"."+k) == nil {
						return
					}
				}
			}
			delete(obj, key)
		})
		if prev == nil || strings.Contains(path, "[]") {
			continue
		}
		if v, ok := bodypath.Get(prev, path); ok {
			if _, set := bodypath.Get(body, path); !set {
				setPath(body, path, deepCopy(v))
			}
		}
	}
}

// setPath sets a dotted member path (no array segments), creating objects
// on the way.
func setPath(body map[string]any, path string, v any) {
	segs := strings.Split(path, ".")
	cur := body
	for _, s := range segs[:len(segs)-1] {
		next, ok := cur[s].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[s] = next
		}
		cur = next
	}
	cur[segs[len(segs)-1]] = v
}

// Write-only values are never returned by GET. The spec's markers (x-ms-
// secret, Bicep's WriteOnly and sensitive flags) cover most; the rules
// below are what the index lacks, each with its source. How ARM hides the
// value differs per RP: the key is left out, set to null, or masked.
type hideMode int

const (
	hideDrop hideMode = iota // the member is absent from GET
	hideNull                 // the member is present with null
)

var writeOnlyRules = map[string][]struct {
	path string
	mode hideMode
}{
	// SecretProperties.value: "NOTE: 'value' will never be returned from
	// the service" (Key Vault management spec, azure-rest-api-specs
	// keyvault/resource-manager secrets.json).
	"microsoft.keyvault/vaults/secrets": {{"properties.value", hideDrop}},
	// A site's GET carries siteConfig with appSettings and connectionStrings
	// null (recorded GET bodies of Microsoft.Web/sites in public
	// transcripts: "appSettings": null, "connectionStrings": null); the
	// values live in config/appsettings and are read with POST …/list.
	"microsoft.web/sites": {
		{"properties.siteConfig.appSettings", hideNull},
		{"properties.siteConfig.connectionStrings", hideNull},
	},
	"microsoft.web/sites/slots": {
		{"properties.siteConfig.appSettings", hideNull},
		{"properties.siteConfig.connectionStrings", hideNull},
	},
	// osProfile.adminPassword and customData are in the PUT model only
	// (Compute spec: "adminPassword … not returned"; Bicep marks them
	// sensitive/WriteOnly).
	"microsoft.compute/virtualmachines": {
		{"properties.osProfile.adminPassword", hideDrop},
		{"properties.osProfile.customData", hideDrop},
	},
	// Container Apps answer configuration.secrets with names only; the
	// values come from POST listSecrets (Container Apps REST reference,
	// "Container Apps - List Secrets").
	"microsoft.app/containerapps": {{"properties.configuration.secrets[].value", hideDrop}},
	"microsoft.app/jobs":          {{"properties.configuration.secrets[].value", hideDrop}},
	"microsoft.compute/virtualmachinescalesets": {
		{"properties.virtualMachineProfile.osProfile.adminPassword", hideDrop},
		{"properties.virtualMachineProfile.osProfile.customData", hideDrop},
	},
}

// secureStringMask is what Data Factory answers for a SecureString value
// (spec examples LinkedServices_Get / _Create:
// "connectionString": {"type": "SecureString", "value": "**********"}).
const secureStringMask = "**********"

// hideWriteOnly removes or masks, in a body about to be stored, every value
// ARM never returns for typ.
func hideWriteOnly(typ string, t *schema.Type, body map[string]any) {
	if t != nil {
		for path, prop := range t.Properties {
			if (prop.Secret || prop.WriteOnly) && !strings.Contains(path, "*") {
				bodypath.Parents(body, path, func(obj map[string]any, key string) { delete(obj, key) })
			}
		}
	}
	lt := strings.ToLower(typ)
	for _, r := range writeOnlyRules[lt] {
		bodypath.Parents(body, r.path, func(obj map[string]any, key string) {
			if _, ok := obj[key]; !ok {
				return
			}
			if r.mode == hideNull {
				obj[key] = nil
			} else {
				delete(obj, key)
			}
		})
	}
	if strings.HasPrefix(lt, "microsoft.datafactory/") || strings.HasPrefix(lt, "microsoft.synapse/") {
		if props, ok := body["properties"]; ok {
			body["properties"] = maskSecureStrings(props)
		}
	}
}

// maskSecureStrings returns v with the value of every {"type":
// "SecureString", "value": …} object under it replaced by Data Factory's
// mask.
func maskSecureStrings(v any) any {
	return bodypath.Map(v, func(n any) (any, bool) {
		x, ok := n.(map[string]any)
		if t, _ := x["type"].(string); !ok || !strings.EqualFold(t, "SecureString") {
			return nil, false
		}
		if _, ok := x["value"]; !ok {
			return nil, false
		}
		out := bodypath.CopyMap(x)
		out["value"] = secureStringMask
		return out, true
	})
}
