package emulator

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// What resource providers create or fill in on their own, which a plan
// must see to stay quiet (sources per entry).

// childBodies are the bodies the emulator gives the children of
// schema.ServerCreatedUnder (the one table of what services create with a
// parent, with its evidence), by lower-cased "child type/name". A table
// entry without a body here is not created (its type is served some other
// way, or not at all); a body here without a table entry is a test
// failure (TestChildBodiesAreInTheTable).
var childBodies = map[string]func(parent *resource) map[string]any{
	"microsoft.servicebus/namespaces/authorizationrules/rootmanagesharedaccesskey": rootSASRule,
	"microsoft.eventhub/namespaces/authorizationrules/rootmanagesharedaccesskey":   rootSASRule,
	"microsoft.relay/namespaces/authorizationrules/rootmanagesharedaccesskey":      rootSASRule,
	"microsoft.eventhub/namespaces/eventhubs/consumergroups/$default": func(*resource) map[string]any {
		return map[string]any{"properties": map[string]any{}}
	},
	// master's GET shows sku System (Microsoft Learn "What is a logical
	// server").
	"microsoft.sql/servers/databases/master": func(p *resource) map[string]any {
		return map[string]any{"location": p.Body["location"], "kind": "v12.0,system",
			"sku":        map[string]any{"name": "System", "tier": "System", "capacity": jsonNum(0)},
			"properties": map[string]any{"collation": "SQL_Latin1_General_CP1_CI_AS", "status": "Online", "maxSizeBytes": jsonNumber("32212254720"), "catalogCollation": "SQL_Latin1_General_CP1_CI_AS"}}
	},
	"microsoft.dbforpostgresql/flexibleservers/databases/postgres":          pgDatabase,
	"microsoft.dbforpostgresql/flexibleservers/databases/azure_maintenance": pgDatabase,
	"microsoft.dbforpostgresql/flexibleservers/databases/azure_sys":         pgDatabase,
	"microsoft.dbformysql/flexibleservers/databases/information_schema":     mysqlDatabase,
	"microsoft.dbformysql/flexibleservers/databases/mysql":                  mysqlDatabase,
	"microsoft.dbformysql/flexibleservers/databases/performance_schema":     mysqlDatabase,
	"microsoft.dbformysql/flexibleservers/databases/sys":                    mysqlDatabase,
	// The storage services' defaults as a new account answers them
	// (Storage REST "Blob Services - Get Service Properties", "File
	// Services - Get Service Properties").
	"microsoft.storage/storageaccounts/blobservices/default":  storageService(map[string]any{"cors": map[string]any{"corsRules": []any{}}, "deleteRetentionPolicy": map[string]any{"allowPermanentDelete": false, "enabled": false}}),
	"microsoft.storage/storageaccounts/fileservices/default":  storageService(map[string]any{"cors": map[string]any{"corsRules": []any{}}, "protocolSettings": map[string]any{"smb": map[string]any{}}, "shareDeleteRetentionPolicy": map[string]any{"enabled": true, "days": jsonNum(7)}}),
	"microsoft.storage/storageaccounts/queueservices/default": storageService(map[string]any{"cors": map[string]any{"corsRules": []any{}}}),
	"microsoft.storage/storageaccounts/tableservices/default": storageService(map[string]any{"cors": map[string]any{"corsRules": []any{}}}),
}

// siteChildren: a site and a slot have config/web, the siteConfig as a
// resource (App Service REST: Web Apps - Get Configuration). The table
// lists every config name as server-created, so this one is named here.
var siteChildren = map[string]bool{"microsoft.web/sites": true, "microsoft.web/sites/slots": true}

// rootSASRule: Listen, Manage, Send (Microsoft Learn, Service Bus SAS).
func rootSASRule(*resource) map[string]any {
	return map[string]any{"properties": map[string]any{"rights": []any{"Listen", "Manage", "Send"}}}
}

func pgDatabase(*resource) map[string]any {
	return map[string]any{"properties": map[string]any{"charset": "UTF8", "collation": "en_US.utf8"}}
}

