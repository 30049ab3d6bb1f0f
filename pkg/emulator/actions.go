package emulator

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// postResource is a POST on a resource path itself: ARM RPs define none
// the emulator knows, so it answers as an empty action when the resource
// exists.
func (s *Server) postResource(p armid.Path, body map[string]any) reply {
	if s.store.get(p.Raw) == nil {
		return reply{err: s.notFound(p)}
	}
	return reply{status: http.StatusOK, body: map[string]any{}}
}

// postAction answers POST {resource}/{action} and
// POST /subscriptions/{s}/providers/{ns}/{action}. Values are derived from
// the resource's ID, so they are deterministic and distinct per resource.
func (s *Server) postAction(p armid.Path, apiVersion string, body map[string]any) reply {
	action := strings.ToLower(p.Types[len(p.Types)-1])
	if len(p.Names) == 0 {
		// A provider-level action such as checkNameAvailability.
		if action == "checknameavailability" {
			return s.checkNameAvailability(p, body)
		}
		if !knownAction(action) {
			return reply{err: errUnknownAction(p, apiVersion)}
		}
		return reply{status: http.StatusOK, body: map[string]any{}}
	}
	if action == "checknameavailability" && locationScoped(p) {
		// POST /subscriptions/{s}/providers/{ns}/locations/{l}/
		// checkNameAvailability: PostgreSQL and MySQL flexible servers
		// ("Check Name Availability With Location - Execute").
		return s.checkNameAvailability(p, body)
	}
	target := p.ParentID()
	res := s.store.get(target)
	if res == nil {
		if r, ok := s.serviceChildAction(p, action); ok {
			return r
		}
		tp, ok := armid.ParsePath(target)
		if !ok {
			return reply{err: errNotFound(p)}
		}
		return reply{err: s.notFound(tp)}
	}
	id := res.ID
	typ := strings.ToLower(res.Type)
	switch {
	case action == "listkeys" && typ == "microsoft.storage/storageaccounts" && apiVersion < "2016-01-01":
		// The 2015 versions answer the two keys as members (Storage REST
		// 2015-06-15 StorageAccountKeys: key1, key2), as old templates
		// read them: listKeys(id, '2015-06-15').key1.
		return ok(map[string]any{"key1": keyOf(res, "key1", 64), "key2": keyOf(res, "key2", 64)})
	case action == "listkeys" && typ == "microsoft.storage/storageaccounts":
		return ok(storageKeys(res, s.now()))
	case action == "listkeys" && typ == "microsoft.devices/iothubs":
		return ok(map[string]any{"value": iotHubKeys(res)})
	case action == "listcallbackurl" && strings.HasPrefix(typ, "microsoft.logic/"):
		return ok(logicCallback(res))
	case action == "regeneratekey" && typ == "microsoft.storage/storageaccounts":
		// "Storage Accounts - Regenerate Key": {"keyName": "key1"|"key2"
		// (or kerb1/kerb2)}; the answer lists the keys, the named one new.
		name, _ := body["keyName"].(string)
		if !rotate(res, name, "key1", "key2") {
			return reply{err: newError(http.StatusBadRequest, "InvalidValuesForRequestParameters", "Values for request parameters are invalid: keyName.")}
		}
		return ok(storageKeys(res, s.now()))
	case action == "listaccountsas":
		return ok(map[string]any{"accountSasToken": sasToken(id, "account", body)})
	case action == "listsas" && typ == "microsoft.maps/accounts":
		// Azure Maps "Accounts - List Sas" (2023-06-01 AccountSasToken):
		// one token for the body's signing key, principal and expiry.
		return ok(map[string]any{"accountSasToken": "jwt-sv1." + derivedKey(id, fmt.Sprint("maps-sas|", body["signingKey"], "|", body["principalId"], "|", body["expiry"]), 48)})
	case action == "listservicesas":
		return ok(map[string]any{"serviceSasToken": sasToken(id, "service", body)})
	case strings.HasPrefix(action, "listcluster") && strings.HasSuffix(action, "credential"):
		return ok(kubeconfigs(res, strings.TrimSuffix(strings.TrimPrefix(action, "listcluster"), "credential")))
	case action == "listkeys" && strings.HasPrefix(typ, "microsoft.documentdb/"):
		return ok(map[string]any{
			"primaryMasterKey": derivedKey(id, "primaryMasterKey", 64), "secondaryMasterKey": derivedKey(id, "secondaryMasterKey", 64),
			"primaryReadonlyMasterKey": derivedKey(id, "primaryReadonlyMasterKey", 64), "secondaryReadonlyMasterKey": derivedKey(id, "secondaryReadonlyMasterKey", 64),
		})
	case action == "listauthkeys" && typ == "microsoft.datafactory/factories/integrationruntimes":
		return ok(s.integrationRuntimeKeys(res))
	case action == "listcredentials" && typ == "microsoft.containerregistry/registries":
		return ok(map[string]any{"username": p.Names[len(p.Names)-1], "passwords": []any{
			map[string]any{"name": "password", "value": derivedKey(id, "password", 24)},
			map[string]any{"name": "password2", "value": derivedKey(id, "password2", 24)},
		}})
	case (action == "sharedkeys" || action == "listkeys") && typ == "microsoft.operationalinsights/workspaces":
		// Log Analytics: POST workspaces/{name}/sharedKeys (REST
		// reference "Shared Keys - Get Shared Keys"); templates read the
		// same answer through listKeys(workspace).primarySharedKey (the
		// AKS monitoring and VM agent quickstarts).
		return ok(map[string]any{"primarySharedKey": derivedKey(id, "primarySharedKey", 64), "secondarySharedKey": derivedKey(id, "secondarySharedKey", 64)})
	case action == "regeneratekeys" && sasRuleType(typ):
		// Service Bus / Event Hubs / Relay: {"keyType": "PrimaryKey" |
		// "SecondaryKey"} ("Namespaces - Regenerate Keys").
		kt, _ := body["keyType"].(string)
		if !rotate(res, kt, "primarykey", "secondarykey") {
			return reply{err: newError(http.StatusBadRequest, "InvalidRequest", "The keyType must be PrimaryKey or SecondaryKey.")}
		}
		return ok(sasKeys(res))
	case action == "listkeys" && sasRuleType(typ):
		// Service Bus / Event Hubs / Relay authorization rules: keys and
		// the connection strings built from them (REST reference
		// "Namespaces - List Keys": AccessKeys).
		return ok(sasKeys(res))
	case action == "listconnectionstrings" && typ == "microsoft.documentdb/databaseaccounts":
		// Cosmos DB: "Database Accounts - List Connection Strings".
		acct := strings.ToLower(p.Names[0])
		var out []any
		for _, k := range []struct{ kind, key, desc string }{
			{"Primary", "primaryMasterKey", "Primary SQL Connection String"},
			{"Secondary", "secondaryMasterKey", "Secondary SQL Connection String"},
			{"PrimaryReadonly", "primaryReadonlyMasterKey", "Primary Read-Only SQL Connection String"},
			{"SecondaryReadonly", "secondaryReadonlyMasterKey", "Secondary Read-Only SQL Connection String"},
		} {
			out = append(out, map[string]any{"connectionString": "AccountEndpoint=https://" + acct + ".documents.azure.com:443/;AccountKey=" + derivedKey(id, k.key, 64) + ";",
				"description": k.desc, "keyKind": k.kind, "type": "Sql"})
		}
		return ok(map[string]any{"connectionStrings": out})
	case action == "list" && (typ == "microsoft.web/sites/config" || typ == "microsoft.web/sites/slots/config"):
		// App Service: POST {site}/config/appsettings/list answers the
		// settings the site's siteConfig.appSettings or a PUT of
		// config/appsettings set (Web Apps - List Application Settings);
		// the site's GET shows them null.
		return ok(s.siteConfigList(res))
	case action == "listsecrets" && (typ == "microsoft.app/containerapps" || typ == "microsoft.app/jobs"):
		// Container Apps: "Container Apps - List Secrets" answers the
		// secrets' names and values (GET never carries the values).
		var out []any
		for _, sec := range res.Secrets {
			out = append(out, deepCopy(sec))
		}
		if out == nil {
			out = []any{}
		}
		return ok(map[string]any{"value": out})
	case action == "listkeys" || action == "regeneratekeys" || action == "regeneratekey":
		// Search, Cognitive Services, Maps …: one shape covers the common
		// names clients read. A regeneration names its key by keyName
		// (Cognitive Services: Key1/Key2) or keyType (Primary/Secondary).
		if action != "listkeys" {
			name, _ := body["keyName"].(string)
			if name == "" {
				name, _ = body["keyType"].(string)
			}
			switch strings.ToLower(name) {
			case "primary", "primarykey":
				name = "primaryKey"
			case "secondary", "secondarykey":
				name = "secondaryKey"
			}
			if !rotate(res, name, "key1", "key2", "primarykey", "secondarykey") {
				return reply{err: newError(http.StatusBadRequest, "InvalidRequest", "The key to regenerate must be named: keyName Key1 or Key2, or keyType Primary or Secondary.")}
			}
		}
		return ok(map[string]any{
			"primaryKey": keyOf(res, "primaryKey", 32), "secondaryKey": keyOf(res, "secondaryKey", 32),
			"key1": keyOf(res, "key1", 32), "key2": keyOf(res, "key2", 32),
			"keyName": p.Names[len(p.Names)-1],
		})
	}
	if !knownAction(action) {
		// ARM routes only the actions a provider registers; anything else
		// is refused, never answered with an empty success.
		return reply{err: errUnknownAction(p, apiVersion)}
	}
	return reply{status: http.StatusOK, body: map[string]any{}}
}

