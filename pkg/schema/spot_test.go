package schema

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Spot checks: facts read by hand from the specs archive, checked against
// the embedded index. Each names the spec it comes from.

func lookup(t *testing.T, typ, version string) *Type {
	t.Helper()
	ty, res := Default().Lookup(typ, version)
	if ty == nil || !res.Found {
		t.Fatalf("%s@%s not found: %+v", typ, version, res)
	}
	if res.Nearest || res.APIVersion != version {
		t.Fatalf("%s@%s resolved to %+v; the spot check needs the exact version", typ, version, res)
	}
	return ty
}

func prop(t *testing.T, ty *Type, path string) *Property {
	t.Helper()
	p := ty.Prop(path)
	if p == nil {
		t.Fatalf("%s@%s: no property %s", ty.Name, ty.APIVersion, path)
	}
	return p
}

// storage.json 2023-05-01: TrackedResource.location is
// x-ms-mutability [read, create]; StorageAccountProperties.primaryEndpoints
// is readOnly.
func TestSpotStorageAccount(t *testing.T) {
	ty := lookup(t, "Microsoft.Storage/storageAccounts", "2023-05-01")
	if p := prop(t, ty, "location"); !p.CreateOnly || p.ReadOnly {
		t.Errorf("location = %+v, want create-only", p)
	}
	for _, path := range []string{"properties.primaryEndpoints", "properties.primaryEndpoints.blob"} {
		if p := prop(t, ty, path); !p.ReadOnly {
			t.Errorf("%s = %+v, want readonly", path, p)
		}
	}
	// The GET model marks sku readonly, the PUT model does not: PUT decides.
	if p := prop(t, ty, "sku.name"); p.ReadOnly {
		t.Errorf("sku.name readonly; the create parameters accept it")
	}
	// Sku.tier: readOnly, enum with modelAsString false.
	if p := prop(t, ty, "sku.tier"); !p.ReadOnly || !p.EnumClosed || !reflect.DeepEqual(p.Enum, []string{"Standard", "Premium"}) {
		t.Errorf("sku.tier = %+v", p)
	}
	// Encryption.keySource: default Microsoft.Storage, open enum.
	if p := prop(t, ty, "properties.encryption.keySource"); p.Default != "Microsoft.Storage" || p.EnumClosed {
		t.Errorf("keySource = %+v", p)
	}
	// accessTier: AccessTier enum, modelAsString false.
	if p := prop(t, ty, "properties.accessTier"); !p.EnumClosed || !slices.Contains(p.Enum, "Cool") {
		t.Errorf("accessTier = %+v", p)
	}
	// No etag on StorageAccount; PUT (Create) long-running; PATCH with
	// StorageAccountUpdateParameters, which has no primaryEndpoints.
	if ty.HasEtag || !ty.PutLRO || ty.DeleteLRO || !ty.PatchSupported {
		t.Errorf("storage flags etag=%v putLRO=%v deleteLRO=%v patch=%v", ty.HasEtag, ty.PutLRO, ty.DeleteLRO, ty.PatchSupported)
	}
	if !slices.Contains(ty.PatchPaths, "properties.minimumTlsVersion") || slices.Contains(ty.PatchPaths, "properties.primaryEndpoints") {
		t.Errorf("storage patch paths: minimumTlsVersion in=%v primaryEndpoints in=%v",
			slices.Contains(ty.PatchPaths, "properties.minimumTlsVersion"), slices.Contains(ty.PatchPaths, "properties.primaryEndpoints"))
	}
	// Readonly status fields of the GET model are kept.
	if p := prop(t, ty, "properties.creationTime"); !p.ReadOnly {
		t.Errorf("creationTime = %+v", p)
	}
}

// mysql FlexibleServers.json 2023-12-30: administratorLoginPassword is
// format password + x-ms-secret, mutability [create, update] (never read).
func TestSpotMySQLFlexibleServerPassword(t *testing.T) {
	ty := lookup(t, "Microsoft.DBforMySQL/flexibleServers", "2023-12-30")
	p := prop(t, ty, "properties.administratorLoginPassword")
	if !p.Secret || !p.WriteOnly || p.Type != TypeString {
		t.Errorf("administratorLoginPassword = %+v, want secret, write-only string", p)
	}
}

