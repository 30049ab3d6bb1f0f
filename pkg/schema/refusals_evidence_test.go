package schema_test

import (
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// Two public templates that deploy today: an App Insights component
// without kind, a private DNS zone group with a location. A spec's
// required flag and the Network provider's closed model are evidence to
// warn on, not to refuse; refusals on record stay errors.
func TestOfflineChecksRefuseOnlyWhatARMRefuses(t *testing.T) {
	reg := schema.Default()
	for _, tc := range []struct {
		name, typ, version, path string
		body                     map[string]any
		want                     schema.Severity
	}{
		{"component without kind", "Microsoft.Insights/components", "2020-02-02-preview", "kind",
			map[string]any{"location": "westeurope", "properties": map[string]any{"Application_Type": "web"}}, schema.Warning},
		{"zone group with a location", "Microsoft.Network/privateEndpoints/privateDnsZoneGroups", "2021-05-01", "location",
			map[string]any{"location": "westeurope", "properties": map[string]any{"privateDnsZoneConfigs": []any{}}}, schema.Warning},
		{"storage account without sku", "Microsoft.Storage/storageAccounts", "2023-05-01", "sku",
			map[string]any{"location": "westeurope", "kind": "StorageV2"}, schema.Error},
		{"storage account without kind at 2016-01-01", "Microsoft.Storage/storageAccounts", "2016-01-01", "kind",
			map[string]any{"location": "westeurope", "sku": map[string]any{"name": "Standard_LRS"}}, schema.Error},
		{"storage account without kind at 2021-01-01", "Microsoft.Storage/storageAccounts", "2021-01-01", "kind",
			map[string]any{"location": "westeurope", "sku": map[string]any{"name": "Standard_LRS"}}, schema.Warning},
		{"Network member inside the model", "Microsoft.Network/routeTables", "2023-09-01", "properties.notAMember",
			map[string]any{"location": "westeurope", "properties": map[string]any{"notAMember": 1}}, schema.Error},
		{"Network top-level member other than the envelope", "Microsoft.Network/virtualNetworks", "2024-05-01", "zone",
			map[string]any{"location": "westeurope", "zone": "1"}, schema.Error},
	} {
		typ, _ := reg.Lookup(tc.typ, tc.version)
		if typ == nil || typ.Fallback() {
			t.Fatalf("%s@%s: no exact schema", tc.typ, tc.version)
		}
		var got *schema.Issue
		for _, is := range typ.ValidateWith(tc.body, schema.ValidateOptions{Name: "x", Create: true}) {
			if is.Path == tc.path {
				got = &is
			}
		}
		if got == nil || got.Severity != tc.want {
			t.Errorf("%s: finding at %s = %v, want a %s", tc.name, tc.path, got, tc.want)
		}
	}
}
