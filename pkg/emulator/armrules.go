package emulator

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// ARM-wide rules a write must pass beyond the spec's body validation, each
// with the source it was taken from.

// Tag limits. Source: Microsoft Learn "Use tags to organize your Azure
// resources" (50 tags, name ≤ 512, value ≤ 256, names may not contain
// < > % & \ ? /), error codes as ARM answers them and as Azure PowerShell
// (Az.Migrate) mirrors them: InvalidTags, InvalidTagName,
// InvalidTagNameCharacters, InvalidTagValueLength.
const (
	maxTags        = 50
	maxTagName     = 512
	maxTagValue    = 256
	tagForbiddenCh = `<>%&\?/`
)

func checkTags(body map[string]any) *armError {
	raw, ok := body["tags"]
	if !ok || raw == nil {
		return nil
	}
	tags, ok := raw.(map[string]any)
	if !ok {
		return errInvalidContent("tags", "an object of strings", raw)
	}
	if len(tags) > maxTags {
		return newError(http.StatusBadRequest, "InvalidTags",
			"Too many tags specified. Requested tag count - '%d'. Maximum number of tags allowed - '%d'.", len(tags), maxTags)
	}
	names := make([]string, 0, len(tags))
	for k := range tags {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if strings.TrimSpace(k) == "" {
			return newError(http.StatusBadRequest, "InvalidTagName",
				"The tag name must be non-null, non-empty and non-whitespace only. Please provide an actual value.")
		}
		if strings.ContainsAny(k, tagForbiddenCh) || strings.ContainsFunc(k, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return newError(http.StatusBadRequest, "InvalidTagNameCharacters",
				"The tag names '%s' have reserved characters '<,>,%%,&,\\,?,/' or control characters.", k)
		}
		if len([]rune(k)) > maxTagName {
			return newError(http.StatusBadRequest, "InvalidTagName",
				"Tag key too large. Following tag name '%s' exceeded the maximum length. Maximum allowed length for tag name - '%d' characters.", truncate(k, 40), maxTagName)
		}
		v, isStr := tags[k].(string)
		if tags[k] != nil && !isStr {
			return errInvalidContent("tags."+k, "a string", tags[k])
		}
		if len([]rune(v)) > maxTagValue {
			return newError(http.StatusBadRequest, "InvalidTagValueLength",
				"Tag value too large. Following tag value '%s' exceeded the maximum length. Maximum allowed length for tag value - '%d' characters.", truncate(v, 40), maxTagValue)
		}
	}
	return nil
}

// globalNames are the types whose names are DNS labels, unique across all
// subscriptions, and the error ARM answers when a second resource takes one.
// Sources: Storage RP error codes (StorageAccountAlreadyTaken 409,
// StorageAccountAlreadyExists 409 within the subscription), Key Vault
// (VaultAlreadyExists 409, "Vault names are globally unique"), App
// Service ("Website with given name … already exists", 409 Conflict);
// Microsoft Learn "Naming rules and restrictions for Azure resources"
// (scope: global).
var globalNames = map[string]func(name string, sameSub bool) *armError{
	"microsoft.storage/storageaccounts": func(name string, sameSub bool) *armError {
		if sameSub {
			return newError(http.StatusConflict, "StorageAccountAlreadyExists",
				"The storage account named %s already exists under the subscription.", name)
		}
		return newError(http.StatusConflict, "StorageAccountAlreadyTaken",
			"The storage account named %s is already taken.", name)
	},
	"microsoft.keyvault/vaults": func(name string, _ bool) *armError {
		return newError(http.StatusConflict, "VaultAlreadyExists",
			"The vault name '%s' is already in use. Vault names are globally unique so it is possible that the name is already taken. If you are sure that the vault name was not taken then it is possible that a vault with the same name was recently deleted but not purged after being placed in a recoverable state. If the vault is in a recoverable state then the vault will need to be explicitly purged.", name)
	},
	"microsoft.web/sites": func(name string, _ bool) *armError {
		return newError(http.StatusConflict, "Conflict", "Website with given name %s already exists.", name)
	},
	// Container Registry: the login server <name>.azurecr.io is global
	// (registries checkNameAvailability reason AlreadyExists; create
	// answers 409 AlreadyInUse).
	"microsoft.containerregistry/registries": func(name string, _ bool) *armError {
		return newError(http.StatusConflict, "AlreadyInUse",
			"The registry DNS name %s.azurecr.io is already in use. You can check if the name is already claimed using following API: https://docs.microsoft.com/en-us/rest/api/containerregistry/registries/checknameavailability", strings.ToLower(name))
	},
	// SQL logical servers: <name>.database.windows.net is global (409
	// NameAlreadyExists).
	"microsoft.sql/servers": func(name string, _ bool) *armError {
		return newError(http.StatusConflict, "NameAlreadyExists",
			"The name '%s.database.windows.net' already exists. Choose a different name.", strings.ToLower(name))
	},
}

