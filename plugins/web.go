package plugins

import (
	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// Static Web Apps: buildProperties only configure the first GitHub
// workflow and are not returned. Evidence:
// azure-cli-extensions:src/staticwebapp/azext_staticwebapp/tests/latest/recordings/test_staticwebapp_dbconnection_azure_sql.yaml#1.
func webPlugins(b *builder) {
	b.add("Microsoft.Web/staticSites", &diff.Funcs{R: diff.Rules{WriteOnly: []schema.Path{
		"properties.buildProperties", "properties.buildProperties.appLocation", "properties.buildProperties.apiLocation",
		"properties.buildProperties.outputLocation", "properties.buildProperties.appArtifactLocation",
		"properties.repositoryToken",
	}}})
}
