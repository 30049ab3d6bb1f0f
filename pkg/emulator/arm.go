package emulator

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// reply is a response computed under the server lock and written after it.
type reply struct {
	status int
	body   any
	err    *armError
	etag   string
	op     *operation
	async  bool // send Azure-AsyncOperation as well as Location
	apiVer string
	// retryAfter, when set, is sent as Retry-After: a write that settles
	// later and is polled at its own URL (a deployment).
	retryAfter string
	// raw is sent as it is, with contentType, for the few answers that
	// are not JSON (a site's publish profile XML).
	raw         []byte
	contentType string
}

// serveARM runs the request pipeline ARM's front door runs: count, delay,
// throttle, fault, validate, route.
func (s *Server) serveARM(w http.ResponseWriter, r *http.Request) {
	defer func() {
		// A bug here must look like ARM's 500, not a dropped connection
		// that clients retry as a network fault.
		if v := recover(); v != nil {
			writeError(w, newError(http.StatusInternalServerError, "InternalServerError",
				"The emulator failed to handle %s %s: %v. Please report it with the request.", r.Method, r.URL.Path, v))
		}
	}()
	pollID, pollResult, isPoll := isPollPath(r.URL.Path)
	if isPoll {
		s.mu.Lock()
		_, isPoll = s.ops[pollID]
		s.mu.Unlock()
	}
	stat := r.Method
	if isPoll {
		stat = "POLL"
	}
	s.stats.request(stat, r.UserAgent())
	w.Header().Set("x-ms-request-id", newGUID())
	w.Header().Set("x-ms-correlation-request-id", newGUID())

	// ARM charges its token bucket when a request arrives, before the
	// service takes its time: charge first, then add the latency, so the
	// remaining-token headers are as ordered as the real ones.
	p, routable := armid.ParsePath(r.URL.Path)
	admitted := s.throttle.admit(w, p.Subscription, r.Method, s.now())
	if d := s.chaos.delay(r.Method); d > 0 {
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return
		}
	}
	if !admitted {
		s.stats.throttle()
		writeError(w, errThrottled(p.Subscription, r.Method))
		return
	}
	if code, reset := s.chaos.fault(); reset || code != 0 {
		s.stats.fault()
		if reset {
			resetConnection(w)
			return
		}
		if code == http.StatusServiceUnavailable || code == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "1")
		}
		writeError(w, faultError(code))
		return
	}
	if isPoll {
		s.servePoll(w, r, pollID, pollResult)
		return
	}
	apiVersion := r.URL.Query().Get("api-version")
	if apiVersion == "" {
		writeError(w, errMissingAPIVersion())
		return
	}
	if s.serveProviders(w, r) || s.serveTagNames(w, r) {
		return
	}
	if !routable {
		writeError(w, newError(http.StatusBadRequest, "InvalidRequestUri",
			"The request URI '%s' is not a valid ARM path: expected /subscriptions/{id}/resourceGroups/{name}/providers/{namespace}/{type}/{name}.", r.URL.Path))
		return
	}
	var body map[string]any
	if r.Method == http.MethodPut || r.Method == http.MethodPatch || r.Method == http.MethodPost {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		body, err = decodeBody(b)
		if err != nil && deploymentPath(r.URL.Path) {
			// Deployments take the lenient JSON the Azure CLI sends for a
			// template file it read (deployments.go).
			body, err = decodeBody(lenientJSON(b))
		}
		if err != nil && (r.Method != http.MethodPost || len(bytes.TrimSpace(b)) > 0) {
			writeError(w, newError(http.StatusBadRequest, "InvalidRequestContent",
				"The request content was invalid and could not be deserialized: %v. Send a JSON object.", err))
			return
		}
	}

	s.mu.Lock()
	s.settleLocked()
	rep := s.route(r, p, apiVersion, body)
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		// p.Raw: some writes edit a resource in place (the tags
		// resource, a delete's "Deleting" state).
		s.syncListCacheLocked(s.now(), p.Raw)
	}
	s.mu.Unlock()
	if r.Method == http.MethodHead {
		// ARM answers HEAD with 204 when the resource exists, 404 when not,
		// and never a body.
		if rep.err != nil {
			w.WriteHeader(rep.err.Status)
			return
		}
		w.WriteHeader(http.StatusNoContent)
		return
	}
	s.write(w, r, rep)
}