// checkGlobalName refuses creating a globally named resource whose name
// another resource of the type already has, anywhere. Caller holds s.mu.
func (s *Server) checkGlobalName(p armid.Path, body map[string]any) *armError {
	mk, ok := globalNames[strings.ToLower(p.Type())]
	if !ok || p.Kind != armid.PathResource || len(p.Names) != 1 {
		return nil
	}
	for _, r := range s.store.res {
		if !strings.EqualFold(r.Type, p.Type()) || armid.Equal(r.ID, p.Raw) {
			continue
		}
		rp, ok := armid.ParsePath(r.ID)
		if ok && strings.EqualFold(rp.Name(), p.Name()) {
			return mk(p.Name(), strings.EqualFold(rp.Subscription, p.Subscription))
		}
	}
	if strings.EqualFold(p.Type(), "Microsoft.KeyVault/vaults") {
		mode, _ := asMap(body["properties"])["createMode"].(string)
		if _, deleted := s.deletedVaults[strings.ToLower(p.Name())]; deleted && !strings.EqualFold(mode, "recover") {
			return errVaultSoftDeleted(p.Name())
		}
	}
	return nil
}

// Key Vault soft delete is always on (it can no longer be disabled): a
// deleted vault keeps its name until it is purged or recovered
// (createMode "recover"). Sources: Microsoft Learn "Azure Key Vault
// soft-delete overview" and the error the RP answers on reuse.
type deletedVault struct {
	ID       string
	Location string
	Deleted  time.Time
	Body     map[string]any
}

func errVaultSoftDeleted(name string) *armError {
	return newError(http.StatusConflict, "ConflictError",
		"A vault with the same name already exists in deleted state. You need to either recover or purge existing key vault. Follow this link https://go.microsoft.com/fwlink/?linkid=2149745 for more information on soft delete. (vault '%s')", name)
}

// rememberDeletedVault records the vaults a delete of res takes with it
// (res itself, or the vaults in a deleted group). Caller holds s.mu.
func (s *Server) rememberDeletedVault(res *resource) {
	if !strings.EqualFold(res.Type, "Microsoft.KeyVault/vaults") {
		if !strings.EqualFold(res.Type, "Microsoft.Resources/resourceGroups") {
			return // vaults live directly in groups: nothing else holds one
		}
		for _, r := range s.store.res {
			if strings.EqualFold(r.Type, "Microsoft.KeyVault/vaults") && armid.Contains(res.ID, r.ID) {
				s.rememberDeletedVault(r)
			}
		}
		return
	}
	loc, _ := res.Body["location"].(string)
	s.deletedVaults[strings.ToLower(res.ID[strings.LastIndex(res.ID, "/")+1:])] = deletedVault{ID: res.ID, Location: loc, Deleted: s.now(), Body: deepCopy(res.Body)}
}

// recoverVault lets a create with properties.createMode "recover" take a
// soft-deleted vault's name back.
func (s *Server) recoverVault(p armid.Path, body map[string]any) {
	if !strings.EqualFold(p.Type(), "Microsoft.KeyVault/vaults") {
		return
	}
	if mode, _ := asMap(body["properties"])["createMode"].(string); strings.EqualFold(mode, "recover") {
		delete(s.deletedVaults, strings.ToLower(p.Name()))
	}
}

