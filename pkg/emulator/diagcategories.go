package emulator

import (
	"net/http"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// diagCategories are the resource-log and metric categories a type's
// diagnostic settings can name, by lower-cased type (Microsoft Learn
// "Supported categories for Azure Monitor resource logs" and "Supported
// metrics with Azure Monitor"). Log categories first, then metrics.
var diagCategories = map[string]struct{ logs, metrics []string }{
	"microsoft.keyvault/vaults":                       {[]string{"AuditEvent", "AzurePolicyEvaluationDetails"}, []string{"AllMetrics"}},
	"microsoft.storage/storageaccounts":               {nil, []string{"Transaction", "Capacity"}},
	"microsoft.storage/storageaccounts/blobservices":  {[]string{"StorageRead", "StorageWrite", "StorageDelete"}, []string{"Transaction", "Capacity"}},
	"microsoft.storage/storageaccounts/fileservices":  {[]string{"StorageRead", "StorageWrite", "StorageDelete"}, []string{"Transaction", "Capacity"}},
	"microsoft.storage/storageaccounts/queueservices": {[]string{"StorageRead", "StorageWrite", "StorageDelete"}, []string{"Transaction", "Capacity"}},
	"microsoft.storage/storageaccounts/tableservices": {[]string{"StorageRead", "StorageWrite", "StorageDelete"}, []string{"Transaction", "Capacity"}},
	"microsoft.network/networksecuritygroups":         {[]string{"NetworkSecurityGroupEvent", "NetworkSecurityGroupRuleCounter"}, nil},
	"microsoft.network/publicipaddresses":             {[]string{"DDoSProtectionNotifications", "DDoSMitigationFlowLogs", "DDoSMitigationReports"}, []string{"AllMetrics"}},
	"microsoft.network/applicationgateways":           {[]string{"ApplicationGatewayAccessLog", "ApplicationGatewayPerformanceLog", "ApplicationGatewayFirewallLog"}, []string{"AllMetrics"}},
	"microsoft.network/virtualnetworks":               {[]string{"VMProtectionAlerts"}, []string{"AllMetrics"}},
	"microsoft.web/sites":                             {[]string{"AppServiceHTTPLogs", "AppServiceConsoleLogs", "AppServiceAppLogs", "AppServiceAuditLogs", "AppServiceIPSecAuditLogs", "AppServicePlatformLogs"}, []string{"AllMetrics"}},
	"microsoft.containerservice/managedclusters":      {[]string{"kube-apiserver", "kube-audit", "kube-audit-admin", "kube-controller-manager", "kube-scheduler", "cluster-autoscaler", "cloud-controller-manager", "guard"}, []string{"AllMetrics"}},
	"microsoft.containerregistry/registries":          {[]string{"ContainerRegistryRepositoryEvents", "ContainerRegistryLoginEvents"}, []string{"AllMetrics"}},
	"microsoft.servicebus/namespaces":                 {[]string{"OperationalLogs", "VNetAndIPFilteringLogs", "RuntimeAuditLogs", "ApplicationMetricsLogs"}, []string{"AllMetrics"}},
	"microsoft.eventhub/namespaces":                   {[]string{"ArchiveLogs", "OperationalLogs", "AutoScaleLogs", "KafkaCoordinatorLogs", "KafkaUserErrorLogs", "EventHubVNetConnectionEvent", "CustomerManagedKeyUserLogs", "RuntimeAuditLogs", "ApplicationMetricsLogs"}, []string{"AllMetrics"}},
	"microsoft.operationalinsights/workspaces":        {[]string{"Audit", "SummaryLogs"}, []string{"AllMetrics"}},
	"microsoft.sql/servers/databases":                 {[]string{"SQLInsights", "AutomaticTuning", "QueryStoreRuntimeStatistics", "QueryStoreWaitStatistics", "Errors", "DatabaseWaitStatistics", "Timeouts", "Blocks", "Deadlocks"}, []string{"Basic", "InstanceAndAppAdvanced", "WorkloadManagement"}},
	"microsoft.dbforpostgresql/flexibleservers":       {[]string{"PostgreSQLLogs", "PostgreSQLFlexSessions", "PostgreSQLFlexQueryStoreRuntime", "PostgreSQLFlexQueryStoreWaitStats", "PostgreSQLFlexTableStats", "PostgreSQLFlexDatabaseXacts"}, []string{"AllMetrics"}},
	"microsoft.documentdb/databaseaccounts":           {[]string{"DataPlaneRequests", "MongoRequests", "QueryRuntimeStatistics", "PartitionKeyStatistics", "PartitionKeyRUConsumption", "ControlPlaneRequests", "CassandraRequests", "GremlinRequests", "TableApiRequests"}, []string{"Requests"}},
	"microsoft.cache/redis":                           {[]string{"ConnectedClientList"}, []string{"AllMetrics"}},
	"microsoft.compute/virtualmachines":               {nil, []string{"AllMetrics"}},
}

// serveDiagCategories answers GET {resource}/providers/Microsoft.Insights/
// diagnosticSettingsCategories[/{name}] (Azure Monitor REST "Diagnostic
// Settings Category - List / Get": id, name, type and properties.
// categoryType Logs or Metrics). Caller holds s.mu.
func (s *Server) serveDiagCategories(r *http.Request, p armid.Path) (reply, bool) {
	if r.Method != http.MethodGet || !strings.EqualFold(p.Provider, "Microsoft.Insights") || len(p.Types) != 1 ||
		!strings.EqualFold(p.Types[0], "diagnosticSettingsCategories") || p.Scope == "" {
		return reply{}, false
	}
	res := s.store.get(p.Scope)
	if res == nil {
		sp, ok := armid.ParsePath(p.Scope)
		if !ok {
			return reply{err: errNotFound(p)}, true
		}
		return reply{err: s.notFound(sp)}, true
	}
	cats, known := diagCategories[strings.ToLower(res.Type)]
	if !known {
		return reply{err: newError(http.StatusBadRequest, "ResourceTypeNotSupported",
			"The emulator has no diagnostic settings categories for resource type '%s'.", res.Type)}, true
	}
	var items []any
	add := func(names []string, kind string) {
		for _, n := range names {
			items = append(items, map[string]any{"id": res.ID + "/providers/microsoft.insights/diagnosticSettingsCategories/" + n,
				"name": n, "type": "Microsoft.Insights/diagnosticSettingsCategories", "properties": map[string]any{"categoryType": kind}})
		}
	}
	add(cats.logs, "Logs")
	add(cats.metrics, "Metrics")
	if p.Kind == armid.PathCollection {
		return ok200(map[string]any{"value": items}), true
	}
	for _, it := range items {
		if strings.EqualFold(asMap(it)["name"].(string), p.Name()) {
			return ok200(it.(map[string]any)), true
		}
	}
	return reply{err: newError(http.StatusNotFound, "ResourceNotFound", "The diagnostic settings category '%s' does not exist for '%s'.", p.Name(), res.ID)}, true
}
