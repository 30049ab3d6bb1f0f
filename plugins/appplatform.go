package plugins

import (
	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

func appPlatformPlugins(b *builder) {
	// Spring Apps deployments: scale settings are accepted but not returned
	// on the Standard tier. Evidence:
	// azure-cli-extensions:src/spring/azext_spring/tests/latest/recordings/test_app_crud.yaml#6 and #28.
	b.add("Microsoft.AppPlatform/Spring/apps/deployments", &diff.Funcs{R: diff.Rules{WriteOnly: []schema.Path{
		"properties.deploymentSettings.scale", "properties.deploymentSettings.scale.minReplicas",
		"properties.deploymentSettings.scale.maxReplicas", "properties.deploymentSettings.scale.rules",
	}}})

	// Monitoring settings: the instrumentation key is accepted, not
	// returned. Evidence: azure-cli-extensions:src/spring records for
	// Microsoft.AppPlatform/Spring/monitoringSettings.
	b.add("Microsoft.AppPlatform/Spring/monitoringSettings", &diff.Funcs{R: diff.Rules{WriteOnly: []schema.Path{
		"properties.appInsightsInstrumentationKey",
	}}})
}