// network virtualNetwork.json 2023-11-01: subnets carry no
// x-ms-identifiers (items keyed by the name fallback); PATCH takes
// TagsObject only; etag, long-running PUT and DELETE.
func TestSpotVirtualNetwork(t *testing.T) {
	ty := lookup(t, "Microsoft.Network/virtualNetworks", "2023-11-01")
	keys, positional, fromSpec := ty.ArrayKeys("properties.subnets")
	if !reflect.DeepEqual(keys, []string{"name"}) || positional || fromSpec {
		t.Errorf("subnets keys = %v positional=%v fromSpec=%v, want [name] by fallback", keys, positional, fromSpec)
	}
	if !ty.PatchSupported || !reflect.DeepEqual(ty.PatchPaths, []string{"tags", "tags.*"}) {
		t.Errorf("PATCH = %v %v, want tags only", ty.PatchSupported, ty.PatchPaths)
	}
	if !ty.HasEtag || !ty.PutLRO || !ty.DeleteLRO {
		t.Errorf("vnet flags etag=%v putLRO=%v deleteLRO=%v", ty.HasEtag, ty.PutLRO, ty.DeleteLRO)
	}
	if p := prop(t, ty, "properties.subnets[].properties.addressPrefix"); p.Type != TypeString || p.ReadOnly {
		t.Errorf("subnet addressPrefix = %+v", p)
	}
	if p := prop(t, ty, "etag"); !p.ReadOnly {
		t.Errorf("etag = %+v", p)
	}
}

// keyvault.json 2023-07-01: VaultProperties.createMode has
// x-ms-mutability [create, update], so GET never returns it; its enum is
// closed (modelAsString false).
func TestSpotKeyVaultCreateMode(t *testing.T) {
	ty := lookup(t, "microsoft.keyvault/VAULTS", "2023-07-01") // names are case-insensitive
	if ty.Name != "Microsoft.KeyVault/vaults" {
		t.Errorf("canonical name = %q", ty.Name)
	}
	p := prop(t, ty, "properties.createMode")
	if !p.WriteOnly || !p.EnumClosed || !reflect.DeepEqual(p.Enum, []string{"recover", "default"}) {
		t.Errorf("createMode = %+v", p)
	}
}

// app CommonDefinitions.json 2024-03-01: env keyed by name, volumeMounts
// by volumeName, probes by type (x-ms-identifiers); managedEnvironmentId
// is create-only.
func TestSpotContainerApp(t *testing.T) {
	ty := lookup(t, "Microsoft.App/containerApps", "2024-03-01")
	for path, want := range map[Path]string{
		"properties.template.containers[].env":          "name",
		"properties.template.containers[].volumeMounts": "volumeName",
		"properties.template.containers[].probes":       "type",
	} {
		keys, positional, fromSpec := ty.ArrayKeys(path)
		if !reflect.DeepEqual(keys, []string{want}) || positional || !fromSpec {
			t.Errorf("%s keys = %v positional=%v fromSpec=%v, want [%s] from the spec", path, keys, positional, fromSpec, want)
		}
	}
	if p := prop(t, ty, "properties.managedEnvironmentId"); !p.CreateOnly {
		t.Errorf("managedEnvironmentId = %+v, want create-only", p)
	}
	if p := prop(t, ty, "systemData.createdBy"); !p.ReadOnly {
		t.Errorf("systemData.createdBy (common-types) = %+v, want readonly", p)
	}
}

// sql FailoverGroups.json 2021-11-01: partnerServers[].id is format arm-id
// inside a create-only array ([read, create]); replicationRole readonly.
func TestSpotSQLFailoverGroup(t *testing.T) {
	ty := lookup(t, "Microsoft.Sql/servers/failoverGroups", "2021-11-01")
	if p := prop(t, ty, "properties.partnerServers[].id"); !p.ARMID || !p.CreateOnly {
		t.Errorf("partnerServers[].id = %+v, want arm-id, create-only", p)
	}
	if p := prop(t, ty, "properties.partnerServers[].replicationRole"); !p.ReadOnly {
		t.Errorf("replicationRole = %+v", p)
	}
}

