package plugins

import (
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
)

// Inputs that these services accept on PUT and never return on GET, found
// by the corpus harness (putBody has them, the following getBody does not,
// the resource is otherwise identical). Declared write-only, they are
// reported as unverifiable instead of as changes.
var writeOnly = map[string]struct {
	evidence string
	paths    []string
}{
	"Microsoft.Logic/integrationAccounts/maps": {
		"azure-cli-extensions:src/logic/azext_logic/tests/latest/recordings/test_integration_account_map.yaml#6",
		[]string{"properties.content", "properties.contentType"},
	},
	"Microsoft.NotificationHubs/namespaces": {
		"azure-cli-extensions:src/notification-hub/azext_notification_hub/tests/latest/recordings/test_notificationhubs.yaml#2",
		[]string{"properties.name"},
	},
	"Microsoft.NotificationHubs/namespaces/notificationHubs": {
		"azure-cli-extensions:src/notification-hub/azext_notification_hub/tests/latest/recordings/test_notificationhubs.yaml#6",
		[]string{"properties.name", "properties.authorizationRules"},
	},
	"Microsoft.RecoveryServices/vaults/replicationFabrics/replicationProtectionContainers/replicationProtectedItems": {
		"azure-cli-extensions:src/site-recovery/azext_site_recovery/tests/latest/recordings/test_siterecovery_H2A_E2A_scenarios.yaml#32",
		[]string{"properties.providerSpecificDetails.osType"},
	},
	"Microsoft.Quota/quotas": {
		"azure-cli-extensions:src/quota/azext_quota/tests/latest/recordings/test_quota_crud.yaml#1",
		[]string{"properties.resourceType"},
	},
	"Microsoft.Help/diagnostics": {
		"azure-cli-extensions:src/self-help/azext_self_help/tests/latest/recordings/test_help_diagnostics.yaml#0",
		[]string{"properties.insights", "properties.globalParameters"},
	},
	"Microsoft.AppPlatform/Spring/monitoringSettings": {
		"azure-cli-extensions:src/spring records for monitoringSettings (appInsightsInstrumentationKey sent, not returned)",
		[]string{"properties.appInsightsInstrumentationKey"},
	},
	"Microsoft.AzureStackHCI/clusters/arcSettings/extensions": {
		"azure-cli-extensions:src/stack-hci/azext_stack_hci/tests/latest/recordings/test_stack_hci_extension_crud.yaml#5",
		[]string{"properties.extensionParameters.typeHandlerVersion", "properties.extensionParameters.protectedSettings"},
	},
}

func init() {
	for typ, w := range writeOnly {
		register(typ, &diff.Funcs{R: diff.Rules{WriteOnly: w.paths}})
	}

	// Support ticket communications: the body is answered wrapped in <pre>.
	// Evidence:
	// azure-cli-extensions:src/support/azext_support/tests/latest/recordings/test_support_tickets.yaml#5.
	register("Microsoft.Support/supportTickets/communications", &diff.Funcs{R: diff.Rules{Normalizers: map[string]diff.Normalizer{
		"properties.body": func(v any) any {
			if s, ok := v.(string); ok {
				return strings.TrimSuffix(strings.TrimPrefix(s, "<pre>"), "</pre>")
			}
			return v
		},
	}}})
}
