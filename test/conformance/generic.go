package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"
)

func validation(ctx context.Context, e *env, r *runner) {
	c, _ := armresources.NewClient(e.sub, e.cred, e.opts)
	id := e.rg(group) + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-validate"
	put := func(resID, version string, body armresources.GenericResource) error {
		p, err := c.BeginCreateOrUpdateByID(ctx, resID, version, body, nil)
		if err != nil {
			return err
		}
		_, err = p.PollUntilDone(ctx, e.poll())
		return err
	}
	r.check("validation: api-version from the future is 400 NoRegisteredProviderFound", func() error {
		return wantError(put(id, "2099-01-01", armresources.GenericResource{Location: to.Ptr(location)}), 400, "NoRegisteredProviderFound", "InvalidApiVersionParameter")
	})
	r.check("validation: malformed api-version is 400 InvalidApiVersionParameter", func() error {
		return wantError(put(id, "latest", armresources.GenericResource{Location: to.Ptr(location)}), 400, "InvalidApiVersionParameter")
	})
	r.check("validation: unknown type in a known namespace is 400 InvalidResourceType", func() error {
		bad := e.rg(group) + "/providers/Microsoft.Storage/storageAccountz/stconf009"
		return wantError(put(bad, "2023-01-01", armresources.GenericResource{Location: to.Ptr(location)}), 400, "InvalidResourceType")
	})
	r.check("validation: missing location is 400 LocationRequired", func() error {
		return wantError(put(id, "2023-01-31", armresources.GenericResource{}), 400, "LocationRequired")
	})
	r.check("validation: made-up location is 400", func() error {
		return wantError(put(id, "2023-01-31", armresources.GenericResource{Location: to.Ptr("atlantis")}), 400, "LocationNotAvailableForResourceType", "InvalidResourceLocation")
	})
	r.check("validation: wrong JSON type is 400 InvalidRequestContent", func() error {
		_, body, err := e.rawDo(ctx, http.MethodPut, e.rg(group)+"/providers/Microsoft.Network/virtualNetworks/vnet-badtype?api-version=2024-01-01",
			`{"location":"westeurope","properties":{"addressSpace":"10.0.0.0/16"}}`)
		if err != nil {
			return err
		}
		return expect(errorCode(body) == "InvalidRequestContent", "code %q", errorCode(body))
	})
	r.check("validation: quoted numbers are accepted", func() error {
		res, body, err := e.rawDo(ctx, http.MethodPut, e.rg(group)+"/providers/Microsoft.Network/networkSecurityGroups/nsg-quoted?api-version=2024-01-01",
			`{"location":"westeurope","properties":{"securityRules":[{"name":"r","properties":{"priority":"200","direction":"Inbound","access":"Allow","protocol":"*","sourceAddressPrefix":"*","sourcePortRange":"*","destinationAddressPrefix":"*","destinationPortRange":"*"}}]}}`)
		if err != nil {
			return err
		}
		return expect(res.StatusCode < 300, "status %d %q", res.StatusCode, errorCode(body))
	})
	r.check("validation: invalid resource name is 400", func() error {
		bad := e.rg(group) + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/bad%3Cname"
		return wantError(put(bad, "2023-01-31", armresources.GenericResource{Location: to.Ptr(location)}), 400, "InvalidResourceName")
	})
	r.check("validation: write into a missing resource group is 404 ResourceGroupNotFound", func() error {
		missing := e.rg("rg-conformance-absent") + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/x"
		return wantError(put(missing, "2023-01-31", armresources.GenericResource{Location: to.Ptr(location)}), 404, "ResourceGroupNotFound")
	})
	r.check("validation: child of a missing parent is 404 ParentResourceNotFound", func() error {
		child := e.rg(group) + "/providers/Microsoft.Network/virtualNetworks/vnet-absent/subnets/s"
		return wantError(put(child, "2024-01-01", armresources.GenericResource{Properties: map[string]any{"addressPrefix": "10.9.0.0/24"}}), 404, "ParentResourceNotFound")
	})
	r.check("generic CheckExistenceByID existing (HEAD 204)", func() error {
		res, err := c.CheckExistenceByID(ctx, e.rg(group)+"/providers/Microsoft.Storage/storageAccounts/stconf001", "2023-05-01", nil)
		if err != nil {
			return err
		}
		return expect(res.Success, "existing account reported absent")
	})
	r.check("generic CheckExistenceByID missing (HEAD 404)", func() error {
		res, err := c.CheckExistenceByID(ctx, e.rg(group)+"/providers/Microsoft.Storage/storageAccounts/stnothere", "2023-05-01", nil)
		if err != nil {
			return err
		}
		return expect(!res.Success, "absent account reported existing")
	})
	r.check("generic DeleteByID with If-Match on a missing resource is 204", func() error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodDelete, e.endpoint+e.rg(group)+"/providers/Microsoft.ManagedIdentity/userAssignedIdentities/nothere?api-version=2023-01-31", nil)
		req.Header.Set("If-Match", `"abc"`)
		res, err := e.raw.Do(req)
		if err != nil {
			return err
		}
		res.Body.Close()
		return expect(res.StatusCode == http.StatusNoContent, "status %d", res.StatusCode)
	})
	r.check("generic big integers round-trip exactly", func() error {
		path := e.rg(group) + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-numbers?api-version=2023-01-31"
		if _, _, err := e.rawDo(ctx, http.MethodPut, path, `{"location":"westeurope","tags":{},"properties":{"big":12345678901234567890,"odd":9007199254740993}}`); err != nil {
			return err
		}
		_, body, err := e.rawGet(ctx, path)
		if err != nil {
			return err
		}
		props, _ := body["properties"].(map[string]any)
		return expect(fmt.Sprint(props["big"]) == "12345678901234567890" && fmt.Sprint(props["odd"]) == "9007199254740993", "numbers %v %v", props["big"], props["odd"])
	})
}

