package main

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/keyvault/armkeyvault"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v6"
)

// readOnlyWriteOnly: ARM ignores readonly input and never returns
// write-only values.
//   - Readonly: the ARM resource provider contract (read-only properties
//     in a PUT are ignored) and the specs' readOnly markers
//     (virtualNetworks resourceGuid).
//   - Key Vault secret value: "NOTE: 'value' will never be returned from
//     the service" (Key Vault management spec, SecretProperties.value).
//   - Site siteConfig.appSettings: GET answers null (recorded
//     Microsoft.Web/sites GET bodies in public transcripts).
//   - Data Factory SecureString: answered as "**********" (spec examples
//     LinkedServices_Get).
//   - VM osProfile.adminPassword: not in the GET model (Compute spec).
//
// No Web, Compute or Data Factory client is in the module cache, so those
// three are raw requests.
func readOnlyWriteOnly(ctx context.Context, e *env, r *runner) {
	vnets, _ := armnetwork.NewVirtualNetworksClient(e.sub, e.cred, e.opts)
	const sentGUID = "11111111-2222-3333-4444-555555555555"
	r.check("readonly: a vnet's resourceGuid in the PUT is ignored", func() error {
		p, err := vnets.BeginCreateOrUpdate(ctx, group, "vnet-readonly", armnetwork.VirtualNetwork{Location: to.Ptr(location),
			Properties: &armnetwork.VirtualNetworkPropertiesFormat{
				AddressSpace: &armnetwork.AddressSpace{AddressPrefixes: []*string{to.Ptr("10.40.0.0/16")}},
				ResourceGUID: to.Ptr(sentGUID),
			}}, nil)
		if err := settle(ctx, e, p, err); err != nil {
			return err
		}
		got, err := vnets.Get(ctx, group, "vnet-readonly", nil)
		if err != nil {
			return err
		}
		return expect(deref(got.Properties.ResourceGUID) != sentGUID, "resourceGuid stored as sent")
	})
	secrets, _ := armkeyvault.NewSecretsClient(e.sub, e.cred, e.opts)
	const secret = "conformance-secret-value-9f2c"
	r.check("write-only: a Key Vault secret's value is never returned", func() error {
		res, err := secrets.CreateOrUpdate(ctx, group, "kv-conf-001", "s1", armkeyvault.SecretCreateOrUpdateParameters{
			Properties: &armkeyvault.SecretProperties{Value: to.Ptr(secret), ContentType: to.Ptr("text/plain")}}, nil)
		if err != nil {
			return err
		}
		if res.Properties != nil && res.Properties.Value != nil {
			return expect(false, "PUT answer carries the value")
		}
		got, err := secrets.Get(ctx, group, "kv-conf-001", "s1", nil)
		if err != nil {
			return err
		}
		return expect(got.Properties == nil || got.Properties.Value == nil, "GET answer carries the value")
	})
	raw := func(id, version, body string) (map[string]any, error) {
		if err := e.put(ctx, id, version, body); err != nil {
			return nil, err
		}
		return e.getOK(ctx, id, version)
	}
	r.check("write-only: a site's siteConfig.appSettings is null on GET", func() error {
		if _, err := raw(e.rg(group)+"/providers/Microsoft.Web/serverfarms/plan-conf", "2023-12-01", `{"location":"westeurope","sku":{"name":"B1"}}`); err != nil {
			return err
		}
		got, err := raw(e.rg(group)+"/providers/Microsoft.Web/sites/site-conf-wo", "2023-12-01",
			`{"location":"westeurope","properties":{"serverFarmId":"`+e.rg(group)+`/providers/Microsoft.Web/serverfarms/plan-conf","siteConfig":{"appSettings":[{"name":"PASSWORD","value":"`+secret+`"}]}}}`)
		if err != nil {
			return err
		}
		sc, _ := got["properties"].(map[string]any)["siteConfig"].(map[string]any)
		v, present := sc["appSettings"]
		return expect(present && v == nil, "appSettings %v (present %v)", v, present)
	})
	r.check("write-only: a Data Factory SecureString is masked", func() error {
		if _, err := raw(e.rg(group)+"/providers/Microsoft.DataFactory/factories/adf-conf", "2018-06-01", `{"location":"westeurope","properties":{}}`); err != nil {
			return err
		}
		got, err := raw(e.rg(group)+"/providers/Microsoft.DataFactory/factories/adf-conf/linkedservices/ls1", "2018-06-01",
			`{"properties":{"type":"AzureSqlDatabase","typeProperties":{"connectionString":{"type":"SecureString","value":"`+secret+`"}}}}`)
		if err != nil {
			return err
		}
		v := mapAt(got, "properties", "typeProperties", "connectionString")["value"]
		return expect(v == "**********", "value %v", v)
	})
	r.check("write-only: a VM's adminPassword is never returned", func() error {
		got, err := raw(e.rg(group)+"/providers/Microsoft.Compute/virtualMachines/vm-conf-wo", "2024-03-01",
			`{"location":"westeurope","properties":{"hardwareProfile":{"vmSize":"Standard_B1s"},"osProfile":{"computerName":"vm","adminUsername":"azureuser","adminPassword":"`+secret+`"}}}`)
		if err != nil {
			return err
		}
		_, present := mapAt(got, "properties", "osProfile")["adminPassword"]
		return expect(!present, "adminPassword returned")
	})
	r.check("write-only: none of the values is in a resource-group list", func() error {
		_, b, err := e.rawGet(ctx, e.rg(group)+"/resources?api-version=2021-04-01")
		if err != nil {
			return err
		}
		return expect(!strings.Contains(mustJSON(b), secret), "a list carries a write-only value")
	})
}

// mapAt walks nested objects, nil when a step is missing.
func mapAt(m map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		m, _ = m[k].(map[string]any)
	}
	return m
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