// serveDeletedVaults answers the soft-delete API:
//
//	GET  /subscriptions/{s}/providers/Microsoft.KeyVault/deletedVaults
//	GET  /subscriptions/{s}/providers/Microsoft.KeyVault/locations/{l}/deletedVaults/{name}
//	POST /subscriptions/{s}/providers/Microsoft.KeyVault/locations/{l}/deletedVaults/{name}/purge
//
// It reports false for other paths. Caller holds s.mu.
func (s *Server) serveDeletedVaults(r *http.Request, p armid.Path) (reply, bool) {
	if !strings.EqualFold(p.Provider, "Microsoft.KeyVault") || p.ResourceGroup != "" {
		return reply{}, false
	}
	ts := strings.ToLower(strings.Join(p.Types, "/"))
	view := func(name string, v deletedVault) map[string]any {
		return map[string]any{
			"id":   "/subscriptions/" + p.Subscription + "/providers/Microsoft.KeyVault/locations/" + LocationKey(v.Location) + "/deletedVaults/" + name,
			"name": name, "type": "Microsoft.KeyVault/deletedVaults",
			"properties": map[string]any{
				"vaultId": v.ID, "location": v.Location, "tags": v.Body["tags"],
				"deletionDate":           v.Deleted.UTC().Format(time.RFC3339),
				"scheduledPurgeDate":     v.Deleted.Add(90 * 24 * time.Hour).UTC().Format(time.RFC3339),
				"purgeProtectionEnabled": asMap(v.Body["properties"])["enablePurgeProtection"] == true,
			},
		}
	}
	switch {
	case ts == "deletedvaults" && p.Kind == armid.PathCollection && r.Method == http.MethodGet:
		names := make([]string, 0, len(s.deletedVaults))
		for n := range s.deletedVaults {
			names = append(names, n)
		}
		sort.Strings(names)
		var out []any
		for _, n := range names {
			out = append(out, view(n, s.deletedVaults[n]))
		}
		return s.page(r, out), true
	case ts == "locations/deletedvaults" && p.Kind == armid.PathResource && r.Method == http.MethodGet:
		v, ok := s.deletedVaults[strings.ToLower(p.Name())]
		if !ok {
			return reply{err: newError(http.StatusNotFound, "ResourceNotFound", "The deleted vault '%s' was not found.", p.Name())}, true
		}
		return ok200(view(p.Name(), v)), true
	case ts == "locations/deletedvaults/purge" && r.Method == http.MethodPost:
		name := p.Names[len(p.Names)-1]
		if _, ok := s.deletedVaults[strings.ToLower(name)]; !ok {
			return reply{err: newError(http.StatusNotFound, "ResourceNotFound", "The deleted vault '%s' was not found.", name)}, true
		}
		delete(s.deletedVaults, strings.ToLower(name))
		return reply{status: http.StatusAccepted}, true
	}
	return reply{}, false
}

func ok200(body map[string]any) reply { return reply{status: http.StatusOK, body: body} }