func errorCode(body map[string]any) string {
	e, _ := body["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

func lists(ctx context.Context, e *env, r *runner) {
	c, _ := armresources.NewClient(e.sub, e.cred, e.opts)
	r.check("lists: resources in the group with $filter resourceType", func() error {
		items, err := listAll[*armresources.GenericResourceExpanded](ctx, c.NewListByResourceGroupPager(group, &armresources.ClientListByResourceGroupOptions{Filter: to.Ptr("resourceType eq 'Microsoft.ManagedIdentity/userAssignedIdentities'")}))
		if err != nil {
			return err
		}
		for _, res := range items {
			if !strings.EqualFold(deref(res.Type), "Microsoft.ManagedIdentity/userAssignedIdentities") {
				return fmt.Errorf("filter let %s through", deref(res.Type))
			}
		}
		return expect(len(items) >= 2, "%d identities", len(items))
	})
	r.check("lists: $top pages with nextLink and the pager follows it", func() error {
		sizes, err := sizesOf(ctx, c.NewListByResourceGroupPager(group, &armresources.ClientListByResourceGroupOptions{Top: to.Ptr[int32](2)}))
		if err != nil {
			return err
		}
		for _, k := range sizes {
			if k > 2 {
				return fmt.Errorf("page of %d with $top=2", k)
			}
		}
		return expect(len(sizes) >= 3 && sum(sizes) >= 5, "%d pages, %d resources", len(sizes), sum(sizes))
	})
	r.check("lists: subscription resources with $filter name", func() error {
		n, err := countAll(ctx, c.NewListPager(&armresources.ClientListOptions{Filter: to.Ptr("name eq 'stconf001'")}))
		if err != nil {
			return err
		}
		return expect(n == 1, "%d matches", n)
	})
	r.check("lists: $expand=createdTime,changedTime,provisioningState", func() error {
		p := c.NewListByResourceGroupPager(group, &armresources.ClientListByResourceGroupOptions{Expand: to.Ptr("createdTime,changedTime,provisioningState")})
		page, err := p.NextPage(ctx)
		if err != nil {
			return err
		}
		if len(page.Value) == 0 {
			return fmt.Errorf("empty list")
		}
		v := page.Value[0]
		return expect(v.CreatedTime != nil && v.ChangedTime != nil && deref(v.ProvisioningState) != "", "expanded fields missing")
	})
	pc, _ := armresources.NewProvidersClient(e.sub, e.cred, e.opts)
	r.check("providers: Get Microsoft.Storage lists storageAccounts with versions and locations", func() error {
		res, err := pc.Get(ctx, "Microsoft.Storage", nil)
		if err != nil {
			return err
		}
		for _, t := range res.ResourceTypes {
			if strings.EqualFold(deref(t.ResourceType), "storageAccounts") {
				return expect(len(t.APIVersions) > 0 && len(t.Locations) > 0, "%d versions, %d locations", len(t.APIVersions), len(t.Locations))
			}
		}
		return fmt.Errorf("storageAccounts missing")
	})
	r.check("providers: list pager", func() error {
		n, err := countAll(ctx, pc.NewListPager(nil))
		if err != nil {
			return err
		}
		return expect(n > 10, "%d providers", n)
	})
}

func raw(ctx context.Context, e *env, r *runner) {
	r.check("headers: x-ms-ratelimit-remaining-subscription-reads and global-reads", func() error {
		res, _, err := e.rawGet(ctx, e.rg(group)+"?api-version=2021-04-01")
		if err != nil {
			return err
		}
		return expect(res.Header.Get("x-ms-ratelimit-remaining-subscription-reads") != "" && res.Header.Get("x-ms-ratelimit-remaining-subscription-global-reads") != "", "headers %v", res.Header)
	})
	r.check("headers: x-ms-request-id and correlation id", func() error {
		res, _, err := e.rawGet(ctx, e.rg(group)+"?api-version=2021-04-01")
		if err != nil {
			return err
		}
		return expect(res.Header.Get("x-ms-request-id") != "" && res.Header.Get("x-ms-correlation-request-id") != "", "missing request ids")
	})
	r.check("locations: the subscription lists public regions", func() error {
		_, body, err := e.rawGet(ctx, "/subscriptions/"+e.sub+"/locations?api-version=2022-12-01")
		if err != nil {
			return err
		}
		vals, _ := body["value"].([]any)
		for _, v := range vals {
			if m, _ := v.(map[string]any); m["name"] == "westeurope" && m["displayName"] == "West Europe" {
				return nil
			}
		}
		return fmt.Errorf("westeurope missing among %d locations", len(vals))
	})
	r.check("errors: missing api-version is 400 MissingApiVersionParameter", func() error {
		_, body, err := e.rawGet(ctx, e.rg(group))
		if err != nil {
			return err
		}
		return expect(errorCode(body) == "MissingApiVersionParameter", "code %q", errorCode(body))
	})
}