// mysqlDatabase: MySQL 8's server defaults (charset utf8mb4, collation
// utf8mb4_0900_ai_ci; MySQL 8.0 Reference Manual, "Character Sets and
// Collations in MySQL").
func mysqlDatabase(*resource) map[string]any {
	return map[string]any{"properties": map[string]any{"charset": "utf8mb4", "collation": "utf8mb4_0900_ai_ci"}}
}

// stateless children answer no provisioningState: the storage services'
// GET has none (Storage REST examples).
var stateless = map[string]bool{
	"microsoft.storage/storageaccounts/blobservices": true, "microsoft.storage/storageaccounts/fileservices": true,
	"microsoft.storage/storageaccounts/queueservices": true, "microsoft.storage/storageaccounts/tableservices": true,
}

func storageService(props map[string]any) func(*resource) map[string]any {
	return func(*resource) map[string]any { return map[string]any{"properties": deepCopy(props)} }
}

func webConfig(p *resource) map[string]any {
	sc := deepCopy(asMap(asMap(p.Body["properties"])["siteConfig"]))
	if sc == nil {
		sc = map[string]any{}
	}
	// The settings live in config/appsettings; config/web answers them null.
	sc["appSettings"], sc["connectionStrings"] = nil, nil
	return map[string]any{"location": p.Body["location"], "properties": sc}
}

// addRPChildren creates the children the service creates with res: those
// of schema.ServerCreatedUnder that childBodies can build, and a site's
// config/web. Caller holds s.mu.
func (s *Server) addRPChildren(res *resource) {
	for _, c := range schema.ServerCreatedUnder(res.Type) {
		if b := childBodies[strings.ToLower(c.Type+"/"+c.Name)]; b != nil {
			s.addDerived(res, c.Segment(), c.Name, b)
		}
	}
	if siteChildren[strings.ToLower(res.Type)] {
		s.addDerived(res, "config", "web", webConfig)
	}
	if strings.EqualFold(res.Type, "Microsoft.Web/sites") {
		s.addDerived(res, "config", "slotConfigNames", slotConfigNames)
	}
}

// addDerived stores res's child segment/name with the body build makes,
// unless it exists. Caller holds s.mu.
func (s *Server) addDerived(res *resource, segment, name string, build func(*resource) map[string]any) {
	id := res.ID + "/" + segment + "/" + name
	if s.store.get(id) != nil {
		return
	}
	typ := res.Type + "/" + segment
	body := build(res)
	body["id"], body["name"], body["type"] = id, name, typ
	if !stateless[strings.ToLower(typ)] {
		setProvisioningState(body, "Succeeded")
	}
	s.store.put(&resource{ID: id, Type: typ, APIVersion: res.APIVersion, Body: body, Created: s.now(), Changed: s.now(), Derived: true})
}

// fillServerFields sets values the RP computes: DNS zone name servers and
// record-set FQDNs (Azure DNS REST: Zones - Get, RecordSets - Get), a
// site's and a slot's default host name (App Service: "<site>.
// azurewebsites.net", "<site>-<slot>.azurewebsites.net").
func fillServerFields(id, typ string, body map[string]any) {
	p, ok := armid.ParsePath(id)
	if !ok {
		return
	}
	lt := strings.ToLower(typ)
	props := asMap(body["properties"])
	if props == nil {
		switch {
		case lt == "microsoft.network/dnszones", lt == "microsoft.web/sites", lt == "microsoft.web/sites/slots", dnsRecordType(lt):
			props = map[string]any{}
			body["properties"] = props
		default:
			return
		}
	}
	switch {
	case lt == "microsoft.network/dnszones":
		n := digest(id, "nameServers")[0]%4 + 1
		props["nameServers"] = []any{
			fmt.Sprintf("ns1-0%d.azure-dns.com.", n), fmt.Sprintf("ns2-0%d.azure-dns.net.", n),
			fmt.Sprintf("ns3-0%d.azure-dns.org.", n), fmt.Sprintf("ns4-0%d.azure-dns.info.", n),
		}
		if _, ok := props["maxNumberOfRecordSets"]; !ok {
			props["maxNumberOfRecordSets"] = jsonNum(10000)
		}
		if _, ok := props["zoneType"]; !ok {
			props["zoneType"] = "Public"
		}
	case dnsRecordType(lt):
		if len(p.Names) == 2 {
			zone, rec := strings.ToLower(p.Names[0]), p.Names[1]
			if rec == "@" {
				props["fqdn"] = zone + "."
			} else {
				props["fqdn"] = rec + "." + zone + "."
			}
		}
	case lt == "microsoft.web/sites":
		host := strings.ToLower(p.Name()) + ".azurewebsites.net"
		props["defaultHostName"] = host
		props["hostNames"] = []any{host}
		props["enabledHostNames"] = []any{host, strings.ToLower(p.Name()) + ".scm.azurewebsites.net"}
	case lt == "microsoft.web/sites/slots" && len(p.Names) == 2:
		host := strings.ToLower(p.Names[0]+"-"+p.Names[1]) + ".azurewebsites.net"
		props["defaultHostName"] = host
		props["hostNames"] = []any{host}
		props["enabledHostNames"] = []any{host, strings.ToLower(p.Names[0]+"-"+p.Names[1]) + ".scm.azurewebsites.net"}
	}
}

