package schema

import "strings"

// ServerCreatedChild is a child resource a service creates with its
// parent and deletes with it: configuration or system data of the parent,
// never something a person made. The emulator creates them, the cascade
// check of a delete lists them as going with their parent without asking
// for --allow-cascade, and import does not turn them into manifests.
type ServerCreatedChild struct {
	// Type is the child's full type; its parent type is Type without the
	// last segment.
	Type string
	// Name is the child's name: exact (case-insensitive), "" for every
	// child of the type, or "*.suffix" for names ending so.
	Name string
}

// serverCreated is the one table of server-created children. Each entry
// cites its evidence; a child not listed here that a delete would take
// along still needs --allow-cascade (a second authorization rule, a
// consumer group "cg1").
var serverCreated = []ServerCreatedChild{
	// Every Service Bus, Event Hubs and Relay namespace has the
	// RootManageSharedAccessKey rule (Listen, Manage, Send). Microsoft
	// Learn "Service Bus authentication and authorization" and "Event
	// Hubs: authorize access with shared access signatures": "every
	// namespace has a RootManageSharedAccessKey authorization rule".
	{"Microsoft.ServiceBus/namespaces/AuthorizationRules", "RootManageSharedAccessKey"},
	{"Microsoft.EventHub/namespaces/authorizationRules", "RootManageSharedAccessKey"},
	{"Microsoft.Relay/namespaces/authorizationRules", "RootManageSharedAccessKey"},
	// Every event hub has the $Default consumer group. Microsoft Learn
	// "Features and terminology in Azure Event Hubs", consumer groups:
	// "there's always a default consumer group in an event hub".
	{"Microsoft.EventHub/namespaces/eventhubs/consumergroups", "$Default"},
	// A logical SQL server's master database is created with it (Microsoft
	// Learn "What is a logical server in Azure SQL Database": the server
	// has a master database; its GET shows sku System).
	{"Microsoft.Sql/servers/databases", "master"},
	// A PostgreSQL flexible server has the postgres, azure_maintenance and
	// azure_sys databases (Microsoft Learn "Azure Database for PostgreSQL
	// flexible server: databases": the three system databases every server
	// has).
	{"Microsoft.DBforPostgreSQL/flexibleServers/databases", "postgres"},
	{"Microsoft.DBforPostgreSQL/flexibleServers/databases", "azure_maintenance"},
	{"Microsoft.DBforPostgreSQL/flexibleServers/databases", "azure_sys"},
	// A MySQL flexible server lists MySQL's system schemas as databases
	// (MySQL 8.0 Reference Manual, "The mysql System Schema",
	// "INFORMATION_SCHEMA", "Performance Schema", "The sys Schema": every
	// server has them).
	{"Microsoft.DBforMySQL/flexibleServers/databases", "information_schema"},
	{"Microsoft.DBforMySQL/flexibleServers/databases", "mysql"},
	{"Microsoft.DBforMySQL/flexibleServers/databases", "performance_schema"},
	{"Microsoft.DBforMySQL/flexibleServers/databases", "sys"},
	// Server parameters exist for every server, each with its default,
	// and have no DELETE (ARM REST "Configurations - List By Server"; the
	// specs' configurations paths define GET and PUT only).
	{"Microsoft.DBforPostgreSQL/flexibleServers/configurations", ""},
	{"Microsoft.DBforMySQL/flexibleServers/configurations", ""},
	// An AKS cluster's agent pools are its own compute, created from the
	// cluster's agentPoolProfiles (required on create) and deleted with
	// it; their machines and upgrade profiles are read-only views
	// (ARM REST "Managed Clusters - Create Or Update", "Agent Pools",
	// "Machines - List").
	{"Microsoft.ContainerService/managedClusters/agentPools", ""},
	{"Microsoft.ContainerService/managedClusters/agentPools/machines", ""},
	{"Microsoft.ContainerService/managedClusters/agentPools/upgradeProfiles", ""},
	{"Microsoft.ContainerService/managedClusters/upgradeProfiles", ""},
	// A storage account's blob, file, queue and table services are
	// singletons named "default" with no DELETE (Storage REST "Blob
	// Services - Get Service Properties": "The name of the blob Service
	// within the specified storage account. Blob Service Name must be
	// 'default'"; likewise file, queue and table services).
	{"Microsoft.Storage/storageAccounts/blobServices", "default"},
	{"Microsoft.Storage/storageAccounts/fileServices", "default"},
	{"Microsoft.Storage/storageAccounts/queueServices", "default"},
	{"Microsoft.Storage/storageAccounts/tableServices", "default"},
	// A site's (and a slot's) config singletons (web, appsettings, logs,
	// ...) hold the site's configuration (App Service REST "Web Apps - Get
	// Configuration"); the publishing-credentials policies ftp and scm,
	// and the host name binding of its default host name, come with the
	// site ("Web Apps - Get Ftp Allowed", "Web Apps - List Host Name
	// Bindings": <site>.azurewebsites.net).
	{"Microsoft.Web/sites/config", ""},
	{"Microsoft.Web/sites/slots/config", ""},
	{"Microsoft.Web/sites/basicPublishingCredentialsPolicies", ""},
	{"Microsoft.Web/sites/slots/basicPublishingCredentialsPolicies", ""},
	{"Microsoft.Web/sites/hostNameBindings", "*.azurewebsites.net"},
	{"Microsoft.Web/sites/slots/hostNameBindings", "*.azurewebsites.net"},
	// An NSG's six default rules (Microsoft Learn "Network security
	// groups": default security rules, which cannot be removed).
	{"Microsoft.Network/networkSecurityGroups/defaultSecurityRules", ""},
	// A DNS zone's apex SOA and NS record sets are created with the zone
	// and cannot be deleted (Microsoft Learn "DNS zones and records": "SOA
	// and NS records at the zone apex are created automatically").
	{"Microsoft.Network/dnsZones/SOA", "@"},
	{"Microsoft.Network/dnsZones/NS", "@"},
	{"Microsoft.Network/privateDnsZones/SOA", "@"},
	// A vault's access policies are part of the vault's body
	// (properties.accessPolicies), not resources of their own.
	{"Microsoft.KeyVault/vaults/accessPolicies", ""},
}