// decodeBody parses a JSON object keeping every number exact.
func decodeBody(b []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var body map[string]any
	if err := dec.Decode(&body); err != nil {
		return nil, err
	}
	if body == nil {
		return nil, errors.New("the body is null")
	}
	if dec.More() {
		return nil, errors.New("trailing data after the JSON object")
	}
	return body, nil
}

func (s *Server) write(w http.ResponseWriter, r *http.Request, rep reply) {
	if rep.err != nil {
		writeError(w, rep.err)
		return
	}
	if rep.etag != "" {
		w.Header().Set("ETag", rep.etag)
	}
	if rep.retryAfter != "" {
		w.Header().Set("Retry-After", rep.retryAfter)
	}
	if rep.op != nil {
		s.setLROHeaders(w, r, rep.op, rep.apiVer, rep.async)
	}
	if rep.contentType != "" {
		w.Header().Set("Content-Type", rep.contentType)
		w.WriteHeader(rep.status)
		_, _ = w.Write(rep.raw)
		return
	}
	if rep.body == nil {
		w.WriteHeader(rep.status)
		return
	}
	writeJSON(w, rep.status, rep.body)
}

func (s *Server) route(r *http.Request, p armid.Path, apiVersion string, body map[string]any) reply {
	m := r.Method
	switch p.Kind {
	case armid.PathSubscriptions, armid.PathSubscription:
		if err := s.checkNativeVersion("Microsoft.Resources/subscriptions", apiVersion); err != nil {
			return reply{err: err}
		}
	case armid.PathResourceGroups, armid.PathResourceGroup:
		if err := s.checkNativeVersion("Microsoft.Resources/resourceGroups", apiVersion); err != nil {
			return reply{err: err}
		}
	}
	if rep, ok := s.serveDeletedVaults(r, p); ok {
		return rep
	}
	if rep, ok := s.serveTagsResource(r, p, body); ok {
		return rep
	}
	if rep, ok := s.serveDeployment(r, p, apiVersion, body); ok {
		return rep
	}
	if rep, ok := s.serveBuiltinRoles(r, p); ok {
		return rep
	}
	if rep, ok := s.serveBuiltinPolicies(r, p); ok {
		return rep
	}
	if rep, ok := s.servePGParameters(r, p); ok {
		return rep
	}
	if rep, ok := s.servePublishXML(r, p); ok {
		return rep
	}
	if rep, ok := s.serveWebAppStacks(r, p); ok {
		return rep
	}
	if rep, ok := s.serveDiagCategories(r, p); ok {
		return rep
	}
	switch p.Kind {
	case armid.PathSubscriptions:
		if m != http.MethodGet {
			return methodNotAllowed(m)
		}
		var out []any
		for _, sub := range s.store.subscriptions() {
			out = append(out, subscriptionBody(sub))
		}
		return s.page(r, out)
	case armid.PathSubscription:
		if m != http.MethodGet {
			return methodNotAllowed(m)
		}
		return reply{status: http.StatusOK, body: subscriptionBody(p.Subscription)}
	case armid.PathResourceGroups:
		if m != http.MethodGet {
			return methodNotAllowed(m)
		}
		return s.page(r, bodies(s.store.children("/subscriptions/"+p.Subscription, p.Type())))
	case armid.PathGroupResources, armid.PathSubscriptionResources:
		if m != http.MethodGet {
			return methodNotAllowed(m)
		}
		if p.Kind == armid.PathGroupResources && s.store.get(groupID(p)) == nil {
			return reply{err: errGroupNotFound(p.ResourceGroup)}
		}
		var out []any
		// $expand adds what ARM keeps about the resource itself.
		expand := strings.ToLower(r.URL.Query().Get("$expand"))
		if s.cache != nil {
			for _, v := range s.cache.list(p.Subscription, p.ResourceGroup, s.now()) {
				out = append(out, v.item(expand))
			}
			return s.page(r, out)
		}
		for _, res := range s.store.topLevel(p.Subscription, p.ResourceGroup) {
			out = append(out, versionOf(res).item(expand))
		}
		return s.page(r, out)
	case armid.PathCollection:
		// A provider's locations are not resources: their actions have
		// no parent to find.
		if !(m == http.MethodPost && (locationScoped(p) || serviceChildOf(p) != "")) {
			if err := s.checkParents(p, "read"); err != nil {
				return reply{err: err}
			}
		}
		switch m {
		case http.MethodGet:
			if err := s.checkTypeAndVersion(p, apiVersion); err != nil {
				return reply{err: err}
			}
			if rep, ok := s.lockList(r, p); ok {
				return rep
			}
			if subscriptionWide(p) {
				return s.page(r, bodies(s.store.inSubscription(p.Subscription, p.Type())))
			}
			return s.page(r, bodies(s.store.children(p.ParentID(), p.Type())))
		case http.MethodPost:
			if len(p.Names) > 0 {
				if err := s.checkLocks(p.ParentID(), lockOpAction); err != nil {
					return reply{err: err}
				}
			}
			return s.postAction(p, apiVersion, body)
		}
		return methodNotAllowed(m)
	}
	// kindGroup and kindResource
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodDelete:
		// ARM checks the api-version against the type on every method.
		// Seeded resources are exempt: the admin API stores any ID
		// verbatim, and reads must hand it back as stored.
		if res := s.store.get(p.Raw); res == nil || !res.Verbatim {
			if err := s.checkTypeAndVersion(p, apiVersion); err != nil {
				return reply{err: err}
			}
		}
	}
	switch m {
	case http.MethodPut, http.MethodPatch:
		if err := s.checkLocks(p.Raw, lockOpWrite); err != nil {
			return reply{err: err}
		}
	case http.MethodDelete:
		if noDelete[strings.ToLower(p.Type())] {
			return methodNotAllowed(m)
		}
		if err := s.disallowedDelete(p, apiVersion); err != nil {
			return reply{err: err}
		}
		if err := s.checkLocks(p.Raw, lockOpDelete); err != nil {
			return reply{err: err}
		}
	case http.MethodPost:
		if err := s.checkLocks(p.Raw, lockOpAction); err != nil {
			return reply{err: err}
		}
	}
	if m == http.MethodPut {
		if rep, ok := s.updateAccessPolicy(p, apiVersion, body); ok {
			return rep
		}
	}
	switch m {
	case http.MethodGet, http.MethodHead:
		return s.getResource(p)
	case http.MethodPut:
		return s.putResource(r, p, apiVersion, body)
	case http.MethodPatch:
		return s.patchResource(r, p, apiVersion, body)
	case http.MethodDelete:
		return s.deleteResource(r, p, apiVersion)
	case http.MethodPost:
		return s.postResource(p, body)
	}
	return methodNotAllowed(m)
}

