package plugins

import "github.com/kubectl-azure/kubectl-azure/pkg/diff"

// Cosmos DB child resources take create-time and throughput inputs that
// their GET never returns (throughput lives on the separate
// throughputSettings resource; createMode and restoreParameters only steer
// creation). Evidence:
// azure-cli-extensions:src/cosmosdb-preview/azext_cosmosdb_preview/tests/latest/recordings/test_cosmosdb_sql_database_merge.yaml#0 (options.throughput),
// test_cosmosdb_sql_shared_database_restore.yaml#10 (createMode, restoreParameters),
// test_cosmosdb_mongodb_collection_adaptiveru.yaml#4 (options on a collection).
var cosmosWriteOnly = []string{
	"properties.options", "properties.options.throughput",
	"properties.options.autoscaleSettings", "properties.options.autoscaleSettings.maxThroughput",
	"properties.resource.createMode",
	"properties.resource.restoreParameters", "properties.resource.restoreParameters.restoreSource",
	"properties.resource.restoreParameters.restoreTimestampInUtc",
	"properties.resource.restoreParameters.restoreWithTtlDisabled",
}

// mongoRoleType maps the role type names the CLI sends to the numbers the
// service answers with ("CustomRole" comes back as 1). Evidence:
// azure-cli-extensions:src/cosmosdb-preview/azext_cosmosdb_preview/tests/latest/recordings/test_cosmosdb_mongo_role.yaml#17, #24, #30.
func mongoRoleType(v any) any {
	switch v {
	case "BuiltInRole", float64(0):
		return "BuiltInRole"
	case "CustomRole", float64(1):
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

func init() {
	for _, t := range []string{
		"sqlDatabases", "sqlDatabases/containers", "mongodbDatabases", "mongodbDatabases/collections",
		"gremlinDatabases", "gremlinDatabases/graphs", "cassandraKeyspaces", "cassandraKeyspaces/tables", "tables",
	} {
		register("Microsoft.DocumentDB/databaseAccounts/"+t, &diff.Funcs{R: diff.Rules{WriteOnly: cosmosWriteOnly}})
	}
	register("Microsoft.DocumentDB/mongoClusters", &diff.Funcs{R: diff.Rules{
		// Evidence: azure-cli-extensions:src/cosmosdb-preview/azext_cosmosdb_preview/tests/latest/recordings/test_cosmosdb_mongocluster_crud.yaml#0
		// (createMode sent, never returned).
		WriteOnly: []string{"properties.createMode", "properties.restoreParameters"},
	}})
	register("Microsoft.DocumentDB/databaseAccounts/mongodbRoleDefinitions", &diff.Funcs{R: diff.Rules{
		Normalizers: map[string]diff.Normalizer{"properties.type": mongoRoleType},
	}})
	register("Microsoft.DocumentDB/databaseAccounts/mongodbUserDefinitions", &diff.Funcs{
		AfterGetFn: dropEmpty("properties", "customData"),
		R:          diff.Rules{WriteOnly: []string{"properties.customData", "properties.password"}},
	})
}
