package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/storage/armstorage"
)

// locks: management locks are enforced by ARM before the RP sees the
// request. Source: Microsoft Learn, "Lock your Azure resources to protect
// your infrastructure" (CanNotDelete/ReadOnly, inheritance, listKeys is a
// POST and so refused under ReadOnly, a group with a locked resource cannot
// be deleted); code and message ("The scope '…' cannot perform delete
// operation because following scope(s) are locked: '…'. Please remove the
// lock and try again.") as Azure answers them in public transcripts.
// The locks themselves are written with raw requests: the module cache
// holds no armlocks client.
func locks(ctx context.Context, e *env, r *runner) {
	const lockGroup = "rg-conformance-locks"
	const lockV = "?api-version=2020-05-01"
	groups, _ := armresources.NewResourceGroupsClient(e.sub, e.cred, e.opts)
	accounts, _ := armstorage.NewAccountsClient(e.sub, e.cred, e.opts)
	account := e.rg(lockGroup) + "/providers/Microsoft.Storage/storageAccounts/stconflock01"
	putLock := func(scope, name, level string) error {
		res, body, err := e.rawDo(ctx, http.MethodPut, scope+"/providers/Microsoft.Authorization/locks/"+name+lockV,
			fmt.Sprintf(`{"properties":{"level":%q,"notes":"conformance"}}`, level))
		if err != nil {
			return err
		}
		return expect(res.StatusCode == 200 || res.StatusCode == 201, "lock PUT %d %s", res.StatusCode, errorCode(body))
	}
	delLock := func(scope, name string) error {
		res, body, err := e.rawDo(ctx, http.MethodDelete, scope+"/providers/Microsoft.Authorization/locks/"+name+lockV, "")
		if err != nil {
			return err
		}
		return expect(res.StatusCode == 200 || res.StatusCode == 204, "lock DELETE %d %s", res.StatusCode, errorCode(body))
	}
	scopeLocked := func(err error, verb, scope string) error {
		if werr := wantError(err, 409, "ScopeLocked"); werr != nil {
			return werr
		}
		want := "cannot perform " + verb + " operation because following scope(s) are locked: '" + scope + "'"
		return expect(strings.Contains(err.Error(), want), "message lacks %q", want)
	}
	r.check("locks: setup group, account and CanNotDelete lock", func() error {
		if _, err := groups.CreateOrUpdate(ctx, lockGroup, armresources.ResourceGroup{Location: to.Ptr(location)}, nil); err != nil {
			return err
		}
		p, err := accounts.BeginCreate(ctx, lockGroup, "stconflock01", storageV2(nil), nil)
		if err := settle(ctx, e, p, err); err != nil {
			return err
		}
		return putLock(account, "no-delete", "CanNotDelete")
	})
	r.check("locks: the subscription's and the group's lock lists hold the resource's lock", func() error {
		// ARM REST "Management Locks - List At Subscription Level" (every
		// lock of the subscription) and "List At Resource Group Level".
		for _, scope := range []string{"/subscriptions/" + e.sub, e.rg(lockGroup)} {
			res, body, err := e.rawDo(ctx, http.MethodGet, scope+"/providers/Microsoft.Authorization/locks"+lockV, "")
			if err != nil {
				return err
			}
			found := false
			items, _ := body["value"].([]any)
			for _, it := range items {
				m, _ := it.(map[string]any)
				if id, _ := m["id"].(string); strings.EqualFold(id, account+"/providers/Microsoft.Authorization/locks/no-delete") {
					found = true
				}
			}
			if err := expect(res.StatusCode == 200 && found, "list at %s: %d, %d locks, the account's not among them", scope, res.StatusCode, len(items)); err != nil {
				return err
			}
		}
		return nil
	})
	r.check("locks: CanNotDelete refuses deleting the resource (409 ScopeLocked)", func() error {
		_, err := accounts.Delete(ctx, lockGroup, "stconflock01", nil)
		return scopeLocked(err, "delete", account)
	})
	r.check("locks: CanNotDelete on a resource refuses deleting its group", func() error {
		p, err := groups.BeginDelete(ctx, lockGroup, nil)
		return scopeLocked(settle(ctx, e, p, err), "delete", account)
	})
	r.check("locks: CanNotDelete allows updates and listKeys", func() error {
		if _, err := accounts.Update(ctx, lockGroup, "stconflock01", armstorage.AccountUpdateParameters{Tags: map[string]*string{"k": to.Ptr("v")}}, nil); err != nil {
			return err
		}
		_, err := accounts.ListKeys(ctx, lockGroup, "stconflock01", nil)
		return err
	})
	r.check("locks: ReadOnly on the group refuses listKeys on a resource in it", func() error {
		if err := putLock(e.rg(lockGroup), "read-only", "ReadOnly"); err != nil {
			return err
		}
		_, err := accounts.ListKeys(ctx, lockGroup, "stconflock01", nil)
		return scopeLocked(err, "write", e.rg(lockGroup))
	})
	r.check("locks: ReadOnly refuses PATCH (409 ScopeLocked)", func() error {
		_, err := accounts.Update(ctx, lockGroup, "stconflock01", armstorage.AccountUpdateParameters{Tags: map[string]*string{"k": to.Ptr("w")}}, nil)
		return scopeLocked(err, "write", e.rg(lockGroup))
	})
	r.check("locks: ReadOnly refuses creating a resource in the group", func() error {
		p, err := accounts.BeginCreate(ctx, lockGroup, "stconflock02", storageV2(nil), nil)
		return scopeLocked(settle(ctx, e, p, err), "write", e.rg(lockGroup))
	})
	r.check("locks: reads work under ReadOnly", func() error {
		_, err := accounts.GetProperties(ctx, lockGroup, "stconflock01", nil)
		return err
	})
	r.check("locks: removing the locks lifts them", func() error {
		if err := delLock(e.rg(lockGroup), "read-only"); err != nil {
			return err
		}
		if err := delLock(account, "no-delete"); err != nil {
			return err
		}
		p, err := groups.BeginDelete(ctx, lockGroup, nil)
		return settle(ctx, e, p, err)
	})
}
