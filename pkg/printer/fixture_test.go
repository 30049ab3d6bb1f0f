package printer

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// secretValue is planted in Before/After of sensitive changes; no output may contain it.
const secretValue = "hunter2-Sup3rS3cret"

const sub = "/subscriptions/00000000-0000-0000-0000-000000000001"

// samplePlan covers every action and every change marking.
func samplePlan() *plan.Plan {
	return &plan.Plan{
		FormatVersion: "1",
		Subscription:  "00000000-0000-0000-0000-000000000001",
		Subscriptions: []string{"00000000-0000-0000-0000-000000000001"},
		State:         ".kubectl-azure/state.json",
		Set:           "default",
		Resources: []plan.Resource{
			{
				ID: sub + "/resourceGroups/rg-demo", Type: "Microsoft.Resources/resourceGroups",
				APIVersion: "2021-04-01", Action: plan.ActionCreate, Method: "PUT", Origin: "infra/rg.yaml#0",
				Changes: []plan.Change{
					{Path: "location", After: "westeurope", Reason: "new resource", Kind: plan.KindAdd},
					{Path: "tags", After: map[string]any{"app": "demo"}, Reason: "new resource", Kind: plan.KindAdd},
				},
			},
			{
				ID:   sub + "/resourceGroups/rg-demo/providers/Microsoft.Storage/storageAccounts/stdemo001",
				Type: "Microsoft.Storage/storageAccounts", APIVersion: "2023-05-01",
				Action: plan.ActionUpdate, Method: "PATCH", Origin: "infra/storage.yaml#0",
				Changes: []plan.Change{
					{Path: "properties.minimumTlsVersion", Before: "TLS1_0", After: "TLS1_2", Reason: "manifest changed", Kind: plan.KindChange, RulesTried: []string{"exact", "enum-case-insensitive"}},
					{Path: "tags.env", Before: "dev", After: "prod", Reason: "live changed outside kubectl-azure", Kind: plan.KindChange, Cause: plan.CauseDrift},
					{Path: "properties.allowBlobPublicAccess", Before: true, After: nil, Reason: "removed from manifest", Kind: plan.KindRemove},
					{Path: "properties.networkAcls.ipRules", Before: []any{map[string]any{"value": "10.0.0.0/24", "action": "Allow"}, map[string]any{"value": "10.0.1.0/24", "action": "Allow"}, map[string]any{"value": "10.0.2.0/24", "action": "Allow"}},
						After:  []any{map[string]any{"value": "10.0.0.0/24", "action": "Allow"}, map[string]any{"value": "10.9.9.0/24", "action": "Allow"}, map[string]any{"value": "10.0.2.0/24", "action": "Allow"}, map[string]any{"value": "192.168.100.0/24", "action": "Allow"}},
						Reason: "manifest changed", Kind: plan.KindChange},
				},
				Equal: []plan.Equal{
					{Path: "location", Rule: "location-name"},
					{Path: "sku.name", Rule: "enum-case-insensitive"},
					{Path: "properties.encryption.keySource", Rule: "schema-default"},
				},
				LiveEtag: "\"0x8DC1\"",
			},
			{
				ID:   sub + "/resourceGroups/rg-demo/providers/Microsoft.Web/sites/app-demo/config/appsettings",
				Type: "Microsoft.Web/sites/config", APIVersion: "2023-12-01",
				Action: plan.ActionUpdate, Method: "PUT",
				Changes: []plan.Change{
					{Path: "properties.DB_PASSWORD", Before: secretValue + "-old", After: secretValue, Reason: "secret hash changed", Kind: plan.KindChange, Sensitive: true},
				},
				Reason: "PATCH is not supported for this type",
			},
			{
				ID:   sub + "/resourceGroups/rg-demo/providers/Microsoft.Network/virtualNetworks/vnet-demo",
				Type: "Microsoft.Network/virtualNetworks", APIVersion: "2024-01-01",
				Action: plan.ActionReplace, Method: "DELETE+PUT",
				Changes: []plan.Change{
					{Path: "location", Before: "westeurope", After: "northeurope", Reason: "manifest changed", Kind: plan.KindChange, CreateOnly: true},
				},
				Reason: "a create-only property changed: the resource must be deleted and created again (needs --allow-replace)",
			},
			{
				ID:   sub + "/resourceGroups/rg-demo/providers/Microsoft.Network/publicIPAddresses/pip-old",
				Type: "Microsoft.Network/publicIPAddresses", APIVersion: "2024-01-01",
				Action: plan.ActionDelete, Method: "DELETE",
				Changes: []plan.Change{{Path: "", Before: "(exists)", After: nil, Reason: "recorded in state for set default but no longer declared (--prune)", Kind: plan.KindRemove}},
				Reason:  "recorded in state for set default but no longer declared (--prune)",
				Cascade: []plan.CascadeItem{
					{ID: sub + "/resourceGroups/rg-demo/providers/Microsoft.Network/publicIPAddresses/pip-old/providers/Microsoft.Authorization/locks/lk", Type: "Microsoft.Authorization/locks", Managed: false},
				},
			},
			{
				ID:   sub + "/resourceGroups/rg-demo/providers/Microsoft.KeyVault/vaults/kv-demo",
				Type: "Microsoft.KeyVault/vaults", APIVersion: "2023-07-01",
				Action: plan.ActionAdopt, Method: "PATCH",
				Changes: []plan.Change{
					{Path: "tags.owner", Before: nil, After: "platform", Reason: "manifest sets it", Kind: plan.KindAdd},
					{Path: "properties.accessPolicies[ops]", Before: map[string]any{"objectId": "ops"}, Reason: "added outside", Kind: plan.KindRemove, Cause: plan.CauseDrift},
					{Path: "properties.enablePurgeProtection", Before: true, After: false, Reason: "removed from manifest", Kind: plan.KindChange, Cause: plan.CauseDefaultReset},
				},
				Reason: "exists in Azure but not in state: written only with --adopt (or after import)",
			},
			{
				ID:   sub + "/resourceGroups/rg-demo/providers/Microsoft.Network/virtualNetworks/vnet-app/subnets/snet-app",
				Type: "Microsoft.Network/virtualNetworks/subnets", APIVersion: "2024-01-01",
				Action: plan.ActionCreate, Method: "PUT", Origin: "infra/network.yaml#1", Name: "snet-app",
				Changes: []plan.Change{
					{Path: "properties.networkSecurityGroup.id", After: sub + "/resourceGroups/rg-demo/providers/Microsoft.Network/networkSecurityGroups/nsg-demo", Reason: "new resource", Kind: plan.KindAdd, Cause: plan.CauseUser},
					{Path: "properties.serviceEndpoints", After: []any{map[string]any{"service": "Microsoft.Storage", "locations": []any{"westeurope", "northeurope"}}, map[string]any{"service": "Microsoft.KeyVault", "locations": []any{"*"}}}, Reason: "new resource", Kind: plan.KindAdd, Cause: plan.CauseUser},
					{Path: "properties.routeTable.id", After: plan.KnownAfterApply, Reason: "new resource", Kind: plan.KindAdd, KnownAfterApply: true},
					{Path: "properties.delegations[web]", Before: map[string]any{"name": "web"}, Reason: "removed from manifest", Kind: plan.KindRemove, Cause: plan.CauseRemoval, ChildDelete: true},
					{Path: "properties.privateEndpointNetworkPolicies", After: "Disabled\u202eevil", Reason: "new resource", Kind: plan.KindAdd},
				},
			},
			{
				ID:   sub + "/resourceGroups/rg-demo/providers/Microsoft.Network/networkSecurityGroups/nsg-demo",
				Type: "Microsoft.Network/networkSecurityGroups", APIVersion: "2024-01-01",
				Action: plan.ActionNoOp, Changes: nil,
				Equal: []plan.Equal{{Path: "properties.securityRules[allow-https].properties.protocol", Rule: "enum-case-insensitive"}},
			},
		},
		Warnings: []string{"infra/storage.yaml#0: readonly property properties.provisioningState ignored"},
		Problems: []plan.Problem{{File: "infra/storage.yaml", Document: 0, Line: 14, Path: "spec.body.properties.minimumTlsVersoin", Severity: plan.SeverityWarning,
			Message: "unknown property: Microsoft.Storage/storageAccounts 2023-05-01 does not declare it; did you mean minimumTlsVersion?"}},
		Undeclared: []string{sub + "/resourceGroups/rg-demo/providers/Microsoft.Network/privateDnsZones/old.internal"},
	}
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden (run with -update to create): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden (run go test ./pkg/printer -update and review the diff)\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}

