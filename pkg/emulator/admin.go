package emulator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// seedRequest is the body of POST /_emulator/resources.
type seedRequest struct {
	ID         string         `json:"id"`
	APIVersion string         `json:"apiVersion"`
	Body       map[string]any `json:"body"`
}

// serveAdmin implements the admin API outside checks rely on. It is never throttled,
// delayed, faulted or counted.
func (s *Server) serveAdmin(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimRight(r.URL.Path, "/")
	switch {
	case path == "/_emulator/resources" && r.Method == http.MethodPost:
		var req seedRequest
		dec := json.NewDecoder(r.Body)
		dec.UseNumber() // seeds are verbatim: big integers stay exact
		if err := dec.Decode(&req); err != nil {
			writeError(w, newError(http.StatusBadRequest, "InvalidRequestContent",
				`Seed body must be {"id": ARM_ID, "apiVersion": V, "body": {...}}: %v`, err))
			return
		}
		if err := s.Seed(req.ID, req.APIVersion, req.Body); err != nil {
			writeError(w, newError(http.StatusBadRequest, "InvalidSeed", "%v", err))
			return
		}
		writeJSON(w, http.StatusCreated, req.Body)
	case path == "/_emulator/resources" && r.Method == http.MethodDelete:
		s.Reset()
		w.WriteHeader(http.StatusNoContent)
	case path == "/_emulator/resources" && r.Method == http.MethodGet:
		s.mu.Lock()
		s.settleLocked()
		all := make([]*resource, 0, len(s.store.res))
		withDerived := r.URL.Query().Get("derived") == "true"
		for _, res := range s.store.res {
			if res.Derived && !withDerived {
				continue
			}
			all = append(all, res)
		}
		sortResources(all)
		out := make([]any, 0, len(all))
		for _, res := range all {
			out = append(out, map[string]any{"id": res.ID, "apiVersion": res.APIVersion, "body": deepCopy(res.Body)})
		}
		s.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{"value": out})
	case path == "/_emulator/stats" && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, s.Stats())
	case path == "/_emulator/operations/forget" && r.Method == http.MethodPost:
		writeJSON(w, http.StatusOK, map[string]any{"forgotten": s.ForgetOperations()})
	default:
		writeError(w, newError(http.StatusNotFound, "NotFound",
			"Unknown admin endpoint %s %s. The admin API is POST|GET|DELETE /_emulator/resources, GET /_emulator/stats and POST /_emulator/operations/forget.", r.Method, r.URL.Path))
	}
}

// Seed stores body verbatim as the live resource id: GET returns exactly
// it, with no quirk applied. Missing resource groups and parent resources
// are created with a minimal body, so any ID can be seeded on its own.
func (s *Server) Seed(id, apiVersion string, body map[string]any) error {
	p, ok := armid.ParsePath(id)
	if !ok || (p.Kind != armid.PathResource && p.Kind != armid.PathResourceGroup) {
		return fmt.Errorf("seed: %q is not a resource or resource group ID", id)
	}
	if body == nil {
		return fmt.Errorf("seed: %s: body is required (a JSON object)", id)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ensureParentsLocked(p, apiVersion)
	etag, _ := body["etag"].(string)
	now := s.now()
	s.store.put(&resource{ID: p.Raw, Type: p.Type(), APIVersion: apiVersion, Body: deepCopy(body), Etag: etag, Verbatim: true, Created: now, Changed: now})
	// Seeds are the world as it already was: the generic lists show them
	// at once, whatever Options.CacheLag says.
	s.syncListCacheLocked(time.Time{})
	return nil
}

// ensureParentsLocked creates the group and every missing ancestor of p.
func (s *Server) ensureParentsLocked(p armid.Path, apiVersion string) {
	var chain []armid.Path
	for cur := p; ; {
		parent := cur.ParentID()
		if parent == "" {
			break
		}
		pp, ok := armid.ParsePath(parent)
		if !ok || pp.Kind == armid.PathSubscription {
			break
		}
		chain = append(chain, pp)
		cur = pp
	}
	if p.ResourceGroup != "" && p.Kind != armid.PathResourceGroup {
		gp, _ := armid.ParsePath(groupID(p))
		chain = append(chain, gp)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		pp := chain[i]
		if s.store.get(pp.Raw) != nil {
			continue
		}
		body := map[string]any{"id": pp.Raw, "name": pp.Name(), "type": pp.Type(), "properties": map[string]any{"provisioningState": "Succeeded"}}
		if pp.Kind == armid.PathResourceGroup {
			body["location"] = "westus"
		}
		s.store.put(&resource{ID: pp.Raw, Type: pp.Type(), APIVersion: apiVersion, Body: body, Verbatim: true, Created: s.now(), Changed: s.now()})
	}
}