// compute virtualMachine.json 2024-03-01: dataDisks keyed by lun;
// adminPassword secret; etag; PUT and DELETE long-running.
func TestSpotVirtualMachine(t *testing.T) {
	ty := lookup(t, "Microsoft.Compute/virtualMachines", "2024-03-01")
	if keys, _, fromSpec := ty.ArrayKeys("properties.storageProfile.dataDisks"); !reflect.DeepEqual(keys, []string{"lun"}) || !fromSpec {
		t.Errorf("dataDisks keys = %v fromSpec=%v", keys, fromSpec)
	}
	if p := prop(t, ty, "properties.osProfile.adminPassword"); !p.Secret {
		t.Errorf("adminPassword = %+v", p)
	}
	if p := prop(t, ty, "properties.storageProfile.dataDisks[].lun"); p.Type != TypeInteger {
		t.Errorf("lun = %+v", p)
	}
	// virtualMachine.json extends compute's own common-types/v1/common.json
	// Resource, absent from the stable-only archive; the generator falls
	// back to the shared common-types TrackedResource.
	if p := prop(t, ty, "location"); !p.CreateOnly {
		t.Errorf("vm location = %+v, want create-only", p)
	}
	prop(t, ty, "tags.*")
	if !ty.HasEtag || !ty.PutLRO || !ty.DeleteLRO {
		t.Errorf("vm flags etag=%v putLRO=%v deleteLRO=%v", ty.HasEtag, ty.PutLRO, ty.DeleteLRO)
	}
}

// dns dns.json 2018-05-01: the record type is a path parameter with an
// enum ({recordType}); each value is a resource type of its own.
func TestSpotDNSRecordSetTypes(t *testing.T) {
	for _, rt := range []string{"A", "CNAME", "TXT"} {
		ty := lookup(t, "Microsoft.Network/dnsZones/"+rt, "2018-05-01")
		if !ty.HasEtag || !ty.PatchSupported {
			t.Errorf("%s: etag=%v patch=%v", ty.Name, ty.HasEtag, ty.PatchSupported)
		}
	}
	ty := lookup(t, "Microsoft.Network/dnsZones/CNAME", "2018-05-01")
	prop(t, ty, "properties.CNAMERecord.cname")
}

// datafactory LinkedService.json 2018-06-01: LinkedService is a
// discriminated base ("type"); connectionString only exists in
// sub-types' typeProperties, which must be merged.
func TestSpotDataFactoryDiscriminator(t *testing.T) {
	ty := lookup(t, "Microsoft.DataFactory/factories/linkedservices", "2018-06-01")
	prop(t, ty, "properties.type")
	prop(t, ty, "properties.typeProperties.connectionString")
	prop(t, ty, "properties.connectVia.referenceName")
}

// resources.json 2022-09-01: resource groups have no provider segment in
// their path and are still a type; the PATCH model omits location.
func TestSpotResourceGroup(t *testing.T) {
	ty := lookup(t, "Microsoft.Resources/resourceGroups", "2022-09-01")
	if p := prop(t, ty, "properties.provisioningState"); !p.ReadOnly {
		t.Errorf("provisioningState = %+v", p)
	}
	if !ty.PatchSupported || slices.Contains(ty.PatchPaths, "location") || !ty.DeleteLRO {
		t.Errorf("resource group patch=%v paths=%v deleteLRO=%v", ty.PatchSupported, ty.PatchPaths, ty.DeleteLRO)
	}
}

// A newer api-version than the specs know resolves to the newest one,
// with a warning; an older one to the oldest.
func TestSpotNearestVersion(t *testing.T) {
	r := Default()
	vs := r.Versions("Microsoft.Storage/storageAccounts")
	if len(vs) < 20 || vs[0] != "2015-05-01-preview" {
		t.Fatalf("storage versions = %v", vs)
	}
	ty, res := r.Lookup("Microsoft.Storage/storageAccounts", "2099-01-01")
	if ty == nil || !res.Nearest || res.APIVersion != vs[len(vs)-1] || !strings.Contains(res.Warning, "2099-01-01") {
		t.Errorf("future version: %+v", res)
	}
	_, res = r.Lookup("Microsoft.Storage/storageAccounts", "2023-06-01")
	if !res.Nearest || res.APIVersion != "2023-05-01" {
		t.Errorf("2023-06-01 resolved to %+v, want nearest 2023-05-01", res)
	}
	_, res = r.Lookup("Microsoft.Storage/storageAccounts", "2010-01-01")
	if !res.Nearest || res.APIVersion != "2015-05-01-preview" {
		t.Errorf("2010-01-01 resolved to %+v", res)
	}
	_, res = r.Lookup("Microsoft.Storage/storageAccounts", "")
	if res.Nearest || res.APIVersion != vs[len(vs)-1] || res.Warning != "" {
		t.Errorf("no version: %+v, want the newest without warning", res)
	}
}
