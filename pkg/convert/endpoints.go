package convert

import (
	"fmt"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/convert/expr"
)

// Some values Azure computes are fixed by a resource's name in the
// cloud's DNS suffixes, so reference() of a resource this template
// creates knows them now when the name is known. Templates cut them with
// string functions (replace(..., 'https://', ''), endsWith(..., '/')),
// which a placeholder could not carry. Each has its documented form:
//
//   - a storage account's primary blob, file, queue and table endpoints:
//     https://NAME.blob.core.windows.net/ (Microsoft Learn "Storage account
//     overview", standard endpoints), for a kind that offers the service
//     and standard (not Azure DNS zone) endpoints; web and dfs are not
//     predicted (web's host holds a zone Azure picks);
//   - a key vault's vaultUri: https://NAME.vault.azure.net/ (Microsoft
//     Learn "About Azure Key Vault": the vault's DNS name);
//   - a SQL logical server's fullyQualifiedDomainName:
//     NAME.database.windows.net (Microsoft Learn "What is a logical server");
//   - an API Management service's gatewayUrl, developerPortalUrl,
//     managementApiUrl and scmUrl: https://NAME.azure-api.net,
//     https://NAME.developer.azure-api.net, ... (Microsoft Learn "Configure
//     a custom domain name for your Azure API Management instance", the
//     default endpoints), for the classic tiers (Consumption: the gateway
//     only; the v2 tiers are not predicted).

// predictor computes one value of a resource from its declaration, or
// says it cannot.
type predictor func(d *doc, name string, path []string) (string, bool)

// predictors are keyed by lower-case type.
var predictors = map[string]predictor{
	"microsoft.storage/storageaccounts": storageEndpoint,
	"microsoft.keyvault/vaults":         vaultURI,
	"microsoft.sql/servers":             sqlServerFQDN,
	"microsoft.apimanagement/service":   apimURL,
}

// apimHosts are the host prefixes of API Management's default endpoints.
var apimHosts = map[string]string{
	"gatewayurl":         "",
	"developerportalurl": "developer.",
	"managementapiurl":   "management.",
	"scmurl":             "scm.",
}

// apimTiers are the tiers whose default endpoints are predicted, and
// whether they have more than the gateway.
var apimTiers = map[string]bool{"developer": true, "basic": true, "standard": true, "premium": true, "consumption": false}

// storageServices are the kinds that offer each predicted endpoint.
var storageServices = map[string][]string{
	"blob":  {"Storage", "StorageV2", "BlobStorage", "BlockBlobStorage"},
	"file":  {"Storage", "StorageV2", "FileStorage"},
	"queue": {"Storage", "StorageV2"},
	"table": {"Storage", "StorageV2"},
}

// Resolve is the value of a reference() path that is known now (above).
// Only the functions that need a concrete value ask (replace(), a hash);
// a value written as it is stays ${ref:...}, which keeps the order of the
// writes.
func (r *refValue) Resolve() (any, bool) {
	if r.dep == nil || len(r.path) < 2 {
		return nil, false
	}
	path := make([]string, len(r.path))
	for i, p := range r.path {
		s, ok := p.(string)
		if !ok {
			return nil, false
		}
		path[i] = strings.ToLower(s)
	}
	if path[0] != "properties" {
		return nil, false
	}
	d := r.dep.r.predictable(r.target)
	if d == nil {
		return nil, false
	}
	name, ok := expr.Known(d.name)
	if !ok {
		return nil, false
	}
	v, ok := predictors[strings.ToLower(d.typ)](d, strings.ToLower(fmt.Sprint(name)), path[1:])
	if !ok {
		return nil, false
	}
	// reference() orders a deployment after the resource it reads, also
	// when the value is known now: the reader keeps that order.
	if from := r.dep.r.evaluating; from != nil && from != d {
		from.dependsOn = append(from.dependsOn, r.dep.r.docID(d))
	}
	return v, true
}