func (s *Server) getResource(p armid.Path) reply {
	res := s.store.get(p.Raw)
	if res == nil {
		if r, ok := s.serviceChildGet(p); ok {
			return r
		}
		return reply{err: s.notFound(p)}
	}
	return reply{status: http.StatusOK, body: deepCopy(res.Body), etag: res.Etag}
}

// notFound picks ARM's code: a missing group wins over a missing resource.
func (s *Server) notFound(p armid.Path) *armError {
	if p.Kind == armid.PathResourceGroup {
		return errGroupNotFound(p.ResourceGroup)
	}
	if p.ResourceGroup != "" && s.store.get(groupID(p)) == nil {
		return errGroupNotFound(p.ResourceGroup)
	}
	return errNotFound(p)
}

// checkParents returns ResourceGroupNotFound or ParentResourceNotFound when
// what p hangs under does not exist. Subscriptions and the tenant always do.
func (s *Server) checkParents(p armid.Path, op string) *armError {
	if p.ResourceGroup != "" && p.Kind != armid.PathResourceGroup && s.store.get(groupID(p)) == nil {
		return errGroupNotFound(p.ResourceGroup)
	}
	parent := realParent(p.ParentID())
	if parent == "" {
		return nil
	}
	pp, ok := armid.ParsePath(parent)
	if !ok || pp.Kind == armid.PathSubscription || pp.Kind == armid.PathResourceGroup {
		return nil // the group was checked above
	}
	if s.store.get(parent) == nil {
		return errParentNotFound(p, parent, op)
	}
	return nil
}

// checkPreconditions applies If-Match and If-None-Match against the live
// etag (empty when the resource does not exist).
func checkPreconditions(r *http.Request, res *resource) *armError {
	// Code and wording as ARM answers a stale If-Match (recorded from
	// Microsoft.Compute in kubernetes-sigs/cloud-provider-azure issue 9728:
	// 412, "PreconditionFailed", "Etag provided in if-match header \"2\"
	// does not match etag \"3\" of resource.").
	if im := r.Header.Get("If-Match"); im != "" {
		switch {
		case res == nil:
			return newError(http.StatusPreconditionFailed, "PreconditionFailed",
				"Etag provided in if-match header %s does not match: the resource does not exist.", im)
		case im != "*" && !etagMatch(im, res.Etag):
			return newError(http.StatusPreconditionFailed, "PreconditionFailed",
				"Etag provided in if-match header %s does not match etag %s of resource.", im, res.Etag)
		}
	}
	if inm := r.Header.Get("If-None-Match"); inm != "" && res != nil {
		if inm == "*" || etagMatch(inm, res.Etag) {
			return newError(http.StatusPreconditionFailed, "PreconditionFailed",
				"The condition specified using HTTP conditional header(s) is not met: the resource already exists (If-None-Match %s).", inm)
		}
	}
	return nil
}

