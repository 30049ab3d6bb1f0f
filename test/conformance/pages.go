package main

import (
	"context"
	"fmt"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/msi/armmsi"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"
)

// pageSizes checks that lists page as ARM does for their type and that the
// SDK pagers follow: ARM's generic list at 1,000 a page (and $top above
// that refused), a type without a documented size at 100. It seeds through
// the emulator's admin API, so it runs only against the emulator.
func pageSizes(ctx context.Context, e *env, r *runner) {
	const pg, n = "rg-conformance-pages", 1050
	groups, _ := armresources.NewResourceGroupsClient(e.sub, e.cred, e.opts)
	generic, _ := armresources.NewClient(e.sub, e.cred, e.opts)
	ids, _ := armmsi.NewUserAssignedIdentitiesClient(e.sub, e.cred, e.opts)
	seeded := false
	r.check(fmt.Sprintf("pages: %d identities seeded into one group", n), func() error {
		if _, err := groups.CreateOrUpdate(ctx, pg, armresources.ResourceGroup{Location: to.Ptr(location)}, nil); err != nil {
			return err
		}
		for i := range n {
			id := fmt.Sprintf("%s/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-page-%04d", e.rg(pg), i)
			resp, _, err := e.rawDo(ctx, http.MethodPost, "/_emulator/resources", `{"id":"`+id+`","apiVersion":"2023-01-31","body":{"location":"westeurope"}}`)
			if err != nil {
				return err
			}
			if resp.StatusCode != http.StatusCreated {
				return fmt.Errorf("seed %d (this check needs the emulator's admin API)", resp.StatusCode)
			}
		}
		seeded = true
		return nil
	})
	r.check("pages: the generic group list answers 1,000 a page and the pager follows nextLink", func() error {
		if !seeded {
			return fmt.Errorf("not seeded")
		}
		got, err := sizesOf(ctx, generic.NewListByResourceGroupPager(pg, nil))
		if err != nil {
			return err
		}
		return expect(len(got) == 2 && got[0] == 1000 && got[1] == n-1000, "pages %v", got)
	})
	r.check("pages: $top above 1,000 on the generic list is 400 InvalidTopInQueryString", func() error {
		p := generic.NewListByResourceGroupPager(pg, &armresources.ClientListByResourceGroupOptions{Top: to.Ptr[int32](1001)})
		_, err := p.NextPage(ctx)
		return wantError(err, 400, "InvalidTopInQueryString")
	})
	r.check("pages: identities list by group answers 100 a page (no documented size)", func() error {
		if !seeded {
			return fmt.Errorf("not seeded")
		}
		got, err := sizesOf(ctx, ids.NewListByResourceGroupPager(pg, nil))
		if err != nil {
			return err
		}
		return expect(len(got) == 11 && got[0] == 100 && sum(got) == n, "pages %v", got)
	})
	r.check("pages: the group and its resources delete", func() error {
		p, err := groups.BeginDelete(ctx, pg, nil)
		return settle(ctx, e, p, err)
	})
}
