package main

import (
	"context"
	"net/http"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"
)

// serverCreated: what ARM's providers create, compute or serve on their
// own. Sources: Microsoft Learn ("every namespace has a
// RootManageSharedAccessKey"; "a default consumer group $Default"; the
// logical server's master database; App Service default host names),
// the REST references (Shared Keys - Get Shared Keys; Namespaces - List
// Keys; Zones - Get nameServers; RecordSets fqdn; Role Definitions - Get
// / List with roleName filter; Resources - List $filter startswith and
// ne). Service Bus, Event Hubs, SQL, DNS and Log Analytics clients are
// not in the module cache: those checks are raw requests.
func serverCreated(ctx context.Context, e *env, r *runner) {
	g := e.rg(group)
	sb := g + "/providers/Microsoft.ServiceBus/namespaces/sb-conf-ns"
	r.check("server-created: a Service Bus namespace has RootManageSharedAccessKey", func() error {
		if err := e.put(ctx, sb, "2022-10-01-preview", `{"location":"westeurope","sku":{"name":"Standard"}}`); err != nil {
			return err
		}
		_, err := e.getOK(ctx, sb+"/authorizationRules/RootManageSharedAccessKey", "2022-10-01-preview")
		return err
	})
	r.check("server-created: Service Bus listKeys answers connection strings", func() error {
		b, err := e.postOK(ctx, sb+"/authorizationRules/RootManageSharedAccessKey/listKeys", "2022-10-01-preview")
		if err != nil {
			return err
		}
		cs, _ := b["primaryConnectionString"].(string)
		return expect(strings.HasPrefix(cs, "Endpoint=sb://sb-conf-ns.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey="), "connection string %q", cs)
	})
	r.check("server-created: an event hub has the $Default consumer group", func() error {
		eh := g + "/providers/Microsoft.EventHub/namespaces/eh-conf-ns"
		if err := e.put(ctx, eh, "2024-01-01", `{"location":"westeurope","sku":{"name":"Standard"}}`); err != nil {
			return err
		}
		if err := e.put(ctx, eh+"/eventhubs/hub", "2024-01-01", `{"properties":{"partitionCount":2}}`); err != nil {
			return err
		}
		_, err := e.getOK(ctx, eh+"/eventhubs/hub/consumergroups/$Default", "2024-01-01")
		return err
	})
	r.check("server-created: ARM refuses DELETE of a Key Vault secret (400 DisallowedResourceOperation)", func() error {
		// Azure/terraform-provider-azapi issue 879: "The operation 'delete'
		// on resource type 'vaults/secrets' is disallowed."
		kv := g + "/providers/Microsoft.KeyVault/vaults/kv-conf-nodel"
		if err := e.put(ctx, kv, "2023-07-01", `{"location":"westeurope","properties":{"tenantId":"00000000-0000-0000-0000-0000000000aa","sku":{"family":"A","name":"standard"},"enableRbacAuthorization":true}}`); err != nil {
			return err
		}
		if err := e.put(ctx, kv+"/secrets/conf", "2023-07-01", `{"properties":{"value":"conformance"}}`); err != nil {
			return err
		}
		res, body, err := e.rawDo(ctx, http.MethodDelete, kv+"/secrets/conf?api-version=2023-07-01", "")
		if err != nil {
			return err
		}
		if err := expect(res.StatusCode == 400 && errorCode(body) == "DisallowedResourceOperation", "DELETE secret: %d %s", res.StatusCode, errorCode(body)); err != nil {
			return err
		}
		_, err = e.getOK(ctx, kv+"/secrets/conf", "2023-07-01")
		return err
	})
	r.check("server-created: a SQL server has the master database", func() error {
		sql := g + "/providers/Microsoft.Sql/servers/sql-conf-srv"
		if err := e.put(ctx, sql, "2023-05-01-preview", `{"location":"westeurope","properties":{"administratorLogin":"conf","administratorLoginPassword":"Conf-Passw0rd!"}}`); err != nil {
			return err
		}
		_, err := e.getOK(ctx, sql+"/databases/master", "2023-05-01-preview")
		return err
	})
	r.check("server-created: a PostgreSQL flexible server has the postgres database and its server parameters", func() error {
		pg := g + "/providers/Microsoft.DBforPostgreSQL/flexibleServers/pg-conf-srv"
		if err := e.put(ctx, pg, "2023-06-01-preview", `{"location":"westeurope","sku":{"name":"Standard_B1ms","tier":"Burstable"},"properties":{"version":"16"}}`); err != nil {
			return err
		}
		if _, err := e.getOK(ctx, pg+"/databases/postgres", "2023-06-01-preview"); err != nil {
			return err
		}
		b, err := e.getOK(ctx, pg+"/configurations/require_secure_transport", "2023-06-01-preview")
		if err != nil {
			return err
		}
		return expect(mapAt(b, "properties")["value"] == "on", "require_secure_transport %v", mapAt(b, "properties")["value"])
	})
	r.check("server-created: a site's app settings are read back with POST config/appsettings/list", func() error {
		b, err := e.postOK(ctx, g+"/providers/Microsoft.Web/sites/site-conf-wo/config/appsettings/list", "2023-12-01")
		if err != nil {
			return err
		}
		return expect(mapAt(b, "properties")["PASSWORD"] != nil, "settings %v", keys(mapAt(b, "properties")))
	})
	r.check("server-created: Log Analytics sharedKeys answers primarySharedKey", func() error {
		la := g + "/providers/Microsoft.OperationalInsights/workspaces/law-conf"
		if err := e.put(ctx, la, "2022-10-01", `{"location":"westeurope","properties":{}}`); err != nil {
			return err
		}
		b, err := e.postOK(ctx, la+"/sharedKeys", "2022-10-01")
		if err != nil {
			return err
		}
		return expect(b["primarySharedKey"] != nil && b["secondarySharedKey"] != nil, "answer %v", keys(b))
	})
	r.check("server-created: a DNS zone has four name servers and a record its FQDN", func() error {
		zone := g + "/providers/Microsoft.Network/dnszones/conformance.example"
		if err := e.put(ctx, zone, "2018-05-01", `{"location":"global"}`); err != nil {
			return err
		}
		b, err := e.getOK(ctx, zone, "2018-05-01")
		if err != nil {
			return err
		}
		ns, _ := mapAt(b, "properties")["nameServers"].([]any)
		if len(ns) != 4 {
			return expect(false, "nameServers %v", ns)
		}
		if err := e.put(ctx, zone+"/A/www", "2018-05-01", `{"properties":{"TTL":300,"ARecords":[{"ipv4Address":"10.1.2.3"}]}}`); err != nil {
			return err
		}
		rec, err := e.getOK(ctx, zone+"/A/www", "2018-05-01")
		if err != nil {
			return err
		}
		return expect(mapAt(rec, "properties")["fqdn"] == "www.conformance.example.", "fqdn %v", mapAt(rec, "properties")["fqdn"])
	})
	r.check("server-created: a built-in policy definition is readable", func() error {
		b, err := e.getOK(ctx, "/providers/Microsoft.Authorization/policyDefinitions/e56962a6-4747-49cd-b67b-bf8b01975c4c", "2023-04-01")
		if err != nil {
			return err
		}
		return expect(mapAt(b, "properties")["policyType"] == "BuiltIn", "policyType %v", mapAt(b, "properties")["policyType"])
	})
	// Microsoft Learn "Diagnostic settings in Azure Monitor": the settings
	// are not deleted with their resource and apply again to a resource
	// re-created with the same name.
	r.check("server-created: diagnostic settings outlive their resource", func() error {
		id := g + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-conf-diag"
		diag := id + "/providers/Microsoft.Insights/diagnosticSettings/to-law"
		if err := e.put(ctx, id, "2023-01-31", `{"location":"westeurope"}`); err != nil {
			return err
		}
		if err := e.put(ctx, diag, "2021-05-01-preview", `{"properties":{"workspaceId":"`+g+`/providers/Microsoft.OperationalInsights/workspaces/law-conf","logs":[]}}`); err != nil {
			return err
		}
		if res, _, err := e.rawDo(ctx, http.MethodDelete, id+"?api-version=2023-01-31", ""); err != nil || res.StatusCode >= 300 {
			return expect(false, "delete: %v %v", res, err)
		}
		if err := e.put(ctx, id, "2023-01-31", `{"location":"westeurope"}`); err != nil {
			return err
		}
		_, err := e.getOK(ctx, diag, "2021-05-01-preview")
		return err
	})
	rd, _ := armauthorization.NewRoleDefinitionsClient(e.cred, e.opts)
	r.check("server-created: built-in role definition Reader is readable", func() error {
		res, err := rd.Get(ctx, "/subscriptions/"+e.sub, "acdd72a7-3385-48ef-bd42-f606fba81ae7", nil)
		if err != nil {
			return err
		}
		return expect(deref(res.Properties.RoleName) == "Reader" && deref(res.Properties.RoleType) == "BuiltInRole", "role %q type %q", deref(res.Properties.RoleName), deref(res.Properties.RoleType))
	})
	r.check("server-created: role definitions list filters by roleName", func() error {
		defs, err := listAll[*armauthorization.RoleDefinition](ctx, rd.NewListPager("/subscriptions/"+e.sub, &armauthorization.RoleDefinitionsClientListOptions{Filter: to.Ptr("roleName eq 'Storage Blob Data Contributor'")}))
		if err != nil {
			return err
		}
		var names []string
		for _, d := range defs {
			names = append(names, deref(d.Name))
		}
		return expect(len(names) == 1 && names[0] == "ba92f5b4-2d11-453d-a403-e96b0029c9fe", "names %v", names)
	})
	res, _ := armresources.NewClient(e.sub, e.cred, e.opts)
	listNames := func(filter string) ([]string, error) {
		items, err := listAll[*armresources.GenericResourceExpanded](ctx, res.NewListByResourceGroupPager(group, &armresources.ClientListByResourceGroupOptions{Filter: to.Ptr(filter)}))
		var out []string
		for _, it := range items {
			out = append(out, deref(it.Name))
		}
		return out, err
	}
	r.check("server-created: $filter startswith(tagName, ...) lists tagged resources", func() error {
		names, err := listNames("startswith(tagName, 'merg')")
		if err != nil {
			return err
		}
		return expect(len(names) == 1 && names[0] == "stconf001", "names %v", names)
	})
	r.check("server-created: $filter resourceType ne ... leaves that type out", func() error {
		names, err := listNames("resourceType ne 'Microsoft.Storage/storageAccounts'")
		if err != nil {
			return err
		}
		for _, n := range names {
			if strings.HasPrefix(n, "stconf") {
				return expect(false, "storage account %s listed", n)
			}
		}
		return expect(len(names) > 0, "nothing listed")
	})
	r.check("server-created: a seeded body without id/name/type is listed with its envelope", func() error {
		id := g + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-seeded-bare"
		resp, _, err := e.rawDo(ctx, http.MethodPost, "/_emulator/resources", `{"id":"`+id+`","apiVersion":"2023-01-31","body":{"location":"westeurope"}}`)
		if err != nil {
			return err
		}
		if resp.StatusCode != 201 {
			return expect(false, "seed %d (this check needs the emulator's admin API)", resp.StatusCode)
		}
		names, err := listNames("resourceType eq 'Microsoft.ManagedIdentity/userAssignedIdentities'")
		if err != nil {
			return err
		}
		for _, n := range names {
			if n == "id-seeded-bare" {
				return nil
			}
		}
		return expect(false, "names %v", names)
	})
}
