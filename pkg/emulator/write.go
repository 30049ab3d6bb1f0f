package emulator

import (
	"net/http"
	"strings"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// putResource creates or replaces a resource.
func (s *Server) putResource(r *http.Request, p armid.Path, apiVersion string, body map[string]any) reply {
	if err := s.checkParents(p, "write"); err != nil {
		return reply{err: err}
	}
	prev := s.store.get(p.Raw)
	if err := checkPreconditions(r, prev); err != nil {
		return reply{err: err}
	}
	if prev != nil && provisioningState(prev.Body) == "Deleting" {
		return reply{err: errConflict(prev.ID)}
	}
	facts := s.facts(p.Type(), apiVersion)
	coerceScalars(facts.schema, body)
	if err := s.checkRoleAssignment(p, body, prev); err != nil {
		return reply{err: err}
	}
	if err := s.validateWrite(p, apiVersion, facts, body, prev == nil); err != nil {
		return reply{err: err}
	}
	if err := checkTags(body); err != nil {
		return reply{err: err}
	}
	if prev == nil {
		if err := s.checkGlobalName(p, body); err != nil {
			return reply{err: err}
		}
	}
	if prev == nil {
		s.recoverVault(p, body)
	}
	if err := s.checkParentLock(p); err != nil {
		return reply{err: err}
	}
	var prevBody map[string]any
	if prev != nil {
		prevBody = prev.Body
	}
	live := s.materialize(p, facts, body, prevBody)
	if prev != nil && s.profile != nil {
		if err := s.checkCreateOnly(p, facts, prev.Body, live); err != nil {
			return reply{err: err}
		}
	}
	return s.commit(p, apiVersion, facts, prev, live, body, false)
}

// validateWrite runs ARM's request checks on a PUT body (or a PATCH's
// merged result): type and api-version, name, location, JSON types and
// references.
func (s *Server) validateWrite(p armid.Path, apiVersion string, f typeFacts, body map[string]any, create bool) *armError {
	if err := s.checkTypeAndVersion(p, apiVersion); err != nil {
		return err
	}
	if create {
		if err := validateName(p.Type(), p.Name()); err != nil {
			return err
		}
		if err := checkFixedName(p, apiVersion, f.schema); err != nil {
			return err
		}
	}
	if err := checkLocation(p, f, body); err != nil {
		return err
	}
	if err := checkJSONTypes(f.schema, body); err != nil {
		return err
	}
	if err := checkBody(f.schema, p.Name(), body, create); err != nil {
		return err
	}
	if err := checkUnknownMembers(p, f.schema, body); err != nil {
		return err
	}
	if err := s.checkNetworkRules(p, body); err != nil {
		return err
	}
	return s.checkReferences(p, f.schema, s.canonicalID(p), body)
}

// patchResource applies a JSON merge patch, as far as the type's PATCH
// allows, and then behaves as a PUT of the result.
func (s *Server) patchResource(r *http.Request, p armid.Path, apiVersion string, patch map[string]any) reply {
	prev := s.store.get(p.Raw)
	if prev == nil {
		return reply{err: s.notFound(p)}
	}
	facts := s.facts(p.Type(), apiVersion)
	if facts.patch == PatchAbsent {
		return methodNotAllowed(http.MethodPatch)
	}
	if err := checkPreconditions(r, prev); err != nil {
		return reply{err: err}
	}
	if provisioningState(prev.Body) == "Deleting" {
		return reply{err: errConflict(prev.ID)}
	}
	if err := s.checkTypeAndVersion(p, apiVersion); err != nil {
		return reply{err: err}
	}
	if err := s.checkParentLock(p); err != nil {
		return reply{err: err}
	}
	if facts.patch == PatchTagsOnly {
		// Tags-only RPs ignore everything else in the body, silently, which
		// is exactly what a client that trusts PATCH must be tested against.
		patch = map[string]any{"tags": patch["tags"]}
		if patch["tags"] == nil {
			patch = map[string]any{}
		}
	}
	coerceScalars(facts.schema, patch)
	merged, err := mergePatch(prev.Body, patch)
	if err != nil {
		return reply{err: newError(http.StatusBadRequest, "InvalidRequestContent",
			"The request content is not a JSON merge patch the resource can take: %v.", err)}
	}
	if tags, ok := patch["tags"].(map[string]any); ok {
		// ARM replaces the whole tag set on PATCH; it does not merge keys.
		// A null value still means "no such tag".
		repl := map[string]any{}
		for k, v := range tags {
			if v != nil {
				repl[k] = deepCopy(v)
			}
		}
		merged["tags"] = repl
	}
	if err := checkJSONTypes(facts.schema, patch); err != nil {
		return reply{err: err}
	}
	if err := checkTags(merged); err != nil {
		return reply{err: err}
	}
	if err := s.checkReferences(p, facts.schema, prev.ID, patch); err != nil {
		return reply{err: err}
	}
	if err := s.checkNetworkRules(p, merged); err != nil {
		return reply{err: err}
	}
	live := s.materialize(p, facts, merged, prev.Body)
	if s.profile != nil {
		if err := s.checkCreateOnly(p, facts, prev.Body, live); err != nil {
			return reply{err: err}
		}
	}
	return s.commit(p, apiVersion, facts, prev, live, patch, true)
}

// commit stores the new live body and answers as ARM does: 200/201 for
// synchronous writes, 201/202 plus polling headers for long-running ones.
func (s *Server) commit(p armid.Path, apiVersion string, facts typeFacts, prev *resource, body, req map[string]any, isPatch bool) reply {
	now := s.now()
	res := &resource{ID: s.canonicalID(p), Type: p.Type(), APIVersion: apiVersion, Created: now, Changed: now}
	if prev != nil {
		res.ID, res.Created = prev.ID, prev.Created
	}
	res.Secrets = keptSecrets(res.Type, req, prev)
	res.Etag = s.envelope(res, p, facts, body, prev, now)
	applyGenerated(res.ID, res.Type, body)
	fillServerFields(res.ID, res.Type, body)
	var prevBody map[string]any
	if prev != nil {
		prevBody = prev.Body
	}
	if s.profile != nil { // QuirksNone stays a plain store
		applyServiceDefaults(res.ID, res.Type, s.locationOf(res.ID, body), body, prevBody, now)
		s.settlePeering(res.ID, res.Type, body)
	}
	s.assignPrivateIPs(res.Type, body, prevBody)
	s.assignFrontendIPs(res.Type, body, prevBody)
	res.Body = body
	s.store.put(res)
	s.syncChildrenFromParent(res.ID, res.Type, apiVersion, req, body)
	s.syncSiteSettings(res, req)
	s.syncBackRefs(res.ID, res.Type)
	if prev == nil {
		s.addImplicitChildren(res)
	}
	s.syncParentFromChild(p, res)

	status := createStatus(facts, prev == nil)
	rep := reply{status: status, etag: res.Etag, apiVer: apiVersion}
	if !facts.putLRO {
		setProvisioningState(body, "Succeeded")
		if status == http.StatusAccepted {
			status = http.StatusOK // a synchronous write has nothing to poll
			rep.status = status
		}
		rep.body = deepCopy(body)
		return rep
	}
	kind, state := opUpdate, "Updating"
	if prev == nil {
		kind, state = opCreate, "Creating"
	}
	setProvisioningState(body, state)
	rep.op = s.startOp(p, kind, res, body)
	rep.async = true
	if rep.status == http.StatusAccepted && !isPatch {
		// RPs whose spec declares 202 (storage accounts) answer a create
		// with no body and a Location to poll.
		return rep
	}
	if isPatch {
		rep.status = http.StatusOK
	}
	rep.body = deepCopy(body)
	return rep
}

// deleteResource removes a resource and its children: at once for
// synchronous types, after the LRO duration for long-running ones.
func (s *Server) deleteResource(r *http.Request, p armid.Path, apiVersion string) reply {
	if p.ResourceGroup != "" && p.Kind != armid.PathResourceGroup && s.store.get(groupID(p)) == nil {
		return reply{err: errGroupNotFound(p.ResourceGroup)}
	}
	res := s.store.get(p.Raw)
	if res == nil {
		// Nothing to delete: ARM answers 204 whatever the preconditions.
		return reply{status: http.StatusNoContent}
	}
	if err := checkPreconditions(r, res); err != nil {
		return reply{err: err}
	}
	if err := s.checkParentLock(p); err != nil {
		return reply{err: err}
	}
	if err := s.checkInUse(res); err != nil {
		return reply{err: err}
	}
	s.rememberDeletedVault(res)
	facts := s.facts(p.Type(), apiVersion)
	if !facts.deleteLRO {
		s.keepDiagnosticSettings(res.ID)
		s.store.removeTree(res.ID)
		s.syncParentFromChild(p, nil)
		s.syncBackRefs(res.ID, res.Type)
		return reply{status: http.StatusOK}
	}
	if provisioningState(res.Body) != "Deleting" {
		setProvisioningState(res.Body, "Deleting")
	}
	op := s.startOp(p, opDelete, res, res.Body)
	return reply{status: http.StatusAccepted, op: op, apiVer: apiVersion}
}

// startOp registers a long-running operation for res.
func (s *Server) startOp(p armid.Path, kind opKind, res *resource, body map[string]any) *operation {
	now := s.now()
	id := newGUID()
	loc, _ := body["location"].(string)
	op := &operation{
		ID: id, Kind: kind, ResourceID: res.ID, Type: res.Type,
		Start: now, End: now.Add(s.opts.lroDuration(res.Type)),
		Fail: s.chaos.lroFails(), Lost: s.chaos.lroLost(),
	}
	op.statusURL, op.resultURL = operationPaths(p, loc, id)
	s.ops[id] = op
	s.pending = append(s.pending, op)
	res.LastOp = id
	return op
}

// canonicalID echoes the request path, but with the resource group's
// casing as stored and ARM's spelling of the fixed segments.
func (s *Server) canonicalID(p armid.Path) string {
	if p.Kind == armid.PathResourceGroup {
		return "/subscriptions/" + p.Subscription + "/resourceGroups/" + p.ResourceGroup
	}
	id := p.Raw
	if p.Subscription != "" && p.ResourceGroup != "" {
		prefix := groupID(p)
		if g := s.store.get(prefix); g != nil {
			prefix = g.ID
		}
		rest := id[len(prefix):]
		id = prefix + rest
	}
	return id
}

// envelope sets the fields ARM owns: id, name, type, etag, systemData and
// properties.provisioningState. It returns the new etag.
func (s *Server) envelope(res *resource, p armid.Path, facts typeFacts, body map[string]any, prev *resource, now time.Time) string {
	body["id"] = res.ID
	body["name"] = p.Name()
	body["type"] = facts.typeName
	if tp := facts.profile; tp != nil {
		body["id"] = ApplyCase(tp.IDCase, res.ID)
		if tp.FullName && len(p.Names) > 1 {
			body["name"] = strings.Join(p.Names, "/")
		}
	}
	if p.Kind == armid.PathResourceGroup {
		// Groups carry no etag and no systemData in ARM's answers.
		delete(body, "etag")
		delete(body, "systemData")
		return ""
	}
	etag := ""
	if facts.etag != etagNone {
		etag = newGUID()
		if facts.etag == etagWeak {
			etag = `W/"` + etag + `"`
		} else {
			etag = `"` + etag + `"`
		}
		body["etag"] = etag
	} else {
		delete(body, "etag")
	}
	if facts.systemData {
		created := res.Created
		sd := map[string]any{
			"createdBy":          emulatorUser,
			"createdByType":      "User",
			"createdAt":          created.UTC().Format(time.RFC3339Nano),
			"lastModifiedBy":     emulatorUser,
			"lastModifiedByType": "User",
			"lastModifiedAt":     now.UTC().Format(time.RFC3339Nano),
		}
		body["systemData"] = sd
	} else {
		delete(body, "systemData")
	}
	return etag
}

func errConflict(id string) *armError {
	return newError(http.StatusConflict, "AnotherOperationInProgress",
		"Another operation is in progress on '%s' (it is being deleted). Wait for it to finish and retry.", id)
}

func provisioningState(b map[string]any) string {
	props, _ := b["properties"].(map[string]any)
	s, _ := props["provisioningState"].(string)
	return s
}

func setProvisioningState(b map[string]any, state string) {
	props, ok := b["properties"].(map[string]any)
	if !ok {
		props = map[string]any{}
		b["properties"] = props
	}
	props["provisioningState"] = state
}

// stripServerFields removes what a client may echo back from a GET but the
// server owns, so a read-modify-write PUT does not pin stale values.
func stripServerFields(b map[string]any) {
	for _, k := range []string{"id", "name", "type", "etag", "systemData"} {
		delete(b, k)
	}
	if props, ok := b["properties"].(map[string]any); ok {
		delete(props, "provisioningState")
	}
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