// TestPlanJSONStreamsTheSameBytes: the streaming JSON writer gives exactly
// what encoding the whole plan at once gives, for the sample plan, an
// empty one and values an encoder could treat differently (HTML
// characters, unicode, big numbers, nested values, warnings that mention
// the resources member).
func TestPlanJSONStreamsTheSameBytes(t *testing.T) {
	odd := samplePlan()
	odd.Warnings = append(odd.Warnings, `"resources": null <b>&</b> ☃`)
	odd.Resources = append(odd.Resources, plan.Resource{ID: "/subscriptions/s/resourceGroups/rg/providers/X.Y/z/<a&b>", Action: plan.ActionUpdate,
		Changes: []plan.Change{{Path: `tags."a.b"`, Before: json.Number("12345678901234567890"), After: map[string]any{"x": []any{"<", "☃"}}, Kind: plan.KindChange}}})
	for name, p := range map[string]*plan.Plan{"sample": samplePlan(), "empty": {}, "odd": odd} {
		safe := sanitize(p, Options{}.withDefaults())
		var whole, streamed bytes.Buffer
		if err := printJSON(&whole, safe); err != nil {
			t.Fatal(err)
		}
		if err := printPlanJSON(&streamed, safe); err != nil {
			t.Fatal(err)
		}
		if whole.String() != streamed.String() {
			t.Errorf("%s: streamed JSON differs:\n--- whole\n%s\n--- streamed\n%s", name, whole.String(), streamed.String())
		}
	}
}
