package importer

import "strings"

// childCollection is a child resource collection --children walks.
type childCollection struct {
	// Segment is the child type's last segment ("subnets").
	Segment string
	// Inline is the parent body path that lists the same children inline
	// ("properties.subnets"), or "". When the children are imported as
	// resources of their own, the parent's manifest leaves it out: owning
	// them twice would make every change to a child a change to its parent.
	Inline string
	// Skip names children that exist in every parent and are not the
	// user's to manage (a SQL server's master database).
	Skip []string
}

// ChildCollections are the child collections --children imports, by
// lower-cased parent type. They are the collections platform engineers
// manage as separate resources; anything else stays inline in its parent.
var ChildCollections = map[string][]childCollection{
	"microsoft.network/virtualnetworks": {
		{Segment: "subnets", Inline: "properties.subnets"},
		{Segment: "virtualNetworkPeerings", Inline: "properties.virtualNetworkPeerings"},
	},
	"microsoft.network/networksecuritygroups": {{Segment: "securityRules", Inline: "properties.securityRules"}},
	"microsoft.network/routetables":           {{Segment: "routes", Inline: "properties.routes"}},
	"microsoft.network/privatednszones":       {{Segment: "virtualNetworkLinks"}},
	"microsoft.network/firewallpolicies":      {{Segment: "ruleCollectionGroups"}},
	"microsoft.sql/servers": {
		{Segment: "databases", Skip: []string{"master"}},
		{Segment: "firewallRules"},
	},
	"microsoft.dbforpostgresql/flexibleservers": {{Segment: "databases", Skip: []string{"azure_maintenance", "azure_sys", "postgres"}}, {Segment: "firewallRules"}},
	"microsoft.dbformysql/flexibleservers":      {{Segment: "databases", Skip: []string{"information_schema", "mysql", "performance_schema", "sys"}}, {Segment: "firewallRules"}},
	"microsoft.servicebus/namespaces":           {{Segment: "queues"}, {Segment: "topics"}},
	"microsoft.eventhub/namespaces":             {{Segment: "eventhubs"}},
	"microsoft.documentdb/databaseaccounts":     {{Segment: "sqlDatabases"}},
	"microsoft.cdn/profiles":                    {{Segment: "endpoints"}},
}

func childCollectionsOf(typ string) []childCollection {
	return ChildCollections[strings.ToLower(typ)]
}

func (c childCollection) skips(name string) bool {
	for _, s := range c.Skip {
		if strings.EqualFold(s, name) {
			return true
		}
	}
	return false
}
