package emulator

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// Some actions are called on a child the service makes with its parent
// and that is no resource of its own here: a Logic App trigger (declared
// in the workflow's definition), a function app's host, an IoT hub's
// shared access policy. serviceChildAction answers them from the parent;
// ok is false when the path is none of them. Caller holds s.mu.
func (s *Server) serviceChildAction(p armid.Path, action string) (reply, bool) {
	child := serviceChildOf(p)
	if child == "" {
		return reply{}, false
	}
	n := len(p.Types)
	name := p.Names[n-2]
	parentID := p.ParentID()
	parentID = parentID[:strings.LastIndex(parentID[:strings.LastIndex(parentID, "/")], "/")]
	switch {
	case child == "microsoft.logic/workflows/triggers" && action == "listcallbackurl":
		return s.onParent(parentID, func(wf *resource) reply { return s.triggerCallback(wf, name) }), true
	case child == "microsoft.web/sites/host" && action == "listkeys":
		return s.onParent(parentID, func(site *resource) reply { return hostKeys(site, name) }), true
	case child == "microsoft.devices/iothubs/iothubkeys" && action == "listkeys":
		return s.onParent(parentID, func(hub *resource) reply { return iotHubKey(hub, name) }), true
	}
	return reply{}, false
}

// serviceChildren are the child types serviceChildAction answers for.
var serviceChildren = map[string]bool{
	"microsoft.logic/workflows/triggers":   true,
	"microsoft.web/sites/host":             true,
	"microsoft.devices/iothubs/iothubkeys": true,
}

// serviceChildOf is the lower-cased type of the service child an action
// path is called on (its parent's parent is a resource), or "".
func serviceChildOf(p armid.Path) string {
	n := len(p.Types)
	if p.Kind != armid.PathCollection || n < 3 || len(p.Names) != n-1 {
		return ""
	}
	child := strings.ToLower(p.Provider + "/" + strings.Join(p.Types[:n-1], "/"))
	if !serviceChildren[child] {
		return ""
	}
	return child
}

func (s *Server) onParent(id string, f func(*resource) reply) reply {
	res := s.store.get(id)
	if res == nil {
		pp, _ := armid.ParsePath(id)
		return reply{err: s.notFound(pp)}
	}
	return f(res)
}

// triggerCallback answers "Workflow Triggers - List Callback Url" (Logic
// Apps REST 2019-05-01: WorkflowTriggerCallbackUrl) for a trigger the
// workflow's definition declares.
func (s *Server) triggerCallback(wf *resource, trigger string) reply {
	def := asMap(asMap(wf.Body["properties"])["definition"])
	found := ""
	for k := range asMap(def["triggers"]) {
		if strings.EqualFold(k, trigger) {
			found = k
		}
	}
	if found == "" {
		return reply{err: newError(http.StatusNotFound, "WorkflowTriggerNotFound",
			"The workflow '%s' does not contain trigger '%s'.", lastSegment(wf.ID), trigger)}
	}
	loc := LocationKey(str0(wf.Body["location"]))
	base := "https://prod-00." + loc + ".logic.azure.com:443/workflows/" + derivedHex(wf.ID, "logicId", 32) + "/triggers/" + found + "/paths/invoke"
	sp := "/triggers/" + found + "/run"
	sig := derivedHex(wf.ID, "triggerSig/"+strings.ToLower(found), 43)
	return ok(map[string]any{
		"value":    base + "?api-version=2016-10-01&sp=" + url.QueryEscape(sp) + "&sv=1.0&sig=" + sig,
		"method":   "POST",
		"basePath": base,
		"queries":  map[string]any{"api-version": "2016-10-01", "sp": sp, "sv": "1.0", "sig": sig},
	})
}

// hostKeys answers "Web Apps - List Host Keys" (POST
// {site}/host/default/listkeys: HostKeys) for the one host a site has.
func hostKeys(site *resource, host string) reply {
	if !strings.EqualFold(host, "default") {
		return reply{err: newError(http.StatusNotFound, "NotFound", "Cannot find host '%s' of site '%s'.", host, lastSegment(site.ID))}
	}
	return ok(map[string]any{
		"masterKey":    keyOf(site, "host/master", 32),
		"functionKeys": map[string]any{"default": keyOf(site, "host/default", 32)},
		"systemKeys":   map[string]any{},
	})
}

// iotHubKey answers "IoT Hub Resource - Get Keys For Key Name" (POST
// {hub}/IotHubKeys/{keyName}/listkeys: one SharedAccessSignature
// authorization rule), the same keys listKeys of the hub lists.
func iotHubKey(hub *resource, keyName string) reply {
	for _, k := range iotHubKeys(hub) {
		if m := asMap(k); strings.EqualFold(str0(m["keyName"]), keyName) {
			return ok(m)
		}
	}
	return reply{err: newError(http.StatusNotFound, "KeyNameNotFound", "The key name '%s' was not found on IoT hub '%s'.", keyName, lastSegment(hub.ID))}
}
