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