func ok(body map[string]any) reply { return reply{status: http.StatusOK, body: body} }

// storageKeys is the listKeys answer of a storage account: key1, key2 and,
// with ?$expand=kerb, nothing more (the emulator has no Kerberos keys).
func storageKeys(res *resource, now time.Time) map[string]any {
	created := now.UTC().Truncate(24 * time.Hour).Format(time.RFC3339Nano)
	return map[string]any{"keys": []any{
		map[string]any{"keyName": "key1", "value": keyOf(res, "key1", 64), "permissions": "FULL", "creationTime": created},
		map[string]any{"keyName": "key2", "value": keyOf(res, "key2", 64), "permissions": "FULL", "creationTime": created},
	}}
}

// keyOf is the current value of the key named name: derived from the ID,
// the name and how often it was regenerated. Caller holds s.mu.
func keyOf(res *resource, name string, n int) string {
	if g := res.KeyGen[strings.ToLower(name)]; g > 0 {
		return derivedKey(res.ID, fmt.Sprintf("%s@%d", name, g), n)
	}
	return derivedKey(res.ID, name, n)
}

// rotate regenerates the key named name (case-insensitively one of
// allowed), reporting false for any other name. Caller holds s.mu.
func rotate(res *resource, name string, allowed ...string) bool {
	k := strings.ToLower(name)
	for _, a := range allowed {
		if k == a {
			if res.KeyGen == nil {
				res.KeyGen = map[string]int{}
			}
			res.KeyGen[k]++
			return true
		}
	}
	return false
}