// dnsRecordType reports whether lt (lower-cased) is a DNS record-set type
// of a public or private zone.
func dnsRecordType(lt string) bool {
	for _, z := range []string{"microsoft.network/dnszones/", "microsoft.network/privatednszones/"} {
		if rest, ok := strings.CutPrefix(lt, z); ok {
			switch rest {
			case "a", "aaaa", "caa", "cname", "mx", "ns", "ptr", "soa", "srv", "txt", "ds", "naptr", "tlsa":
				return true
			}
		}
	}
	return false
}

// keptSecrets is what listSecrets answers for a container app or job: the
// configuration.secrets the last write sent (names and values), else what
// the resource had; for an IoT hub, the policies listkeys answers.
func keptSecrets(typ string, req map[string]any, prev *resource) []any {
	lt := strings.ToLower(typ)
	if lt == "microsoft.devices/iothubs" {
		// An IoT hub's authorizationPolicies, which its GET leaves out
		// and listkeys answers.
		if pols, ok := asMap(req["properties"])["authorizationPolicies"].([]any); ok {
			return deepCopy(pols)
		}
		if prev != nil {
			return prev.Secrets
		}
		return nil
	}
	if lt != "microsoft.app/containerapps" && lt != "microsoft.app/jobs" {
		return nil
	}
	if secs, ok := asMap(asMap(req["properties"])["configuration"])["secrets"].([]any); ok {
		return deepCopy(secs)
	}
	if prev != nil {
		return prev.Secrets
	}
	return nil
}

// Diagnostic settings outlive their resource: deleting a resource leaves
// its Microsoft.Insights/diagnosticSettings behind, and creating a
// resource with the same ID brings them back. Source: Microsoft Learn
// "Diagnostic settings in Azure Monitor" (resource deletion: the settings
// are not removed with the resource and apply again to a resource
// re-created with the same name). Caller holds s.mu.
func (s *Server) keepDiagnosticSettings(deleted string) {
	for _, r := range s.store.ofType("microsoft.insights/diagnosticsettings") {
		if armid.Contains(deleted, r.ID) {
			s.orphanDiag[armid.Key(r.ID)] = r
		}
	}
}

func (s *Server) restoreDiagnosticSettings(created string) {
	for k, r := range s.orphanDiag {
		p, ok := armid.ParsePath(r.ID)
		if ok && armid.Equal(p.Scope, created) {
			s.store.put(r)
			delete(s.orphanDiag, k)
		}
	}
}