// builtinRoles are Azure's built-in role definitions by ID, with their
// names (the IDs are the same in every tenant). Source: Microsoft Learn
// "Azure built-in roles" (learn.microsoft.com/azure/role-based-access-control/
// built-in-roles, whose table lists name and ID; its translated copies in
// MicrosoftDocs carry the same IDs). Every entry was checked against that
// table and against public templates that assign the role by ID; the AKS
// RBAC Writer ID written from memory was wrong and is corrected here.
var builtinRoles = map[string]string{
	"8e3af657-a8ff-443c-a75c-2fe8c4bcb635": "Owner",
	"b24988ac-6180-42a0-ab88-20f7382dd24c": "Contributor",
	"acdd72a7-3385-48ef-bd42-f606fba81ae7": "Reader",
	"18d7d88d-d35e-4fb5-a5c3-7773c20a72d9": "User Access Administrator",
	"f58310d9-a9f6-439a-9e8d-f62e7b41a168": "Role Based Access Control Administrator",
	"ba92f5b4-2d11-453d-a403-e96b0029c9fe": "Storage Blob Data Contributor",
	"2a2b9908-6ea1-4ae2-8e65-a410df84e7d1": "Storage Blob Data Reader",
	"b7e6dc6d-f1e8-4753-8033-0f276bb0955b": "Storage Blob Data Owner",
	"974c5e8b-45b9-4653-ba55-5f855dd0fb88": "Storage Queue Data Contributor",
	"19e7f393-937e-4f77-808e-94535e297925": "Storage Queue Data Reader",
	"0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3": "Storage Table Data Contributor",
	"76199698-9eea-4c19-bc75-cec21354c6b6": "Storage Table Data Reader",
	"17d1049b-9a84-46fb-8f53-869881c3d3ab": "Storage Account Contributor",
	"81a9662b-bebf-436f-a333-f67b29880f12": "Storage Account Key Operator Service Role",
	"0c867c2a-1d8c-454a-a3db-ab2ea1bdc8bb": "Storage File Data SMB Share Contributor",
	"4633458b-17de-408a-b874-0445c86b69e6": "Key Vault Secrets User",
	"b86a8fe4-44ce-4948-aee5-eccb2c155cd7": "Key Vault Secrets Officer",
	"00482a5a-887f-4fb3-b363-3b7fe8e74483": "Key Vault Administrator",
	"12338af0-0e69-4776-bea7-57ae8d297424": "Key Vault Crypto User",
	"14b46e9e-c2b7-41b4-b07b-48a6ebf60603": "Key Vault Crypto Officer",
	"e147488a-f6f5-4113-8e2d-b22465e65bf6": "Key Vault Crypto Service Encryption User",
	"a4417e6f-fecd-4de8-b567-7b0420556985": "Key Vault Certificates Officer",
	"21090545-7ca7-4776-b22c-e363652d74d2": "Key Vault Reader",
	"f25e0fa2-a7c8-4377-a976-54943a77a395": "Key Vault Contributor",
	"7f951dda-4ed3-4680-a7ca-43fe172d538d": "AcrPull",
	"8311e382-0749-4cb8-b61a-304f252e45ec": "AcrPush",
	"4d97b98b-1d4f-4787-a291-c67834d212e7": "Network Contributor",
	"f1a07417-d97a-45cb-824c-7a7467783830": "Managed Identity Operator",
	"e40ec5ca-96e0-45a2-b4ff-59039f2c2b59": "Managed Identity Contributor",
	"43d0d8ad-25c7-4714-9337-8ba259a9fe05": "Monitoring Reader",
	"749f88d5-cbae-40b8-bcfc-e573ddc772fa": "Monitoring Contributor",
	"3913510d-42f4-4e42-8a64-420c390055eb": "Monitoring Metrics Publisher",
	"92aaf0da-9dab-42b6-94a3-d43ce8d16293": "Log Analytics Contributor",
	"73c42c96-874c-492b-b04d-ab87d138a893": "Log Analytics Reader",
	"b1ff04bb-8a4e-4dc4-8eb5-8693973ce19b": "Azure Kubernetes Service RBAC Cluster Admin",
	"3498e952-d568-435e-9b2c-8d77e338d7f7": "Azure Kubernetes Service RBAC Admin",
	"7f6c6a51-bcf8-42ba-9220-52d62157d7db": "Azure Kubernetes Service RBAC Reader",
	"a7ffa36f-339b-4b5c-8bdf-e2c188b2c0eb": "Azure Kubernetes Service RBAC Writer",
	"4abbcc35-e782-43d8-92c5-2d3f1bd2253f": "Azure Kubernetes Service Cluster User Role",
	"0ab0b1a8-8aac-4efd-b8c2-3ee1fb270be8": "Azure Kubernetes Service Cluster Admin Role",
	"ed7f3fbd-7b88-4dd4-9017-9adb7ce333f8": "Azure Kubernetes Service Contributor Role",
	"090c5cfd-751d-490a-894a-3ce6f1109419": "Azure Service Bus Data Owner",
	"69a216fc-b8fb-44d8-bc22-1f3c2cd27a39": "Azure Service Bus Data Sender",
	"4f6d3b9b-027b-4f4c-9142-0e5a2a2247e0": "Azure Service Bus Data Receiver",
	"f526a384-b230-433a-b45c-95f59c4a2dec": "Azure Event Hubs Data Owner",
	"2b629674-e913-4c01-ae53-ef4638d8f975": "Azure Event Hubs Data Sender",
	"a638d3c7-ab3a-418d-83e6-5f17a39d4fde": "Azure Event Hubs Data Receiver",
	"5e0bd9bd-7b93-4f28-af87-19fc36ad61bd": "Cognitive Services OpenAI User",
	"a001fd3d-188f-4b5d-821b-7da978bf7442": "Cognitive Services OpenAI Contributor",
	"a97b65f3-24c7-4388-baec-2e87135dc908": "Cognitive Services User",
	"25fbc0a9-bd7c-42a3-aa1a-3b75d497ee68": "Cognitive Services Contributor",
	"9980e02c-c2be-4d73-94e8-173b1dc7cf3c": "Virtual Machine Contributor",
	"1c0163c0-47e6-4577-8991-ea5c82e286e4": "Virtual Machine Administrator Login",
	"fb879df8-f326-4884-b1cf-06f3ad86be52": "Virtual Machine User Login",
	"de139f84-1756-47ae-9be6-808fbbe84772": "Website Contributor",
	"2cc479cb-7b4d-49a8-b449-8c00fd0f0a4b": "Web Plan Contributor",
	"5bd9cd88-fe45-4216-938b-f97437e15450": "DocumentDB Account Contributor",
	"fbdf93bf-df7d-467e-a4d2-9458aa1360c8": "Cosmos DB Account Reader Role",
	"8ebe5a00-799e-43f5-93ac-243d3dce84a7": "Search Index Data Contributor",
	"1407120a-92aa-4202-b7e9-c0e197c71c8f": "Search Index Data Reader",
	"7ca78c08-252a-4471-8644-bb5ff32d4ba0": "Search Service Contributor",
	"36243c78-bf99-498c-9df9-86d9f8d28608": "Resource Policy Contributor",
	"5e467623-bb1f-42f4-a55d-6e525e11384b": "Backup Contributor",
	"befefa01-2a29-4197-83a8-272ff33ce314": "DNS Zone Contributor",
	"b12aa53e-6015-4669-85d0-8515ebb3ae7f": "Private DNS Zone Contributor",
	"6d8ee4ec-f05a-4a1d-8b00-a9b17e38b437": "SQL Server Contributor",
	"9b7fa17d-e63e-47b0-bb0a-15c516ac86ec": "SQL DB Contributor",
	"056cd41c-7e88-42e1-933e-88ba6a50c9c3": "SQL Security Manager",
}

