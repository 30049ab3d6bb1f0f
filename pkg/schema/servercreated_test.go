package schema

import "testing"

// TestServerCreated: the one table of children a service creates with its
// parent, and the settings-singleton rule; what a person creates is not in
// it (issue 44 item 1).
func TestServerCreated(t *testing.T) {
	r := Default()
	for _, tc := range []struct {
		typ, name string
		want      bool
	}{
		{"Microsoft.Storage/storageAccounts/blobServices", "default", true},
		{"Microsoft.Storage/storageAccounts/blobServices/containers", "data", false},
		// A container a person named "default" is data, not a singleton.
		{"Microsoft.Storage/storageAccounts/blobServices/containers", "default", false},
		{"Microsoft.Network/dnsZones/NS", "@", true},
		{"Microsoft.Network/dnsZones/NS", "sub", false},
		{"Microsoft.Network/dnsZones/A", "www", false},
		{"Microsoft.KeyVault/vaults/secrets", "db-password", false},
		{"Microsoft.Web/sites/hostNameBindings", "app.azurewebsites.net", true},
		{"Microsoft.Web/sites/hostNameBindings", "www.example.com", false},
		{"Microsoft.Sql/servers/databases", "master", true},
		{"Microsoft.Sql/servers/databases", "orders", false},
		{"Microsoft.ServiceBus/namespaces/AuthorizationRules", "RootManageSharedAccessKey", true},
		{"Microsoft.ServiceBus/namespaces/authorizationRules", "rootmanagesharedaccesskey", true},
		{"Microsoft.ServiceBus/namespaces/authorizationRules", "ci-sender", false},
		{"Microsoft.EventHub/namespaces/eventhubs/consumergroups", "$Default", true},
		{"Microsoft.EventHub/namespaces/eventhubs/consumergroups", "cg1", false},
		{"Microsoft.DBforPostgreSQL/flexibleServers/databases", "azure_sys", true},
		{"Microsoft.DBforPostgreSQL/flexibleServers/databases", "orders", false},
		{"Microsoft.DBforMySQL/flexibleServers/databases", "performance_schema", true},
		{"Microsoft.DBforMySQL/flexibleServers/configurations", "max_connections", true},
		{"Microsoft.ContainerService/managedClusters/agentPools", "nodepool1", true},
		// Singletons without DELETE named default: configuration of the parent.
		{"Microsoft.EventHub/namespaces/networkRuleSets", "default", true},
		{"Microsoft.Sql/servers/auditingSettings", "default", true},
	} {
		if got := r.ServerCreated(tc.typ, tc.name); got != tc.want {
			t.Errorf("ServerCreated(%s, %s) = %v, want %v", tc.typ, tc.name, got, tc.want)
		}
	}
}

// TestServerCreatedTypesAreKnown: every entry names a type the index
// knows, so a misspelt type cannot silently match nothing.
func TestServerCreatedTypesAreKnown(t *testing.T) {
	r := Default()
	for _, c := range serverCreated {
		if len(r.Versions(c.Type)) == 0 {
			t.Errorf("%s (%s) is not in the schema index", c.Type, c.Name)
		}
	}
}
