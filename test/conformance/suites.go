package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"
)

// suites run in order; later ones reuse the groups earlier ones create.
var suites = []func(context.Context, *env, *runner){
	resourceGroups,
	storage,
	network,
	identities,
	keyVault,
	aks,
	roleAssignments,
	validation,
	lists,
	raw,
	locks,
	readOnlyWriteOnly,
	armRules,
	keyVaultAccessPolicies,
	accepts,
	refusals,
	serverCreated,
	subscriptionLists,
	ifMatch,
	pageSizes,
}

const (
	group    = "rg-conformance"
	location = "westeurope"
)

func resourceGroups(ctx context.Context, e *env, r *runner) {
	c, err := armresources.NewResourceGroupsClient(e.sub, e.cred, e.opts)
	if err != nil {
		r.check("resource groups client", func() error { return err })
		return
	}
	r.check("resourceGroups.CheckExistence missing is false (HEAD 404)", func() error {
		res, err := c.CheckExistence(ctx, group, nil)
		if err != nil {
			return err
		}
		return expect(!res.Success, "reported an absent group as existing")
	})
	r.check("resourceGroups.CreateOrUpdate creates", func() error {
		res, err := c.CreateOrUpdate(ctx, group, armresources.ResourceGroup{Location: to.Ptr(location), Tags: map[string]*string{"suite": to.Ptr("conformance")}}, nil)
		if err != nil {
			return err
		}
		return expect(strings.EqualFold(deref(res.ID), e.rg(group)), "id %q", deref(res.ID))
	})
	r.check("resourceGroups.CheckExistence existing is true (HEAD 204)", func() error {
		res, err := c.CheckExistence(ctx, group, nil)
		if err != nil {
			return err
		}
		return expect(res.Success, "reported an existing group as absent")
	})
	r.check("resourceGroups.Get", func() error {
		res, err := c.Get(ctx, group, nil)
		if err != nil {
			return err
		}
		return expect(deref(res.Properties.ProvisioningState) == "Succeeded" && deref(res.Location) == location, "state %q location %q", deref(res.Properties.ProvisioningState), deref(res.Location))
	})
	r.check("resourceGroups.Get missing is 404 ResourceGroupNotFound", func() error {
		_, err := c.Get(ctx, "rg-conformance-missing", nil)
		return wantError(err, 404, "ResourceGroupNotFound")
	})
	r.check("resourceGroups pager lists the group", func() error {
		groups, err := listAll[*armresources.ResourceGroup](ctx, c.NewListPager(nil))
		if err != nil {
			return err
		}
		for _, g := range groups {
			if strings.EqualFold(deref(g.Name), group) {
				return nil
			}
		}
		return fmt.Errorf("group missing from the list")
	})
	r.check("resourceGroups.CreateOrUpdate without location is 400 LocationRequired", func() error {
		_, err := c.CreateOrUpdate(ctx, "rg-conformance-noloc", armresources.ResourceGroup{}, nil)
		return wantError(err, 400, "LocationRequired")
	})
	r.check("resourceGroups.CreateOrUpdate with a made-up location is 400", func() error {
		_, err := c.CreateOrUpdate(ctx, "rg-conformance-badloc", armresources.ResourceGroup{Location: to.Ptr("middleearth")}, nil)
		return wantError(err, 400, "LocationNotAvailableForResourceGroup", "InvalidResourceLocation")
	})
}

// rawGet sends a GET with the static token and decodes the JSON answer.
func (e *env) rawGet(ctx context.Context, path string) (*http.Response, map[string]any, error) {
	return e.rawDo(ctx, http.MethodGet, path, "")
}

func (e *env) rawDo(ctx context.Context, method, path, body string) (*http.Response, map[string]any, error) {
	u := path
	if !strings.HasPrefix(u, "http") {
		u = e.endpoint + path
	}
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Authorization", "Bearer conformance")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := e.raw.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return res, nil, err
	}
	var m map[string]any
	if len(b) > 0 {
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			return res, nil, fmt.Errorf("%s %s: answer is not JSON: %.80s", method, path, b)
		}
	}
	return res, m, nil
}