// roleDefinitionGUID extracts the GUID of a role definition ID at any scope:
// /providers/…/roleDefinitions/G, /subscriptions/S/providers/…, or
// /subscriptions/S/resourceGroups/R/providers/… (what a template's
// resourceId() yields). ok is false for anything else.
func roleDefinitionGUID(id string) (string, bool) {
	const marker = "/providers/microsoft.authorization/roledefinitions/"
	i := strings.LastIndex(strings.ToLower(id), marker)
	if i < 0 {
		return "", false
	}
	g := id[i+len(marker):]
	return strings.ToLower(g), guidRE.MatchString(g)
}

// checkRoleAssignment applies ARM's role-assignment rules to a PUT and
// normalises the role definition ID to the subscription scope ARM answers
// with. Sources: Microsoft Learn "Troubleshoot Azure RBAC"
// (RoleAssignmentExists "The role assignment already exists.",
// RoleDefinitionDoesNotExist, RoleAssignmentUpdateNotPermitted "Tenant ID,
// application ID, principal ID, and scope are not allowed to be
// updated."); a role definition ID scoped to a resource group is accepted
// and answered subscription-scoped (role definitions live at the
// subscription or tenant). Caller holds s.mu.
func (s *Server) checkRoleAssignment(p armid.Path, body map[string]any, prev *resource) *armError {
	if !strings.EqualFold(p.Type(), "Microsoft.Authorization/roleAssignments") {
		return nil
	}
	if prev == nil {
		if err := validateName(p.Type(), p.Name()); err != nil {
			return err
		}
	}
	props := asMap(body["properties"])
	if props == nil {
		return nil
	}
	rd, _ := props["roleDefinitionId"].(string)
	principal, _ := props["principalId"].(string)
	if rd != "" {
		g, ok := roleDefinitionGUID(rd)
		if !ok {
			return newError(http.StatusBadRequest, "InvalidRoleDefinitionId",
				"The role definition ID '%s' is not valid. Use /subscriptions/{id}/providers/Microsoft.Authorization/roleDefinitions/{guid}.", rd)
		}
		if _, builtin := builtinRoles[g]; !builtin && !s.customRoleExists(g) {
			return newError(http.StatusBadRequest, "RoleDefinitionDoesNotExist",
				"The specified role definition with ID '%s' does not exist.", g)
		}
		norm := "/providers/Microsoft.Authorization/roleDefinitions/" + g
		if p.Subscription != "" {
			norm = "/subscriptions/" + p.Subscription + norm
		}
		props["roleDefinitionId"] = norm
		rd = norm
	}
	if prev != nil {
		old := asMap(prev.Body["properties"])
		if op, _ := old["principalId"].(string); op != "" && principal != "" && !strings.EqualFold(op, principal) {
			return newError(http.StatusBadRequest, "RoleAssignmentUpdateNotPermitted",
				"Tenant ID, application ID, principal ID, and scope are not allowed to be updated.")
		}
		// Only the description and the condition of an assignment change in
		// place; another role is another assignment.
		ord, _ := old["roleDefinitionId"].(string)
		og, _ := roleDefinitionGUID(ord)
		if g, _ := roleDefinitionGUID(rd); og != "" && g != "" && og != g {
			return newError(http.StatusBadRequest, "RoleAssignmentUpdateNotPermitted",
				"The role definition of an existing role assignment cannot be changed; create another assignment instead.")
		}
		return nil
	}
	for _, r := range s.store.res {
		if !strings.EqualFold(r.Type, "Microsoft.Authorization/roleAssignments") || armid.Equal(r.ID, p.Raw) {
			continue
		}
		rp, ok := armid.ParsePath(r.ID)
		if !ok || !armid.Equal(rp.Scope, p.Scope) {
			continue
		}
		o := asMap(r.Body["properties"])
		ord, _ := o["roleDefinitionId"].(string)
		og, _ := roleDefinitionGUID(ord)
		g, _ := roleDefinitionGUID(rd)
		if op, _ := o["principalId"].(string); strings.EqualFold(op, principal) && og == g && g != "" {
			return newError(http.StatusConflict, "RoleAssignmentExists",
				"The role assignment already exists. The ID of the existing role assignment is %s.", rp.Name())
		}
	}
	return nil
}

