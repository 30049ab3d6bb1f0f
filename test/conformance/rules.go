package main

import (
	"context"
	"net/http"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/keyvault/armkeyvault"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/storage/armstorage"
)

// armRules: uniqueness, conflicts and limits ARM enforces.
//   - Global names: Storage RP error codes (StorageAccountAlreadyTaken,
//     StorageAccountAlreadyExists), Key Vault (VaultAlreadyExists; soft
//     delete keeps the name: Microsoft Learn "Azure Key Vault soft-delete
//     overview").
//   - Role assignments: Microsoft Learn "Troubleshoot Azure RBAC"
//     (RoleAssignmentExists, RoleDefinitionDoesNotExist,
//     RoleAssignmentUpdateNotPermitted).
//   - Tags: Microsoft Learn "Use tags to organize your Azure resources"
//     (50 tags, name 512, value 256, reserved characters); codes as Azure
//     PowerShell mirrors them (InvalidTags, InvalidTagNameCharacters).
//   - Tags at scope: ARM REST "Tags - Get/Update At Scope".
//   - api-version of resource groups: ARM answers InvalidApiVersionParameter.
//   - No DELETE on blobServices/default: the storage spec has none (405).
func armRules(ctx context.Context, e *env, r *runner) {
	const otherSub = "00000000-0000-0000-0000-00000000c0f1"
	const rulesGroup = "rg-conformance-rules"
	groups, _ := armresources.NewResourceGroupsClient(e.sub, e.cred, e.opts)
	otherGroups, _ := armresources.NewResourceGroupsClient(otherSub, e.cred, e.opts)
	accounts, _ := armstorage.NewAccountsClient(e.sub, e.cred, e.opts)
	otherAccounts, _ := armstorage.NewAccountsClient(otherSub, e.cred, e.opts)
	createAccount := func(c *armstorage.AccountsClient, g, name string) error {
		p, err := c.BeginCreate(ctx, g, name, storageV2(nil), nil)
		return settle(ctx, e, p, err)
	}
	r.check("rules: setup groups in two subscriptions", func() error {
		if _, err := groups.CreateOrUpdate(ctx, rulesGroup, armresources.ResourceGroup{Location: to.Ptr(location)}, nil); err != nil {
			return err
		}
		_, err := otherGroups.CreateOrUpdate(ctx, rulesGroup, armresources.ResourceGroup{Location: to.Ptr(location)}, nil)
		return err
	})
	r.check("rules: a storage account name taken in another group is 409 StorageAccountAlreadyExists", func() error {
		return wantError(createAccount(accounts, rulesGroup, "stconf001"), 409, "StorageAccountAlreadyExists")
	})
	r.check("rules: a storage account name taken in another subscription is 409 StorageAccountAlreadyTaken", func() error {
		return wantError(createAccount(otherAccounts, rulesGroup, "stconf001"), 409, "StorageAccountAlreadyTaken")
	})
	vaults, _ := armkeyvault.NewVaultsClient(e.sub, e.cred, e.opts)
	otherVaults, _ := armkeyvault.NewVaultsClient(otherSub, e.cred, e.opts)
	vaultParams := func(mode *armkeyvault.CreateMode) armkeyvault.VaultCreateOrUpdateParameters {
		return armkeyvault.VaultCreateOrUpdateParameters{Location: to.Ptr(location), Properties: &armkeyvault.VaultProperties{
			TenantID: to.Ptr("72f988bf-86f1-41af-91ab-2d7cd011db47"), CreateMode: mode,
			SKU: &armkeyvault.SKU{Family: to.Ptr(armkeyvault.SKUFamilyA), Name: to.Ptr(armkeyvault.SKUNameStandard)}, EnableRbacAuthorization: to.Ptr(true)}}
	}
	createVault := func(c *armkeyvault.VaultsClient, g, name string, mode *armkeyvault.CreateMode) error {
		p, err := c.BeginCreateOrUpdate(ctx, g, name, vaultParams(mode), nil)
		return settle(ctx, e, p, err)
	}
	r.check("rules: a vault name taken in another subscription is 409 VaultAlreadyExists", func() error {
		return wantError(createVault(otherVaults, rulesGroup, "kv-conf-001", nil), 409, "VaultAlreadyExists")
	})
	r.check("rules: a deleted vault stays soft-deleted (GetDeleted)", func() error {
		if err := createVault(vaults, rulesGroup, "kv-conf-soft", nil); err != nil {
			return err
		}
		if _, err := vaults.Delete(ctx, rulesGroup, "kv-conf-soft", nil); err != nil {
			return err
		}
		res, err := vaults.GetDeleted(ctx, "kv-conf-soft", location, nil)
		if err != nil {
			return err
		}
		return expect(res.Properties != nil && strings.HasSuffix(deref(res.Properties.VaultID), "/kv-conf-soft"), "vaultId %v", res.Properties)
	})
	r.check("rules: a soft-deleted vault's name cannot be reused (409)", func() error {
		return wantError(createVault(vaults, rulesGroup, "kv-conf-soft", nil), 409, "ConflictError", "VaultAlreadyExists")
	})
	r.check("rules: createMode recover takes the name back", func() error {
		return createVault(vaults, rulesGroup, "kv-conf-soft", to.Ptr(armkeyvault.CreateModeRecover))
	})
	r.check("rules: after delete and purge the name is free", func() error {
		if _, err := vaults.Delete(ctx, rulesGroup, "kv-conf-soft", nil); err != nil {
			return err
		}
		res, body, err := e.rawDo(ctx, http.MethodPost, "/subscriptions/"+e.sub+"/providers/Microsoft.KeyVault/locations/"+location+"/deletedVaults/kv-conf-soft/purge?api-version=2023-07-01", "")
		if err != nil {
			return err
		}
		if res.StatusCode != 200 && res.StatusCode != 202 {
			return expect(false, "purge %d %s", res.StatusCode, errorCode(body))
		}
		return createVault(vaults, rulesGroup, "kv-conf-soft", nil)
	})

	ra, _ := armauthorization.NewRoleAssignmentsClient(e.sub, e.cred, e.opts)
	scope := e.rg(rulesGroup)
	reader := "/subscriptions/" + e.sub + "/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"
	assign := func(name, principal, role string) error {
		_, err := ra.Create(ctx, scope, name, armauthorization.RoleAssignmentCreateParameters{Properties: &armauthorization.RoleAssignmentProperties{
			PrincipalID: to.Ptr(principal), RoleDefinitionID: to.Ptr(role)}}, nil)
		return err
	}
	r.check("rules: role assignment created", func() error {
		return assign("7d3b1c2e-1f4a-4b5c-9d6e-0a1b2c3d4e5f", "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", reader)
	})
	r.check("rules: same principal, role and scope under another name is 409 RoleAssignmentExists", func() error {
		return wantError(assign("8e4c2d3f-2a5b-4c6d-8e7f-1b2c3d4e5f60", "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", reader), 409, "RoleAssignmentExists")
	})
	r.check("rules: changing an assignment's principal is 400 RoleAssignmentUpdateNotPermitted", func() error {
		return wantError(assign("7d3b1c2e-1f4a-4b5c-9d6e-0a1b2c3d4e5f", "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e", reader), 400, "RoleAssignmentUpdateNotPermitted")
	})
	r.check("rules: an unknown role definition is 400 RoleDefinitionDoesNotExist", func() error {
		return wantError(assign("9f5d3e4a-3b6c-4d7e-8f80-2c3d4e5f6071", "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
			"/subscriptions/"+e.sub+"/providers/Microsoft.Authorization/roleDefinitions/0e0e0e0e-0e0e-4e0e-8e0e-0e0e0e0e0e0e"), 400, "RoleDefinitionDoesNotExist")
	})
	r.check("rules: a role definition ID scoped to a group is accepted and normalised", func() error {
		name := "a06e4f5b-4c7d-4e8f-9a91-3d4e5f607182"
		if err := assign(name, "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f", e.rg(rulesGroup)+"/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"); err != nil {
			return err
		}
		got, err := ra.Get(ctx, scope, name, nil)
		if err != nil {
			return err
		}
		return expect(strings.EqualFold(deref(got.Properties.RoleDefinitionID), reader), "roleDefinitionId %q", deref(got.Properties.RoleDefinitionID))
	})

	r.check("rules: 51 tags on a resource group is 400 InvalidTags", func() error {
		tags := map[string]*string{}
		for i := 0; i < 51; i++ {
			tags["t"+string(rune('a'+i%26))+string(rune('a'+i/26))] = to.Ptr("v")
		}
		_, err := groups.CreateOrUpdate(ctx, "rg-conformance-tags", armresources.ResourceGroup{Location: to.Ptr(location), Tags: tags}, nil)
		return wantError(err, 400, "InvalidTags")
	})
	r.check("rules: a tag name with '/' is 400 InvalidTagNameCharacters", func() error {
		_, err := accounts.Update(ctx, group, "stconf001", armstorage.AccountUpdateParameters{Tags: map[string]*string{"a/b": to.Ptr("v")}}, nil)
		return wantError(err, 400, "InvalidTagNameCharacters")
	})
	r.check("rules: a 257-character tag value is 400 InvalidTagValueLength", func() error {
		_, err := accounts.Update(ctx, group, "stconf001", armstorage.AccountUpdateParameters{Tags: map[string]*string{"k": to.Ptr(strings.Repeat("v", 257))}}, nil)
		return wantError(err, 400, "InvalidTagValueLength")
	})
	tagsClient, _ := armresources.NewTagsClient(e.sub, e.cred, e.opts)
	account := e.rg(group) + "/providers/Microsoft.Storage/storageAccounts/stconf001"
	r.check("rules: Tags.UpdateAtScope Merge changes the resource's own tags", func() error {
		if _, err := tagsClient.UpdateAtScope(ctx, account, armresources.TagsPatchResource{Operation: to.Ptr(armresources.TagsPatchOperationMerge),
			Properties: &armresources.Tags{Tags: map[string]*string{"merged": to.Ptr("yes")}}}, nil); err != nil {
			return err
		}
		got, err := accounts.GetProperties(ctx, group, "stconf001", nil)
		if err != nil {
			return err
		}
		return expect(deref(got.Tags["merged"]) == "yes", "tags %v", keys(got.Tags))
	})
	r.check("rules: Tags.GetAtScope reads the resource's tags", func() error {
		got, err := tagsClient.GetAtScope(ctx, account, nil)
		if err != nil {
			return err
		}
		return expect(got.Properties != nil && deref(got.Properties.Tags["merged"]) == "yes", "tags resource %v", got.Properties)
	})
	r.check("rules: resource group GET with a future api-version is 400 InvalidApiVersionParameter", func() error {
		_, body, err := e.rawGet(ctx, e.rg(group)+"?api-version=2099-01-01")
		if err != nil {
			return err
		}
		return expect(errorCode(body) == "InvalidApiVersionParameter", "code %q", errorCode(body))
	})
	r.check("rules: an unknown POST action is refused, not 200 {}", func() error {
		res, body, err := e.rawDo(ctx, http.MethodPost, account+"/frobnicate?api-version=2023-01-01", "")
		if err != nil {
			return err
		}
		return expect(res.StatusCode == 400 || res.StatusCode == 404, "status %d %s", res.StatusCode, errorCode(body))
	})
	r.check("rules: DELETE of blobServices/default is 405 (the spec has no DELETE)", func() error {
		res, _, err := e.rawDo(ctx, http.MethodDelete, account+"/blobServices/default?api-version=2023-01-01", "")
		if err != nil {
			return err
		}
		return expect(res.StatusCode == 405, "status %d", res.StatusCode)
	})
}

