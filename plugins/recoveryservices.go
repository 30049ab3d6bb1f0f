package plugins

import (
	"regexp"

	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

var guidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// Recovery plans: a protected item's virtualMachineId is sent as the VM's
// ARM ID and answered as the VM's internal GUID, so the two can never be
// compared. AfterGet drops the GUID form (the path is then absent from
// live and, being declared write-only here, unverifiable rather than
// changed). Recovery plans also gain Shutdown and Failover groups the
// service adds; those are unowned items and already ignored.
// Evidence:
// azure-cli-extensions:src/site-recovery/azext_site_recovery/tests/latest/recordings/test_siterecovery_A2A_scenarios.yaml#76,
// test_siterecovery_A2A_selfcreated_scenarios.yaml#171.
func recoveryPlanPlugins(b *builder) {
	b.addHooks("Microsoft.RecoveryServices/vaults/replicationRecoveryPlans", &diff.Funcs{
		AfterGetFn: func(live map[string]any) map[string]any {
			props, _ := live["properties"].(map[string]any)
			groups, _ := props["groups"].([]any)
			for _, g := range groups {
				gm, _ := g.(map[string]any)
				items, _ := gm["replicationProtectedItems"].([]any)
				for _, it := range items {
					if im, ok := it.(map[string]any); ok {
						if s, ok := im["virtualMachineId"].(string); ok && guidRE.MatchString(s) {
							delete(im, "virtualMachineId")
						}
					}
				}
			}
			return live
		},
		R: diff.Rules{WriteOnly: []schema.Path{"properties.groups[].replicationProtectedItems[].virtualMachineId"}},
	}, "properties.groups[].replicationProtectedItems[].virtualMachineId")
}

// Replication protected items: the OS type steers enabling protection and
// is not returned. Evidence:
// azure-cli-extensions:src/site-recovery/azext_site_recovery/tests/latest/recordings/test_siterecovery_H2A_E2A_scenarios.yaml#32.
func protectedItemPlugins(b *builder) {
	b.add("Microsoft.RecoveryServices/vaults/replicationFabrics/replicationProtectionContainers/replicationProtectedItems",
		&diff.Funcs{R: diff.Rules{WriteOnly: []schema.Path{"properties.providerSpecificDetails.osType"}}})
}