// customRoleExists reports whether a role definition with this GUID was
// written or seeded. Caller holds s.mu.
func (s *Server) customRoleExists(g string) bool {
	for _, r := range s.store.res {
		if strings.EqualFold(r.Type, "Microsoft.Authorization/roleDefinitions") && strings.HasSuffix(armid.Key(r.ID), "/"+g) {
			return true
		}
	}
	return false
}

// noDelete lists types whose spec has no DELETE operation: ARM answers 405
// and the resource goes only with its parent. Source: the ARM Swagger
// (azure-rest-api-specs) paths of these types define GET and PUT (or
// PATCH) only.
var noDelete = map[string]bool{
	"microsoft.web/sites/config":                                       true,
	"microsoft.web/sites/slots/config":                                 true,
	"microsoft.web/sites/basicpublishingcredentialspolicies":           true,
	"microsoft.storage/storageaccounts/blobservices":                   true,
	"microsoft.storage/storageaccounts/fileservices":                   true,
	"microsoft.storage/storageaccounts/queueservices":                  true,
	"microsoft.storage/storageaccounts/tableservices":                  true,
	"microsoft.dbforpostgresql/flexibleservers/configurations":         true,
	"microsoft.dbformysql/flexibleservers/configurations":              true,
	"microsoft.dbforpostgresql/servers/configurations":                 true,
	"microsoft.dbformysql/servers/configurations":                      true,
	"microsoft.sql/servers/databases/transparentdataencryption":        true,
	"microsoft.sql/servers/databases/backupshorttermretentionpolicies": true,
	"microsoft.sql/servers/auditingsettings":                           true,
	"microsoft.sql/servers/databases/auditingsettings":                 true,
	"microsoft.sql/servers/securityalertpolicies":                      true,
	"microsoft.sql/servers/databases/securityalertpolicies":            true,
	"microsoft.sql/servers/connectionpolicies":                         true,
}

