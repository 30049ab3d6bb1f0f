package plugins

import (
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
)

func trimSpace(v any) any {
	if s, ok := v.(string); ok {
		return strings.TrimSpace(s)
	}
	return v
}

func init() {
	// Flux v1 operator parameters are trimmed by the service.
	// Evidence: azure-cli-extensions:src/k8s-configuration records for
	// Microsoft.KubernetesConfiguration/sourceControlConfigurations
	// (putBody operatorParams "--git-readonly ", getBody "--git-readonly").
	register("Microsoft.KubernetesConfiguration/sourceControlConfigurations", &diff.Funcs{R: diff.Rules{
		Normalizers: map[string]diff.Normalizer{"properties.operatorParams": trimSpace},
		WriteOnly:   []string{"properties.configurationProtectedSettings", "properties.configurationProtectedSettings.*"},
	}})

	// Logz.io monitors take the signing-up user's contact details, which GET
	// never returns. Evidence:
	// azure-cli-extensions:src/logz/azext_logz/tests/latest/recordings/test_main_account_crud.yaml#1,
	// test_sub_account_crud.yaml#6.
	logzUser := []string{"properties.userInfo", "properties.userInfo.firstName", "properties.userInfo.lastName",
		"properties.userInfo.emailAddress", "properties.userInfo.phoneNumber"}
	register("Microsoft.Logz/monitors", &diff.Funcs{R: diff.Rules{WriteOnly: logzUser}})
	register("Microsoft.Logz/monitors/accounts", &diff.Funcs{R: diff.Rules{WriteOnly: logzUser}})

	// Static Web Apps: buildProperties only configure the first GitHub
	// workflow and are not returned. Evidence:
	// azure-cli-extensions:src/staticwebapp/azext_staticwebapp/tests/latest/recordings/test_staticwebapp_dbconnection_azure_sql.yaml#1.
	register("Microsoft.Web/staticSites", &diff.Funcs{R: diff.Rules{WriteOnly: []string{
		"properties.buildProperties", "properties.buildProperties.appLocation", "properties.buildProperties.apiLocation",
		"properties.buildProperties.outputLocation", "properties.buildProperties.appArtifactLocation",
		"properties.repositoryToken",
	}}})

	// Spring Apps deployments: scale settings are accepted but not returned
	// on the Standard tier. Evidence:
	// azure-cli-extensions:src/spring/azext_spring/tests/latest/recordings/test_app_crud.yaml#6 and #28.
	register("Microsoft.AppPlatform/Spring/apps/deployments", &diff.Funcs{R: diff.Rules{WriteOnly: []string{
		"properties.deploymentSettings.scale", "properties.deploymentSettings.scale.minReplicas",
		"properties.deploymentSettings.scale.maxReplicas", "properties.deploymentSettings.scale.rules",
	}}})

	// Backup instances: the CLI echoes status blocks from a previous GET.
	// Evidence: azure-cli-extensions:src/dataprotection records for
	// Microsoft.DataProtection/backupVaults/backupInstances
	// (putBody protectionStatus.status "ProtectionConfigured", getBody "UpdatingProtection").
	register("Microsoft.DataProtection/backupVaults/backupInstances", &diff.Funcs{R: diff.Rules{ReadOnly: []string{
		"properties.protectionStatus", "properties.currentProtectionState", "properties.protectionErrorDetails",
	}}})

	// Azure Compute Gallery image versions: target regions are named in
	// the request and answered as display names ("canadacentral" is
	// "Canada Central"). Canonicalise both sides so items match by region.
	// Evidence:
	// azure-cli-extensions:src/image-gallery/azext_image_gallery/tests/latest/recordings/test_community_gallery_operations.yaml#33.
	register("Microsoft.Compute/galleries/images/versions", &diff.Funcs{
		BeforeCompareFn: func(d, s map[string]any) (map[string]any, map[string]any) {
			canonRegions(d)
			canonRegions(s)
			return d, s
		},
		AfterGetFn: func(s map[string]any) map[string]any { canonRegions(s); return s },
	})
}

func canonRegions(body map[string]any) {
	pp, _ := body["properties"].(map[string]any)
	pub, _ := pp["publishingProfile"].(map[string]any)
	regs, _ := pub["targetRegions"].([]any)
	for _, r := range regs {
		if m, ok := r.(map[string]any); ok {
			if n, ok := m["name"].(string); ok {
				m["name"] = canonLocation(n)
			}
		}
	}
}

// canonLocation lower-cases a region and drops spaces and punctuation.
func canonLocation(s string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		}
	}
	return b.String()
}
