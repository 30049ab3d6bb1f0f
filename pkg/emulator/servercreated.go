package emulator

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// What resource providers create or fill in on their own, which a plan
// must see to stay quiet (sources per entry).

// derivedChild is a child the RP creates with its parent.
type derivedChild struct {
	segment, name string
	body          func(parent *resource) map[string]any
}

var rpChildren = map[string][]derivedChild{
	// Service Bus, Event Hubs and Relay namespaces come with the
	// RootManageSharedAccessKey rule (Listen, Manage, Send). Source:
	// Microsoft Learn "Service Bus authentication with SAS" / "Event Hubs
	// … shared access signatures": "every namespace has a
	// RootManageSharedAccessKey".
	"microsoft.servicebus/namespaces": {rootSASRule},
	"microsoft.eventhub/namespaces":   {rootSASRule},
	"microsoft.relay/namespaces":      {rootSASRule},
	// Every event hub has the $Default consumer group (Microsoft Learn
	// "Event Hubs features": "a default consumer group is created").
	"microsoft.eventhub/namespaces/eventhubs": {{"consumergroups", "$Default", func(*resource) map[string]any {
		return map[string]any{"properties": map[string]any{}}
	}}},
	// A logical SQL server has the master database (Microsoft Learn "What
	// is a logical server": master is created with the server; its GET
	// shows sku System).
	"microsoft.sql/servers": {{"databases", "master", func(p *resource) map[string]any {
		return map[string]any{"location": p.Body["location"], "kind": "v12.0,system",
			"sku":        map[string]any{"name": "System", "tier": "System", "capacity": jsonNum(0)},
			"properties": map[string]any{"collation": "SQL_Latin1_General_CP1_CI_AS", "status": "Online", "maxSizeBytes": jsonNumber("32212254720"), "catalogCollation": "SQL_Latin1_General_CP1_CI_AS"}}
	}}},
	// A PostgreSQL flexible server has the postgres, azure_maintenance and
	// azure_sys databases (Microsoft Learn "Azure Database for PostgreSQL
	// flexible server – databases").
	"microsoft.dbforpostgresql/flexibleservers": {
		pgDatabase("postgres"), pgDatabase("azure_maintenance"), pgDatabase("azure_sys"),
	},
	// A site and a slot have config/web, the siteConfig as a resource
	// (App Service REST: Web Apps - Get Configuration).
	"microsoft.web/sites":       {webConfig},
	"microsoft.web/sites/slots": {webConfig},
}

var rootSASRule = derivedChild{"authorizationRules", "RootManageSharedAccessKey", func(*resource) map[string]any {
	return map[string]any{"properties": map[string]any{"rights": []any{"Listen", "Manage", "Send"}}}
}}

func pgDatabase(name string) derivedChild {
	return derivedChild{"databases", name, func(*resource) map[string]any {
		return map[string]any{"properties": map[string]any{"charset": "UTF8", "collation": "en_US.utf8"}}
	}}
}

var webConfig = derivedChild{"config", "web", func(p *resource) map[string]any {
	sc := deepCopy(asMap(asMap(p.Body["properties"])["siteConfig"]))
	if sc == nil {
		sc = map[string]any{}
	}
	// The settings live in config/appsettings; config/web answers them null.
	sc["appSettings"], sc["connectionStrings"] = nil, nil
	return map[string]any{"location": p.Body["location"], "properties": sc}
}}

// addRPChildren creates the children rpChildren lists for res's type.
// Caller holds s.mu.
func (s *Server) addRPChildren(res *resource) {
	for _, c := range rpChildren[strings.ToLower(res.Type)] {
		id := res.ID + "/" + c.segment + "/" + c.name
		if s.store.get(id) != nil {
			continue
		}
		typ := res.Type + "/" + c.segment
		body := c.body(res)
		body["id"], body["name"], body["type"] = id, c.name, typ
		setProvisioningState(body, "Succeeded")
		s.store.put(&resource{ID: id, Type: typ, APIVersion: res.APIVersion, Body: body, Created: s.now(), Changed: s.now(), Derived: true})
	}
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
// the resource had.
func keptSecrets(typ string, req map[string]any, prev *resource) []any {
	lt := strings.ToLower(typ)
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
