package emulator

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// A soft-deleted vault with purge protection cannot be purged before its
// retention ends: az keyvault purge answers (MethodNotAllowed) "Operation
// 'DeletedVaultPurge' is not allowed." (microsoft/AzureTRE issue 1446); the
// vault stays listed as deleted and its name stays taken.
func TestPurgeOfPurgeProtectedVaultRefused(t *testing.T) {
	u, g := startWithGroup(t, "rg-kv")
	q := "?api-version=2023-07-01"
	sub := "/subscriptions/" + testSub
	kv := u + g + "/providers/Microsoft.KeyVault/vaults/kv-protected-a"
	props := map[string]any{"tenantId": emulatorTenant, "sku": map[string]any{"family": "A", "name": "standard"}, "enableRbacAuthorization": true, "enablePurgeProtection": true}
	if r := do(t, http.MethodPut, kv+q, map[string]any{"location": "westeurope", "properties": props}); r.Status >= 300 {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	if r := do(t, http.MethodDelete, kv+q, nil); r.Status >= 300 {
		t.Fatalf("delete: %d %s", r.Status, r.Raw)
	}
	purge := u + sub + "/providers/Microsoft.KeyVault/locations/westeurope/deletedVaults/kv-protected-a/purge" + q
	r := do(t, http.MethodPost, purge, nil)
	if r.Status != http.StatusMethodNotAllowed || errCode(r) != "MethodNotAllowed" || !strings.Contains(r.Raw, "Operation 'DeletedVaultPurge' is not allowed.") {
		t.Fatalf("purge of a protected vault: %d %s", r.Status, r.Raw)
	}
	if r := do(t, http.MethodGet, u+sub+"/providers/Microsoft.KeyVault/locations/westeurope/deletedVaults/kv-protected-a"+q, nil); r.Status != http.StatusOK {
		t.Fatalf("the vault must stay soft-deleted: %d %s", r.Status, r.Raw)
	}
}

// A subscription answers managedByTenants, and each region its pair.
func TestSubscriptionAndLocationShapes(t *testing.T) {
	u := startTest(t, nil).URL()
	sub := "/subscriptions/" + testSub
	b := get(t, u+sub+"?api-version=2022-12-01")
	if jsonText(b["managedByTenants"]) != "[]" || b["authorizationSource"] != "RoleBased" {
		t.Errorf("subscription: %s", jsonText(b))
	}
	locs := get(t, u+sub+"/locations?api-version=2022-12-01")["value"].([]any)
	want := map[string]string{"westeurope": "northeurope", "eastus": "westus", "westus3": "eastus", "qatarcentral": ""}
	for _, l := range locs {
		name, _ := at(l, "name").(string)
		w, ok := want[name]
		if !ok {
			continue
		}
		delete(want, name)
		refs, _ := at(l, "metadata", "pairedRegion").([]any)
		got := ""
		if len(refs) == 1 {
			got, _ = at(refs[0], "name").(string)
			if at(refs[0], "id") != sub+"/locations/"+w {
				t.Errorf("%s: pairedRegion id %v", name, at(refs[0], "id"))
			}
		}
		if refs == nil || got != w {
			t.Errorf("%s: pairedRegion %s, want %q", name, jsonText(refs), w)
		}
	}
	if len(want) > 0 {
		t.Errorf("regions not listed: %v", want)
	}
}

// ARM's generic resource lists hold tracked resources only: a deployment
// is not one (az resource list never shows Microsoft.Resources/deployments;
// Resources - List By Resource Group lists GenericResourceExpanded), with
// or without the lagging list cache.
func TestGenericListOmitsDeployments(t *testing.T) {
	for _, lag := range []time.Duration{0, time.Millisecond} {
		s := startTest(t, func(o *Options) { o.LRODuration = 0; o.CacheLag = lag })
		u, g := s.URL(), "/subscriptions/"+testSub+"/resourceGroups/rg-gen"
		put(t, u+g+"?api-version=2021-04-01", map[string]any{"location": "westeurope"})
		tpl := map[string]any{
			"$schema":        "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
			"contentVersion": "1.0.0.0",
			"resources": []any{map[string]any{"type": "Microsoft.ManagedIdentity/userAssignedIdentities", "apiVersion": "2023-01-31",
				"name": "id-gen", "location": "[resourceGroup().location]"}},
		}
		dep := u + g + "/providers/Microsoft.Resources/deployments/main?api-version=2022-09-01"
		put(t, dep, map[string]any{"properties": map[string]any{"mode": "Incremental", "template": tpl}})
		waitDeployment(t, dep)
		time.Sleep(5 * time.Millisecond)
		for _, list := range []string{g + "/resources", "/subscriptions/" + testSub + "/resources"} {
			items := get(t, u+list+"?api-version=2021-04-01")["value"].([]any)
			var types []string
			for _, it := range items {
				types = append(types, at(it, "type").(string))
			}
			if len(types) != 1 || types[0] != "Microsoft.ManagedIdentity/userAssignedIdentities" {
				t.Errorf("lag %v, %s lists %v, want only the identity", lag, list, types)
			}
		}
	}
}

// Built-in roles public templates assign by ID (Microsoft Learn "Azure
// built-in roles" lists each ID with its name) are accepted, as ARM
// accepts them: the corpus's data protection, Data Factory, Digital Twins
// and FHIR templates assign these.
func TestCorpusBuiltinRolesAssignable(t *testing.T) {
	u, g := startWithGroup(t, "rg-roles")
	for i, role := range []string{
		"673868aa-7521-48a0-acc6-0f60742d39f5", // Data Factory Contributor
		"7efff54f-a5b4-42b5-a1c5-5411624893ce", // Disk Snapshot Contributor
		"3e5e47e6-65f7-47ef-90b5-e5dd4d455f24", // Disk Backup Reader
		"d18ad5f3-1baf-4119-b49b-d944edb1f9d0", // MySQL Backup And Export Operator
		"c088a766-074b-43ba-90d4-1fb21feae531", // PostgreSQL Flexible Server Long Term Retention Backup Role
		"e5e2a7ff-d759-4cd2-bb51-3152d37e2eb1", // Storage Account Backup Contributor
		"bcd981a7-7f74-457b-83e1-cceb9e632ffe", // Azure Digital Twins Data Owner
		"3f88fce4-5892-4214-ae73-ba5294559913", // FHIR Data Writer
		"45d50f46-0b78-4001-a660-4198cbe8cd05", // DevCenter Dev Box User
	} {
		name := "1111111" + itoa(i) + "-1111-4111-8111-111111111111"
		r := do(t, http.MethodPut, u+g+"/providers/Microsoft.Authorization/roleAssignments/"+name+"?api-version=2022-04-01",
			map[string]any{"properties": map[string]any{"principalId": "2222222" + itoa(i) + "-2222-4222-8222-222222222222",
				"roleDefinitionId": "/subscriptions/" + testSub + "/providers/Microsoft.Authorization/roleDefinitions/" + role}})
		if r.Status != http.StatusCreated {
			t.Errorf("role %s: %d %s", role, r.Status, r.Raw)
		}
	}
}
