package emulator

import (
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// ARM-wide rules a write must pass beyond the spec's body validation, each
// with the source it was taken from.

// Tag limits. Source: Microsoft Learn "Use tags to organize your Azure
// resources" (50 tags, name ≤ 512, value ≤ 256, names may not contain
// < > % & \ ? /), error codes as ARM answers them and as Azure PowerShell
// (Az.Migrate) mirrors them: InvalidTags, InvalidTagName,
// InvalidTagNameCharacters, InvalidTagValueLength.
const (
	maxTags        = schema.MaxTags
	maxTagName     = schema.MaxTagName
	maxTagValue    = schema.MaxTagValue
	tagForbiddenCh = `<>%&\?/`
)

func checkTags(body map[string]any) *armError {
	raw, ok := body["tags"]
	if !ok || raw == nil {
		return nil
	}
	tags, ok := raw.(map[string]any)
	if !ok {
		return errInvalidContent("tags", schema.TypeObject, raw)
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
		if (!hiddenTag(k) && strings.ContainsAny(k, tagForbiddenCh)) || strings.ContainsFunc(k, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return newError(http.StatusBadRequest, "InvalidTagNameCharacters",
				"The tag names '%s' have reserved characters '<,>,%%,&,\\,?,/' or control characters.", k)
		}
		if len([]rune(k)) > maxTagName {
			return newError(http.StatusBadRequest, "InvalidTagName",
				"Tag key too large. Following tag name '%s' exceeded the maximum length. Maximum allowed length for tag name - '%d' characters.", truncate(k, 40), maxTagName)
		}
		if text, ok := scalarText(tags[k]); ok {
			// ARM stores tags as strings and reads a number or boolean as
			// its text (azure-cli issue 15946: a tag the CLI sent as the
			// number 9 was stored as "9").
			tags[k] = text
		}
		v, isStr := tags[k].(string)
		if tags[k] != nil && !isStr {
			return errInvalidContent("tags."+k, schema.TypeString, tags[k])
		}
		if len([]rune(v)) > maxTagValue {
			return newError(http.StatusBadRequest, "InvalidTagValueLength",
				"Tag value too large. Following tag value '%s' exceeded the maximum length. Maximum allowed length for tag value - '%d' characters.", truncate(v, 40), maxTagValue)
		}
	}
	return nil
}

// hiddenTag reports whether a tag name is one of the "hidden-" links
// Azure's own services write (hidden-link:/subscriptions/… on Application
// Insights web tests and alerts, hidden-related:/… on App Service). ARM
// stores them, slashes and all: the recorded round trip of
// test_appinsights_webtest_crud (Azure/azure-cli-extensions,
// src/application-insights/…/recordings/test_appinsights_webtest_crud.yaml)
// PUTs and reads back a "hidden-link:/subscriptions/…/components/test-app"
// tag. The reserved characters stay refused in every other name.
func hiddenTag(name string) bool {
	return len(name) > len("hidden-") && strings.EqualFold(name[:len("hidden-")], "hidden-")
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

// scalarText is a number's or boolean's JSON text.
func scalarText(v any) (string, bool) {
	switch t := v.(type) {
	case json.Number:
		return t.String(), true
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64), true
	case bool:
		return strconv.FormatBool(t), true
	}
	return "", false
}