// sasToken builds a SAS-shaped query string signed with a derived value.
func sasToken(id, kind string, body map[string]any) string {
	str := func(k, def string) string {
		if v, ok := body[k].(string); ok && v != "" {
			return v
		}
		return def
	}
	expiry := str("signedExpiry", str("sharedAccessExpiryTime", "2030-01-01T00:00:00Z"))
	perms := str("signedPermission", str("permissions", "r"))
	sig := derivedKey(id, kind+"|"+perms+"|"+expiry, 32)
	return fmt.Sprintf("sv=2022-11-02&ss=%s&srt=%s&sp=%s&se=%s&spr=https&sig=%s",
		str("signedServices", "b"), str("signedResourceTypes", "sco"), perms, expiry, strings.NewReplacer("+", "%2B", "/", "%2F", "=", "%3D").Replace(sig))
}

// kubeconfigs is AKS's credential-list answer for role (user, admin,
// monitoringuser): one kubeconfig naming the cluster's FQDN and a token
// derived from the cluster ID.
func kubeconfigs(res *resource, role string) map[string]any {
	props, _ := res.Body["properties"].(map[string]any)
	fqdn, _ := props["fqdn"].(string)
	name := res.ID[strings.LastIndex(res.ID, "/")+1:]
	if role == "" {
		role = "user"
	}
	user := "clusterUser_" + name
	if role == "admin" {
		user = "clusterAdmin_" + name
	}
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority-data: %s
    server: https://%s:443
  name: %s
contexts:
- context:
    cluster: %s
    user: %s
  name: %s
current-context: %s
users:
- name: %s
  user:
    token: %s
`, derivedKey(res.ID, "ca", 48), fqdn, name, name, user, name, name, user, derivedHex(res.ID, "token-"+role, 64))
	key := "cluster" + strings.ToUpper(role[:1]) + role[1:]
	return map[string]any{"kubeconfigs": []any{map[string]any{"name": key, "value": base64.StdEncoding.EncodeToString([]byte(cfg))}}}
}

// checkNameAvailability answers the provider action for globally named
// types (storage accounts, key vaults, …): taken when any stored resource
// of that type, in any subscription, has the name, or the name breaks the
// type's rules.
func (s *Server) checkNameAvailability(p armid.Path, body map[string]any) reply {
	name, _ := body["name"].(string)
	typ, _ := body["type"].(string)
	if typ == "" {
		typ = p.Provider + "/" + defaultNameType(p.Provider)
	}
	if !strings.Contains(typ, "/") {
		typ = p.Provider + "/" + typ
	}
	if name == "" {
		return reply{err: newError(http.StatusBadRequest, "InvalidRequestContent", "checkNameAvailability needs a body {\"name\": NAME, \"type\": TYPE}.")}
	}
	if err := validateName(typ, name); err != nil {
		return ok(map[string]any{"nameAvailable": false, "reason": "AccountNameInvalid", "message": err.Message})
	}
	for _, r := range s.store.res {
		rp, okp := armid.ParsePath(r.ID)
		if okp && rp.Kind == armid.PathResource && strings.EqualFold(rp.Type(), typ) && strings.EqualFold(rp.Name(), name) {
			return ok(map[string]any{"nameAvailable": false, "reason": "AlreadyExists",
				"message": fmt.Sprintf("The name %s is already taken. Choose another name.", name)})
		}
	}
	return ok(map[string]any{"nameAvailable": true})
}

// locationScoped reports whether p is a provider action under one of the
// provider's locations, outside any resource group.
func locationScoped(p armid.Path) bool {
	return p.ResourceGroup == "" && len(p.Types) == 2 && len(p.Names) == 1 && strings.EqualFold(p.Types[0], "locations")
}

func defaultNameType(ns string) string {
	switch strings.ToLower(ns) {
	case "microsoft.dbforpostgresql", "microsoft.dbformysql":
		return "flexibleServers"
	case "microsoft.keyvault":
		return "vaults"
	case "microsoft.containerregistry":
		return "registries"
	}
	return "storageAccounts"
}

// sasRuleType reports whether typ is a Service Bus, Event Hubs or Relay
// namespace or entity authorization rule (or the namespace itself).
func sasRuleType(typ string) bool {
	for _, ns := range []string{"microsoft.servicebus/", "microsoft.eventhub/", "microsoft.relay/"} {
		if strings.HasPrefix(typ, ns) && strings.HasSuffix(typ, "/authorizationrules") {
			return true
		}
	}
	return false
}

// sasKeys is the AccessKeys answer for an authorization rule: keys derived
// from its ID and connection strings naming the namespace's endpoint (and
// the entity, for a queue, topic or event hub rule).
func sasKeys(rule *resource) map[string]any {
	p, _ := armid.ParsePath(rule.ID)
	ns := strings.ToLower(p.Names[0])
	suffix := ".servicebus.windows.net"
	name := p.Names[len(p.Names)-1]
	entity := ""
	if len(p.Names) == 3 {
		entity = ";EntityPath=" + p.Names[1]
	}
	k1, k2 := keyOf(rule, "primaryKey", 32), keyOf(rule, "secondaryKey", 32)
	cs := func(k string) string {
		return "Endpoint=sb://" + ns + suffix + "/;SharedAccessKeyName=" + name + ";SharedAccessKey=" + k + entity
	}
	out := map[string]any{"primaryKey": k1, "secondaryKey": k2, "keyName": name,
		"primaryConnectionString": cs(k1), "secondaryConnectionString": cs(k2)}
	if strings.EqualFold(p.Provider, "Microsoft.ServiceBus") || strings.EqualFold(p.Provider, "Microsoft.EventHub") {
		out["aliasPrimaryConnectionString"], out["aliasSecondaryConnectionString"] = nil, nil
	}
	return out
}

// siteConfigList is the answer of config/appsettings/list or
// config/connectionstrings/list for the config resource res (stored, or
// the settings the site's own body carried). Caller holds s.mu.
func (s *Server) siteConfigList(res *resource) map[string]any {
	props := asMap(deepCopy(res.Body["properties"]))
	if props == nil {
		props = map[string]any{}
	}
	delete(props, "provisioningState")
	return map[string]any{"id": res.ID, "name": res.ID[strings.LastIndex(res.ID, "/")+1:], "type": res.Type, "properties": props}
}

// iotHubKeys are an IoT hub's shared access policies, as a new hub has
// them (IoT Hub REST "Iot Hub Resource - List Keys"; Microsoft Learn
// "Control access to IoT Hub": iothubowner, service, device, registryRead,
// registryReadWrite).
func iotHubKeys(res *resource) []any {
	policies := []struct{ name, rights string }{
		{"iothubowner", "RegistryWrite, ServiceConnect, DeviceConnect"},
		{"service", "ServiceConnect"},
		{"device", "DeviceConnect"},
		{"registryRead", "RegistryRead"},
		{"registryReadWrite", "RegistryWrite"},
	}
	// A hub created with its own authorizationPolicies has those.
	if own := res.Secrets; len(own) > 0 {
		policies = policies[:0]
		for _, p := range own {
			policies = append(policies, struct{ name, rights string }{str0(asMap(p)["keyName"]), str0(asMap(p)["rights"])})
		}
	}
	out := make([]any, 0, len(policies))
	for _, p := range policies {
		out = append(out, map[string]any{"keyName": p.name, "rights": p.rights,
			"primaryKey": keyOf(res, p.name+"/primary", 32), "secondaryKey": keyOf(res, p.name+"/secondary", 32)})
	}
	return out
}

// logicCallback is a workflow's or integration account's callback URL
// (Logic Apps REST "Workflows - List Callback Url", "Integration Accounts
// - List Callback Url": value), signed with a key derived from its ID.
func logicCallback(res *resource) map[string]any {
	loc := LocationKey(str0(res.Body["location"]))
	p, _ := armid.ParsePath(res.ID)
	kind := "workflows"
	if strings.EqualFold(p.Types[0], "integrationAccounts") {
		kind = "integrationAccounts"
	}
	base := "https://prod-00." + loc + ".logic.azure.com:443/" + kind + "/" + derivedHex(res.ID, "logicId", 32)
	return map[string]any{"value": base + "?api-version=2016-06-01&sp=%2F%2F%2A&sv=1.0&sig=" + derivedHex(res.ID, "logicSig", 43),
		"method": "POST", "basePath": base}
}

// integrationRuntimeKeys answers "Integration Runtimes - List Auth Keys"
// (authKey1, authKey2) in the form self-hosted runtimes register with, as
// public setup scripts show it:
// IR@{guid}@{factory}@ServiceEndpoint={factory}.{region}.datafactory.azure.net@{base64 key}.
// Caller holds s.mu.
func (s *Server) integrationRuntimeKeys(ir *resource) map[string]any {
	factoryID := ir.ID[:strings.LastIndex(strings.ToLower(ir.ID), "/integrationruntimes/")]
	factory := factoryID[strings.LastIndex(factoryID, "/")+1:]
	region := "westeurope"
	if f := s.store.get(factoryID); f != nil {
		if l, _ := f.Body["location"].(string); l != "" {
			region = LocationKey(l)
		}
	}
	prefix := "IR@" + derivedGUID(factoryID, "integrationRuntimeKeys") + "@" + factory + "@ServiceEndpoint=" + strings.ToLower(factory) + "." + region + ".datafactory.azure.net@"
	return map[string]any{"authKey1": prefix + derivedKey(ir.ID, "authKey1", 32), "authKey2": prefix + derivedKey(ir.ID, "authKey2", 32)}
}