// Resource groups and subscriptions are served by ARM itself. A version
// dated before ARM's first or after today is refused with
// InvalidApiVersionParameter and the supported list; versions inside the
// range are accepted (ARM's own list grows without the specs noticing).
// Source: Microsoft.Resources specs (resources.json, subscriptions.json).
var armNativeVersions = map[string][]string{
	"microsoft.resources/resourcegroups": {"2014-04-01", "2015-11-01", "2016-02-01", "2016-07-01", "2016-09-01", "2017-05-10", "2018-02-01", "2018-05-01", "2019-03-01", "2019-05-01", "2019-05-10", "2019-07-01", "2019-08-01", "2019-10-01", "2020-06-01", "2020-08-01", "2020-10-01", "2021-01-01", "2021-04-01", "2022-09-01", "2023-07-01", "2024-03-01", "2024-07-01", "2024-11-01", "2025-03-01", "2025-04-01"},
	"microsoft.resources/subscriptions":  {"2014-04-01", "2015-11-01", "2016-06-01", "2018-06-01", "2019-06-01", "2019-11-01", "2020-01-01", "2021-01-01", "2022-01-01", "2022-12-01", "2024-11-01"},
}

func (s *Server) checkNativeVersion(typ, apiVersion string) *armError {
	if !apiVersionRE.MatchString(apiVersion) {
		return newError(http.StatusBadRequest, "InvalidApiVersionParameter",
			"The api-version '%s' is invalid. The supported versions are 'yyyy-mm-dd' dates, optionally with a suffix such as '-preview'.", apiVersion)
	}
	known := armNativeVersions[strings.ToLower(typ)]
	if len(known) == 0 {
		return nil
	}
	date := apiVersion[:10]
	if date >= known[0] && date <= s.now().UTC().Format(time.DateOnly) {
		return nil
	}
	newest := append([]string(nil), known...)
	sort.Sort(sort.Reverse(sort.StringSlice(newest)))
	return newError(http.StatusBadRequest, "InvalidApiVersionParameter",
		"The api-version '%s' is invalid. The supported versions are '%s'.", apiVersion, strings.Join(newest, ","))
}

// knownActionVerbs are the leading verbs of POST actions ARM resource
// providers define (listKeys, regenerateKey, restart, powerOff, …; the
// specs' POST operations). A POST whose last segment starts with none of
// them, and that is no type the index knows, is not an action ARM routes:
// it answers as for an unknown resource type.
var knownActionVerbs = []string{
	"list", "regenerate", "generate", "sharedkeys", "keys", "get", "check", "restart", "start", "stop", "power", "deallocate",
	"reimage", "redeploy", "restore", "recover", "purge", "sync", "swap", "failover", "reset", "rotate",
	"validate", "export", "import", "move", "upgrade", "enable", "disable", "update", "revoke", "grant",
	"begin", "cancel", "approve", "reject", "apply", "run", "suspend", "resume", "pause", "scale",
	"refresh", "test", "renew", "retrieve", "query", "install", "uninstall", "migrate", "convert",
	"backup", "capture", "simulate", "perform", "set", "add", "remove", "replace", "reboot", "retry",
	"trigger", "execute", "invoke", "publish", "unregister", "register", "fetch", "download", "upload",
	"preview", "analyze", "calculate", "compute", "create", "delete", "deploy", "detect", "evaluate",
	"force", "reconcile", "release", "repair", "reactivate", "resize", "resolve", "send", "share",
	"unlink", "link", "verify", "what", "acquire", "break", "change", "clear", "collect", "complete",
	"copy", "disconnect", "connect", "flush", "mark", "pin", "promote", "provision", "read", "rerun",
	"resend", "setup", "shutdown", "submit", "switch", "terminate", "toggle", "unpin",
	// Verbs of App Service, Compute, Network and AKS actions: slotsswap,
	// discoverbackup, iscloneable, generalize, assessPatches, endGetAccess,
	// abort, effectiveRouteTable, backendhealth, hostruntime, extend…
	"slots", "discover", "is", "generalize", "assess", "end", "abort", "effective", "backend",
	"host", "extend", "shrink", "usages", "reapply", "prepare", "commit", "lock", "unlock",
	"archive", "rehydrate", "snapshot", "clone", "attach", "detach", "bind", "unbind", "notify",
	"listen", "encrypt", "decrypt", "sign", "wrap", "unwrap", "save", "load", "open", "close",
}