// keyVaultAccessPolicies: accessPolicies/add|replace|remove merge entries
// into the vault's accessPolicies. Source: Key Vault management REST
// reference "Vaults - Update Access Policy".
func keyVaultAccessPolicies(ctx context.Context, e *env, r *runner) {
	vaults, _ := armkeyvault.NewVaultsClient(e.sub, e.cred, e.opts)
	const tenant = "72f988bf-86f1-41af-91ab-2d7cd011db47"
	entry := func(obj string, perms ...armkeyvault.SecretPermissions) *armkeyvault.AccessPolicyEntry {
		p := make([]*armkeyvault.SecretPermissions, len(perms))
		for i := range perms {
			p[i] = &perms[i]
		}
		return &armkeyvault.AccessPolicyEntry{TenantID: to.Ptr(tenant), ObjectID: to.Ptr(obj), Permissions: &armkeyvault.Permissions{Secrets: p}}
	}
	update := func(kind armkeyvault.AccessPolicyUpdateKind, entries ...*armkeyvault.AccessPolicyEntry) error {
		_, err := vaults.UpdateAccessPolicy(ctx, group, "kv-conf-001", kind, armkeyvault.VaultAccessPolicyParameters{
			Properties: &armkeyvault.VaultAccessPolicyProperties{AccessPolicies: entries}}, nil)
		return err
	}
	secretsOf := func(obj string) ([]string, bool, error) {
		v, err := vaults.Get(ctx, group, "kv-conf-001", nil)
		if err != nil {
			return nil, false, err
		}
		for _, p := range v.Properties.AccessPolicies {
			if deref(p.ObjectID) == obj {
				var out []string
				for _, s := range p.Permissions.Secrets {
					out = append(out, string(*s))
				}
				return out, true, nil
			}
		}
		return nil, false, nil
	}
	r.check("keyvault accessPolicies/add appends an entry to the vault", func() error {
		if err := update(armkeyvault.AccessPolicyUpdateKindAdd, entry("obj-conf-1", armkeyvault.SecretPermissionsGet)); err != nil {
			return err
		}
		got, found, err := secretsOf("obj-conf-1")
		if err != nil {
			return err
		}
		return expect(found && strings.Join(got, ",") == "get", "entry %v found %v", got, found)
	})
	r.check("keyvault accessPolicies/add merges permissions of the same principal", func() error {
		if err := update(armkeyvault.AccessPolicyUpdateKindAdd, entry("obj-conf-1", armkeyvault.SecretPermissionsList)); err != nil {
			return err
		}
		got, _, err := secretsOf("obj-conf-1")
		if err != nil {
			return err
		}
		return expect(strings.Join(got, ",") == "get,list", "secrets %v", got)
	})
	r.check("keyvault accessPolicies/replace sets the permissions", func() error {
		if err := update(armkeyvault.AccessPolicyUpdateKindReplace, entry("obj-conf-1", armkeyvault.SecretPermissionsSet)); err != nil {
			return err
		}
		got, _, err := secretsOf("obj-conf-1")
		if err != nil {
			return err
		}
		return expect(strings.Join(got, ",") == "set", "secrets %v", got)
	})
	r.check("keyvault accessPolicies/remove drops an entry left without permissions", func() error {
		if err := update(armkeyvault.AccessPolicyUpdateKindRemove, entry("obj-conf-1", armkeyvault.SecretPermissionsSet)); err != nil {
			return err
		}
		_, found, err := secretsOf("obj-conf-1")
		if err != nil {
			return err
		}
		return expect(!found, "entry still there")
	})
}
