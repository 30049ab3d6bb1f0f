package emulator

import (
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

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
		v, ok := s.deletedVaults[strings.ToLower(name)]
		if !ok {
			return reply{err: newError(http.StatusNotFound, "ResourceNotFound", "The deleted vault '%s' was not found.", name)}, true
		}
		if asMap(v.Body["properties"])["enablePurgeProtection"] == true {
			// Purge protection keeps the vault until its retention ends
			// (az keyvault purge: "(MethodNotAllowed) Operation
			// 'DeletedVaultPurge' is not allowed.", microsoft/AzureTRE
			// issue 1446).
			return reply{err: newError(http.StatusMethodNotAllowed, "MethodNotAllowed", "Operation 'DeletedVaultPurge' is not allowed.")}, true
		}
		delete(s.deletedVaults, strings.ToLower(name))
		return reply{status: http.StatusAccepted}, true
	}
	return reply{}, false
}
