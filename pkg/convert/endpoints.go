package convert

import (
	"fmt"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/convert/expr"
)

// A storage account's primary service endpoints are fixed by its name in
// the cloud's storage suffix (Microsoft Learn "Storage account overview",
// Standard endpoints: https://NAME.blob.core.windows.net/), so
// reference(account).primaryEndpoints.blob of an account this template
// creates is known now when the name is. Templates strip the scheme and
// slash off it (replace(..., 'https://', '')), which a placeholder could
// not do. Not predicted: an account with Azure DNS zone endpoints (their
// host holds a zone Azure picks), the web and dfs endpoints (web's host
// holds the zone too), and a service the account's kind does not offer.

const storageAccountType = "Microsoft.Storage/storageAccounts"

// storageServices are the kinds that offer each predicted endpoint.
var storageServices = map[string][]string{
	"blob":  {"Storage", "StorageV2", "BlobStorage", "BlockBlobStorage"},
	"file":  {"Storage", "StorageV2", "FileStorage"},
	"queue": {"Storage", "StorageV2"},
	"table": {"Storage", "StorageV2"},
}

// Resolve is the value of a reference() path that is known now: a
// primary endpoint of a storage account this template creates. Only the
// functions that need a concrete value ask (replace(), a hash); a value
// written as it is stays ${ref:...}, which keeps the order of the writes.
func (r *refValue) Resolve() (any, bool) {
	if len(r.path) != 3 || r.dep == nil {
		return nil, false
	}
	props, _ := r.path[0].(string)
	eps, _ := r.path[1].(string)
	svc, _ := r.path[2].(string)
	if !strings.EqualFold(props, "properties") || !strings.EqualFold(eps, "primaryEndpoints") {
		return nil, false
	}
	d := r.dep.r.storageDoc(r.target)
	if d == nil {
		return nil, false
	}
	if ep, ok := d.storageEndpoint(strings.ToLower(svc)); ok {
		return ep, true
	}
	return nil, false
}

// storageDoc finds the storage account a reference() names among the
// accounts the template creates: by ID, relative ID, symbolic name or name.
func (r *run) storageDoc(target any) *doc {
	name, symbolic := "", false
	switch t := target.(type) {
	case *idRef:
		if !strings.EqualFold(t.typ, storageAccountType) || len(t.names) != 1 {
			return nil
		}
		n, ok := expr.Known(t.names[0])
		if !ok {
			return nil
		}
		name = fmt.Sprint(n)
	case string:
		name, symbolic = t, true
		if i := strings.LastIndex(strings.ToLower(t), strings.ToLower(storageAccountType)+"/"); i >= 0 {
			name, symbolic = t[i+len(storageAccountType)+1:], false
		} else if strings.Contains(t, "/") {
			return nil
		}
	default:
		return nil
	}
	for _, d := range r.docs {
		if !strings.EqualFold(d.typ, storageAccountType) || d.existing || d.skip {
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

// storageEndpoint is the account's primary endpoint of service svc, when
// its name, kind and endpoint type are known and fix it.
func (d *doc) storageEndpoint(svc string) (string, bool) {
	name, ok := expr.Known(d.name)
	if !ok {
		return "", false
	}
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
	suffix, ok := storageSuffix()
	if !ok {
		return "", false
	}
	return "https://" + strings.ToLower(fmt.Sprint(name)) + "." + svc + "." + suffix + "/", true
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

// storageSuffix is environment().suffixes.storage of the cloud convert
// evaluates for.
func storageSuffix() (string, bool) {
	env, err := mustBuiltin("environment")(&expr.Ctx{Funcs: noFuncs}, nil)
	if err != nil {
		return "", false
	}
	m, _ := env.(map[string]any)
	s, ok := memberOf(asObject(m["suffixes"]), "storage").(string)
	return s, ok
}