// etagMatch compares etags ignoring the weak prefix, as ARM RPs do.
func etagMatch(header, etag string) bool {
	if etag == "" {
		return false
	}
	norm := func(e string) string { return strings.Trim(strings.TrimPrefix(strings.TrimSpace(e), "W/"), `"`) }
	for _, h := range strings.Split(header, ",") {
		if norm(h) == norm(etag) {
			return true
		}
	}
	return false
}

func methodNotAllowed(m string) reply {
	return reply{err: newError(http.StatusMethodNotAllowed, "MethodNotAllowed",
		"The requested resource does not support http method '%s'.", m)}
}

func bodies(rs []*resource) []any {
	out := make([]any, 0, len(rs))
	for _, r := range rs {
		out = append(out, withEnvelope(r))
	}
	return out
}

// withEnvelope is a copy of the body with id, name and type filled from
// the stored ID where the body lacks them: a seeded body may carry none,
// and ARM's lists always do.
func withEnvelope(r *resource) map[string]any {
	b := deepCopy(r.Body)
	if b == nil {
		b = map[string]any{}
	}
	if _, ok := b["id"]; !ok {
		b["id"] = r.ID
	}
	p, ok := armid.ParsePath(r.ID)
	if _, has := b["name"]; !has && ok {
		b["name"] = p.Name()
	}
	if _, has := b["type"]; !has && ok {
		b["type"] = p.Type()
	}
	return b
}

// genericView is the shape GET .../resources lists: the envelope without
// properties or etag. GenericResourceExpanded in the Microsoft.Resources
// 2021-04-01 spec (resources.json) names id, name, type, location,
// extendedLocation, tags, plan, kind, managedBy, sku and identity; a
// recorded list (azure-sdk-for-python, azure-mgmt-resource test recording
// test_resources_list, api-version 2025-04-01) also carries systemData
// where the provider keeps it and zones (public IPs, VMs, disks; "zones":
// [] kept as sent), and never etag or properties.
func genericView(b map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range []string{"id", "name", "type", "location", "tags", "kind", "sku", "identity", "managedBy", "plan", "extendedLocation", "systemData", "zones"} {
		if v, ok := b[k]; ok {
			out[k] = deepCopy(v)
		}
	}
	return out
}

func subscriptionBody(sub string) map[string]any {
	return map[string]any{
		"id":             "/subscriptions/" + sub,
		"subscriptionId": sub,
		"tenantId":       emulatorTenant,
		"displayName":    "Emulated subscription",
		"state":          "Enabled",
		// No partner manages it (Subscriptions - Get, 2022-12-01:
		// managedByTenants [] and authorizationSource RoleBased).
		"managedByTenants":    []any{},
		"authorizationSource": "RoleBased",
		"subscriptionPolicies": map[string]any{
			"locationPlacementId": "Public_2014-09-01",
			"quotaId":             "PayAsYouGo_2014-09-01",
			"spendingLimit":       "Off",
		},
	}
}

func groupID(p armid.Path) string {
	return "/subscriptions/" + p.Subscription + "/resourceGroups/" + p.ResourceGroup
}

// subscriptionWide reports whether a collection GET is ARM's list of a type
// across the whole subscription (GET /subscriptions/{s}/providers/{ns}/{type}),
// which returns the type's resources in every resource group, full bodies,
// paged with nextLink (ARM REST "Storage Accounts - List", "Virtual Networks
// - List All", "User Assigned Identities - List By Subscription").
// Microsoft.Authorization's lists keep their own scope rules
// ($filter=atScope(), assignedTo()), so they are left as they are.
func subscriptionWide(p armid.Path) bool {
	if p.Kind != armid.PathCollection || p.Subscription == "" || p.ResourceGroup != "" || len(p.Names) != 0 || len(p.Types) != 1 {
		return false
	}
	if !strings.EqualFold(p.Scope, "/subscriptions/"+p.Subscription) {
		return false
	}
	switch strings.ToLower(p.Provider) {
	case "microsoft.authorization", "microsoft.resources":
		return false
	}
	return true
}