// predictable finds the resource a reference() names, by ID, relative ID,
// symbolic name or name, among the ones this template creates whose type
// has a predictor.
func (r *run) predictable(target any) *doc {
	typ, name, symbolic := "", "", false
	switch t := target.(type) {
	case *idRef:
		if len(t.names) != 1 {
			return nil
		}
		n, ok := expr.Known(t.names[0])
		if !ok {
			return nil
		}
		typ, name = t.typ, fmt.Sprint(n)
	case string:
		name, symbolic = t, true
		if strings.Contains(t, "/") {
			segs := strings.Split(strings.Trim(t, "/"), "/")
			if len(segs) < 3 {
				return nil
			}
			typ, name, symbolic = segs[len(segs)-3]+"/"+segs[len(segs)-2], segs[len(segs)-1], false
		}
	default:
		return nil
	}
	for _, d := range r.docs {
		if predictors[strings.ToLower(d.typ)] == nil || d.existing || d.skip || typ != "" && !strings.EqualFold(typ, d.typ) {
			continue
		}
		if symbolic && d.symbolic != "" && strings.EqualFold(d.symbolic, name) {
			return d
		}
		if n, ok := expr.Known(d.name); ok && strings.EqualFold(fmt.Sprint(n), name) {
			return d
		}
	}
	return nil
}

func storageEndpoint(d *doc, name string, path []string) (string, bool) {
	if len(path) != 2 || path[0] != "primaryendpoints" {
		return "", false
	}
	svc := path[1]
	kind, ok := d.rawString("kind")
	if !ok || !offers(storageServices[svc], kind) {
		return "", false
	}
	props, _ := memberOf(d.decl.raw, "properties").(map[string]any)
	if _, set := expr.Member(props, "dnsEndpointType"); set {
		if t, ok := d.rawString("properties", "dnsEndpointType"); !ok || !strings.EqualFold(t, "Standard") {
			return "", false
		}
	}
	suffix, ok := cloudSuffix("storage")
	return "https://" + name + "." + svc + "." + suffix + "/", ok
}

func vaultURI(_ *doc, name string, path []string) (string, bool) {
	if len(path) != 1 || path[0] != "vaulturi" {
		return "", false
	}
	suffix, ok := cloudSuffix("keyvaultDns")
	return "https://" + name + suffix + "/", ok
}

func sqlServerFQDN(_ *doc, name string, path []string) (string, bool) {
	if len(path) != 1 || path[0] != "fullyqualifieddomainname" {
		return "", false
	}
	suffix, ok := cloudSuffix("sqlServerHostname")
	return name + suffix, ok
}

func apimURL(d *doc, name string, path []string) (string, bool) {
	if len(path) != 1 {
		return "", false
	}
	prefix, known := apimHosts[path[0]]
	sku, ok := d.rawString("sku", "name")
	all, tier := apimTiers[strings.ToLower(sku)]
	if !known || !ok || !tier || prefix != "" && !all {
		return "", false
	}
	return "https://" + name + "." + prefix + "azure-api.net", true
}

func offers(kinds []string, kind string) bool {
	for _, k := range kinds {
		if strings.EqualFold(k, kind) {
			return true
		}
	}
	return false
}

// rawString evaluates a member of the resource's declaration that must be
// a string known now.
func (d *doc) rawString(keys ...string) (string, bool) {
	var v any = d.decl.raw
	for _, k := range keys {
		m, _ := v.(map[string]any)
		v = memberOf(m, k)
	}
	if v == nil {
		return "", false
	}
	got, err := d.ctx.value(v, joinPath(d.path, strings.Join(keys, ".")))
	if err != nil {
		return "", false
	}
	got, ok := expr.Known(got)
	s, isStr := got.(string)
	return s, ok && isStr
}

// cloudSuffix is environment().suffixes[key] of the cloud convert
// evaluates for.
func cloudSuffix(key string) (string, bool) {
	env, err := mustBuiltin("environment")(&expr.Ctx{Funcs: noFuncs}, nil)
	if err != nil {
		return "", false
	}
	m, _ := env.(map[string]any)
	s, ok := memberOf(asObject(m["suffixes"]), key).(string)
	return s, ok && s != ""
}