func knownAction(action string) bool {
	a := strings.ToLower(action)
	for _, v := range knownActionVerbs {
		if strings.HasPrefix(a, v) {
			return true
		}
	}
	return false
}

func errUnknownAction(p armid.Path, apiVersion string) *armError {
	return newError(http.StatusBadRequest, "InvalidResourceType",
		"The resource type '%s' could not be found in the namespace '%s' for api version '%s'. %s is no action of this resource type.",
		strings.Join(p.Types, "/"), p.Provider, apiVersion, p.Types[len(p.Types)-1])
}

// The Microsoft.Resources/tags extension resource ({scope}/providers/
// Microsoft.Resources/tags/default) is the tag set of its scope: GET
// reads it, PUT replaces it, PATCH merges, replaces or deletes with
// {"operation": …}, DELETE removes every tag. Source: ARM REST reference
// "Tags - Get At Scope / Create Or Update At Scope / Update At Scope /
// Delete At Scope" (Microsoft.Resources 2021-04-01). Caller holds s.mu.
func (s *Server) serveTagsResource(r *http.Request, p armid.Path, body map[string]any) (reply, bool) {
	if p.Kind != armid.PathResource || !strings.EqualFold(p.Type(), "Microsoft.Resources/tags") || p.Scope == "" {
		return reply{}, false
	}
	scope := p.Scope
	sp, _ := armid.ParsePath(scope)
	var target *resource
	var tags map[string]any
	if sp.Kind == armid.PathSubscription {
		tags = s.subTags[strings.ToLower(sp.Subscription)]
	} else {
		target = s.store.get(scope)
		if target == nil {
			return reply{err: s.notFound(sp)}, true
		}
		tags, _ = target.Body["tags"].(map[string]any)
	}
	out := func(t map[string]any) reply {
		if t == nil {
			t = map[string]any{}
		}
		return ok200(map[string]any{"id": scope + "/providers/Microsoft.Resources/tags/default", "name": "default",
			"type": "Microsoft.Resources/tags", "properties": map[string]any{"tags": deepCopy(t)}})
	}
	if !strings.EqualFold(p.Name(), "default") {
		return reply{err: newError(http.StatusBadRequest, "InvalidResourceName", "The tags resource is named 'default', not '%s'.", p.Name())}, true
	}
	set := func(t map[string]any) *armError {
		if err := checkTags(map[string]any{"tags": t}); err != nil {
			return err
		}
		if r.Method != http.MethodGet {
			if err := s.checkLocks(scope, lockOpWrite); err != nil {
				return err
			}
		}
		if target == nil {
			s.subTags[strings.ToLower(sp.Subscription)] = t
			return nil
		}
		target.Body["tags"] = t
		target.Changed = s.now()
		return nil
	}
	switch r.Method {
	case http.MethodGet:
		return out(tags), true
	case http.MethodPut:
		t := asMap(asMap(body["properties"])["tags"])
		if t == nil {
			t = map[string]any{}
		}
		if err := set(deepCopy(t)); err != nil {
			return reply{err: err}, true
		}
		return out(t), true
	case http.MethodPatch:
		in := asMap(asMap(body["properties"])["tags"])
		next := map[string]any{}
		for k, v := range tags {
			next[k] = v
		}
		switch op, _ := body["operation"].(string); strings.ToLower(op) {
		case "merge":
			for k, v := range in {
				next[k] = deepCopy(v)
			}
		case "replace":
			next = deepCopy(in)
			if next == nil {
				next = map[string]any{}
			}
		case "delete":
			for k, v := range in {
				if cur, ok := next[k]; ok && (v == nil || v == "" || v == cur) {
					delete(next, k)
				}
			}
		default:
			return reply{err: newError(http.StatusBadRequest, "InvalidRequestContent",
				"The tags PATCH needs \"operation\": \"Merge\", \"Replace\" or \"Delete\" (got %q).", fmt.Sprint(body["operation"]))}, true
		}
		if err := set(next); err != nil {
			return reply{err: err}, true
		}
		return out(next), true
	case http.MethodDelete:
		if err := set(map[string]any{}); err != nil {
			return reply{err: err}, true
		}
		return reply{status: http.StatusOK}, true
	}
	return methodNotAllowed(r.Method), true
}