// pgParameters are server parameters every PostgreSQL flexible server has,
// with their defaults: GET …/configurations/{name} answers them before any
// PUT, and the list shows them (ARM REST "Configurations - Get / List By
// Server"; defaults from Microsoft Learn "Server parameters in Azure
// Database for PostgreSQL flexible server").
var pgParameters = map[string]struct{ value, dataType string }{
	"require_secure_transport":            {"on", "Boolean"},
	"azure.extensions":                    {"", "Set"},
	"shared_preload_libraries":            {"pg_cron,pg_stat_statements", "Set"},
	"log_min_duration_statement":          {"-1", "Integer"},
	"log_connections":                     {"on", "Boolean"},
	"log_disconnections":                  {"on", "Boolean"},
	"log_checkpoints":                     {"on", "Boolean"},
	"work_mem":                            {"4096", "Integer"},
	"timezone":                            {"UTC", "Enumeration"},
	"ssl_min_protocol_version":            {"TLSv1.2", "Enumeration"},
	"password_encryption":                 {"scram-sha-256", "Enumeration"},
	"statement_timeout":                   {"0", "Integer"},
	"idle_in_transaction_session_timeout": {"0", "Integer"},
	"pgbouncer.enabled":                   {"false", "Boolean"},
}

// servePGParameters answers GET of a parameter no client wrote yet, and
// the list with every parameter. Caller holds s.mu.
func (s *Server) servePGParameters(r *http.Request, p armid.Path) (reply, bool) {
	if r.Method != http.MethodGet || !strings.EqualFold(p.Type(), "Microsoft.DBforPostgreSQL/flexibleServers/configurations") {
		return reply{}, false
	}
	server := s.store.get(p.ParentID())
	if server == nil {
		return reply{}, false
	}
	view := func(name string) map[string]any {
		d := pgParameters[name]
		return map[string]any{"id": server.ID + "/configurations/" + name, "name": name, "type": "Microsoft.DBforPostgreSQL/flexibleServers/configurations",
			"properties": map[string]any{"value": d.value, "defaultValue": d.value, "dataType": d.dataType, "source": "system-default",
				"isDynamicConfig": true, "isReadOnly": false, "isConfigPendingRestart": false}}
	}
	switch p.Kind {
	case armid.PathResource:
		name := strings.ToLower(p.Name())
		if _, ok := pgParameters[name]; !ok || s.store.get(p.Raw) != nil {
			return reply{}, false
		}
		return ok200(view(name)), true
	case armid.PathCollection:
		byName := map[string]any{}
		for n := range pgParameters {
			byName[n] = view(n)
		}
		for _, c := range s.store.children(server.ID, p.Type()) {
			cp, _ := armid.ParsePath(c.ID)
			byName[strings.ToLower(cp.Name())] = withEnvelope(c)
		}
		names := make([]string, 0, len(byName))
		for n := range byName {
			names = append(names, n)
		}
		sort.Strings(names)
		items := make([]any, 0, len(names))
		for _, n := range names {
			items = append(items, byName[n])
		}
		return s.page(r, items), true
	}
	return reply{}, false
}

// syncSiteSettings keeps a site's app settings and connection strings,
// which its GET shows null, in config/appsettings and
// config/connectionstrings, as App Service does: a site PUT whose
// siteConfig carries them sets those resources, and POST …/list reads
// them back (Web Apps - List Application Settings / List Connection
// Strings). Caller holds s.mu.
func (s *Server) syncSiteSettings(res *resource, req map[string]any) {
	lt := strings.ToLower(res.Type)
	if lt != "microsoft.web/sites" && lt != "microsoft.web/sites/slots" {
		return
	}
	sc := asMap(asMap(req["properties"])["siteConfig"])
	put := func(name string, props map[string]any) {
		id := res.ID + "/config/" + name
		body := map[string]any{"id": id, "name": name, "type": res.Type + "/config", "location": res.Body["location"], "properties": props}
		s.store.put(&resource{ID: id, Type: res.Type + "/config", APIVersion: res.APIVersion, Body: body, Created: s.now(), Changed: s.now(), Derived: true})
	}
	if list, ok := sc["appSettings"].([]any); ok {
		props := map[string]any{}
		for _, it := range list {
			if n, _ := asMap(it)["name"].(string); n != "" {
				props[n] = asMap(it)["value"]
			}
		}
		put("appsettings", props)
	}
	if list, ok := sc["connectionStrings"].([]any); ok {
		props := map[string]any{}
		for _, it := range list {
			m := asMap(it)
			if n, _ := m["name"].(string); n != "" {
				props[n] = map[string]any{"value": m["connectionString"], "type": m["type"]}
			}
		}
		put("connectionstrings", props)
	}
}