// serverCreatedIndex is serverCreated by lower-cased type.
var serverCreatedIndex = func() map[string][]ServerCreatedChild {
	out := map[string][]ServerCreatedChild{}
	for _, c := range serverCreated {
		k := strings.ToLower(c.Type)
		out[k] = append(out[k], c)
	}
	return out
}()

// matches reports whether name is this entry's name.
func (c ServerCreatedChild) matches(name string) bool {
	switch {
	case c.Name == "":
		return true
	case strings.HasPrefix(c.Name, "*"):
		return strings.HasSuffix(strings.ToLower(name), strings.ToLower(c.Name[1:]))
	}
	return strings.EqualFold(c.Name, name)
}

// ServerCreated reports whether a child of type typ named name is one the
// service creates with its parent (the table above), or a settings
// singleton: a child whose type takes only the names "default" or
// "current" (a SQL server's auditingSettings/default, an event hub
// namespace's networkRuleSets/default), which holds configuration of the
// parent, not data. The singleton rule asks r for the type's fixed names;
// r may be nil (the table only).
func (r *Registry) ServerCreated(typ, name string) bool {
	for _, c := range serverCreatedIndex[strings.ToLower(typ)] {
		if c.matches(name) {
			return true
		}
	}
	if r == nil || !(strings.EqualFold(name, "default") || strings.EqualFold(name, "current")) {
		return false
	}
	vs := r.Versions(typ)
	if len(vs) == 0 {
		return false
	}
	t, _ := r.Lookup(typ, vs[len(vs)-1])
	for _, n := range t.FixedNames() {
		if strings.EqualFold(n, name) {
			return true
		}
	}
	return singletonWithoutDelete(t)
}

// singletonWithoutDelete: a type whose Swagger has no DELETE holds one
// configuration object per parent (networkRuleSets, auditingSettings);
// its "default" or "current" is the parent's own.
func singletonWithoutDelete(t *Type) bool {
	return t != nil && t.FactsFrom != "" && len(t.DeleteStatus) == 0
}

// EveryServerCreated reports whether every child of type typ is one the
// service creates (an NSG's default rules, a site's config): a listing
// of them can only find server-created children.
func EveryServerCreated(typ string) bool {
	for _, c := range serverCreatedIndex[strings.ToLower(typ)] {
		if c.Name == "" {
			return true
		}
	}
	return false
}

// ServerCreatedUnder lists the table's children of parentType that have
// an exact name, the ones a create of the parent brings along.
func ServerCreatedUnder(parentType string) []ServerCreatedChild {
	p := strings.ToLower(parentType) + "/"
	var out []ServerCreatedChild
	for _, c := range serverCreated {
		lt := strings.ToLower(c.Type)
		if strings.HasPrefix(lt, p) && !strings.Contains(lt[len(p):], "/") && c.Name != "" && !strings.HasPrefix(c.Name, "*") {
			out = append(out, c)
		}
	}
	return out
}

// Segment is the child type's last segment ("authorizationRules").
func (c ServerCreatedChild) Segment() string { return c.Type[strings.LastIndexByte(c.Type, '/')+1:] }
