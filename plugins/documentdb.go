package plugins

import (
	"encoding/json"
	"slices"

	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// Cosmos DB child resources take create-time and throughput inputs that
// their GET never returns (throughput lives on the separate
// throughputSettings resource; createMode and restoreParameters only steer
// creation). Evidence:
// azure-cli-extensions:src/cosmosdb-preview/azext_cosmosdb_preview/tests/latest/recordings/test_cosmosdb_sql_database_merge.yaml#0 (options.throughput),
// test_cosmosdb_sql_shared_database_restore.yaml#10 (createMode, restoreParameters),
// test_cosmosdb_mongodb_collection_adaptiveru.yaml#4 (options on a collection).
var cosmosOptions = []schema.Path{
	"properties.options", "properties.options.throughput",
	"properties.options.autoscaleSettings", "properties.options.autoscaleSettings.maxThroughput",
}

// cosmosRestore are the create-from-restore inputs. Cassandra keyspaces
// and tables have none: no api-version of their spec declares createMode
// or restoreParameters.
var cosmosRestore = []schema.Path{
	"properties.resource.createMode",
	"properties.resource.restoreParameters", "properties.resource.restoreParameters.restoreSource",
	"properties.resource.restoreParameters.restoreTimestampInUtc",
	"properties.resource.restoreParameters.restoreWithTtlDisabled",
}

// mongoRoleType maps the role type names the CLI sends to the numbers the
// service answers with ("CustomRole" comes back as 1). Evidence:
// azure-cli-extensions:src/cosmosdb-preview/azext_cosmosdb_preview/tests/latest/recordings/test_cosmosdb_mongo_role.yaml#17, #24, #30.
// Bodies carry numbers as json.Number; float64 is kept for callers that
// decode without UseNumber.
func mongoRoleType(v any) any {
	switch v {
	case "BuiltInRole", json.Number("0"), float64(0):
		return "BuiltInRole"
	case "CustomRole", json.Number("1"), float64(1):
		return "CustomRole"
	}
	return v
}

// dropEmpty removes a string member live reports as "" for a value it
// does not return (mongo user customData), so it reads as absent and the
// write-only rule applies. Evidence: test_cosmosdb_mongo_role.yaml user
// definition records (putBody customData "MyCustomData", getBody "").
func dropEmpty(path ...string) func(map[string]any) map[string]any {
	return func(live map[string]any) map[string]any {
		m := live
		for _, p := range path[:len(path)-1] {
			next, ok := m[p].(map[string]any)
			if !ok {
				return live
			}
			m = next
		}
		if s, ok := m[path[len(path)-1]].(string); ok && s == "" {
			delete(m, path[len(path)-1])
		}
		return live
	}
}

func documentDBPlugins(b *builder) {
	for _, t := range []string{
		"sqlDatabases", "sqlDatabases/containers", "mongodbDatabases", "mongodbDatabases/collections",
		"gremlinDatabases", "gremlinDatabases/graphs", "tables",
	} {
		b.add("Microsoft.DocumentDB/databaseAccounts/"+t, &diff.Funcs{R: diff.Rules{WriteOnly: slices.Concat(cosmosOptions, cosmosRestore)}})
	}
	for _, t := range []string{"cassandraKeyspaces", "cassandraKeyspaces/tables"} {
		b.add("Microsoft.DocumentDB/databaseAccounts/"+t, &diff.Funcs{R: diff.Rules{WriteOnly: cosmosOptions}})
	}
	b.add("Microsoft.DocumentDB/mongoClusters", &diff.Funcs{R: diff.Rules{
		// Evidence: azure-cli-extensions:src/cosmosdb-preview/azext_cosmosdb_preview/tests/latest/recordings/test_cosmosdb_mongocluster_crud.yaml#0
		// (createMode sent, never returned).
		WriteOnly: []schema.Path{"properties.createMode", "properties.restoreParameters"},
	}})
	b.add("Microsoft.DocumentDB/databaseAccounts/mongodbRoleDefinitions", &diff.Funcs{R: diff.Rules{
		Normalizers: map[schema.Path]diff.Normalizer{"properties.type": mongoRoleType},
	}})
	b.addHooks("Microsoft.DocumentDB/databaseAccounts/mongodbUserDefinitions", &diff.Funcs{
		AfterGetFn: dropEmpty("properties", "customData"),
		R:          diff.Rules{WriteOnly: []schema.Path{"properties.customData", "properties.password"}},
	}, "properties.customData")
}
