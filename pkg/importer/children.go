package importer

import (
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// childCollection is a child resource collection --children walks.
type childCollection struct {
	// Segment is the child type's last segment ("subnets").
	Segment string
	// Inline is the parent body path that lists the same children inline
	// ("properties.subnets"), or "". When the children are imported as
	// resources of their own, the parent's manifest leaves it out: owning
	// them twice would make every change to a child a change to its parent.
	Inline string
	// parent is the parent's type, set by childCollectionsOf.
	parent string
}

// ChildCollections are the child collections --children imports, by
// lower-cased parent type. They are the collections platform engineers
// manage as separate resources; anything else stays inline in its parent.
var ChildCollections = map[string][]childCollection{
	"microsoft.network/virtualnetworks": {
		{Segment: "subnets", Inline: "properties.subnets"},
		{Segment: "virtualNetworkPeerings", Inline: "properties.virtualNetworkPeerings"},
	},
	"microsoft.network/networksecuritygroups":   {{Segment: "securityRules", Inline: "properties.securityRules"}},
	"microsoft.network/routetables":             {{Segment: "routes", Inline: "properties.routes"}},
	"microsoft.network/privatednszones":         {{Segment: "virtualNetworkLinks"}},
	"microsoft.network/firewallpolicies":        {{Segment: "ruleCollectionGroups"}},
	"microsoft.sql/servers":                     {{Segment: "databases"}, {Segment: "firewallRules"}},
	"microsoft.dbforpostgresql/flexibleservers": {{Segment: "databases"}, {Segment: "firewallRules"}},
	"microsoft.dbformysql/flexibleservers":      {{Segment: "databases"}, {Segment: "firewallRules"}},
	"microsoft.servicebus/namespaces":           {{Segment: "queues"}, {Segment: "topics"}, {Segment: "AuthorizationRules"}},
	"microsoft.eventhub/namespaces":             {{Segment: "eventhubs"}, {Segment: "authorizationRules"}},
	"microsoft.eventhub/namespaces/eventhubs":   {{Segment: "consumergroups"}},
	"microsoft.documentdb/databaseaccounts":     {{Segment: "sqlDatabases"}},
	"microsoft.cdn/profiles":                    {{Segment: "endpoints"}},
}

func childCollectionsOf(typ string) []childCollection {
	ccs := ChildCollections[strings.ToLower(typ)]
	out := make([]childCollection, len(ccs))
	for i, cc := range ccs {
		cc.parent = typ
		out[i] = cc
	}
	return out
}

// skips reports children of the collection that the
// service creates with their parent (schema's one table: a SQL server's
// master database, a namespace's RootManageSharedAccessKey, an event
// hub's $Default): they are not the user's to manage, and a manifest of
// them would make deleting it a request ARM answers by refusing or
// ignoring.
func (c childCollection) skips(name string) bool {
	return schema.Default().ServerCreated(c.parent+"/"+c.Segment, name)
}
