package emulator

import (
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// checkParentLock refuses a write under a Microsoft.Network resource while
// another write on the same parent tree is still in flight, as the network
// RP does: one operation per virtual network, NSG, route table, … at a
// time. Caller holds s.mu.
func (s *Server) checkParentLock(p armid.Path) *armError {
	if s.opts.NoParentLocks || !strings.EqualFold(p.Provider, "Microsoft.Network") || len(p.Names) == 0 {
		return nil
	}
	root := armid.Key(p.Scope + "/providers/" + p.Provider + "/" + p.Types[0] + "/" + p.Names[0])
	self := armid.Key(p.Raw)
	now := s.now()
	for _, op := range s.pending {
		if !now.Before(op.End) {
			continue
		}
		k := armid.Key(op.ResourceID)
		if k == self || (k != root && !strings.HasPrefix(k, root+"/")) {
			continue
		}
		if r := s.store.get(op.ResourceID); r == nil || r.LastOp != op.ID {
			continue
		}
		return newError(http.StatusConflict, "AnotherOperationInProgress",
			"Another operation on this or dependent resource is in progress. To retrieve status of the operation use uri: %s. Retry the request after it completes.",
			op.statusURL)
	}
	return nil
}

// Management locks (Microsoft.Authorization/locks) are enforced by ARM's
// front door before a request reaches the resource provider:
//   - CanNotDelete refuses DELETE of the locked scope, of anything under it,
//     and of any parent (a resource group) whose deletion would take a
//     locked resource with it;
//   - ReadOnly refuses that and also PUT, PATCH and every POST action on
//     the scope or under it — listKeys included, since it is a POST.
//
// Both answer 409 ScopeLocked "The scope '…' cannot perform write|delete
// operation because following scope(s) are locked: '…'. Please remove the
// lock and try again." Lock operations themselves are exempt (a lock can
// always be removed). Source: Microsoft Learn, "Lock your Azure resources
// to protect your infrastructure" (azure-resource-manager/management/
// lock-resources: inheritance, the POST/listKeys example, resource-group
// deletion); the message and code as Azure answered them in public issue
// and troubleshooting transcripts (storage listKeys under ReadOnly reports
// "cannot perform write operation").

const (
	lockCanNotDelete = "cannotdelete"
	lockReadOnly     = "readonly"
)

// lockOp is what a request would do to its scope, as ARM names it in the
// ScopeLocked message.
type lockOp string

const (
	lockOpWrite  lockOp = "write"
	lockOpDelete lockOp = "delete"
	lockOpAction lockOp = "action" // a POST: refused by ReadOnly, reported as a write
)

// checkLocks refuses op on target when a lock forbids it. Caller holds s.mu.
func (s *Server) checkLocks(target string, op lockOp) *armError {
	if target == "" {
		return nil
	}
	if tp, ok := armid.ParsePath(target); ok && tp.Kind == armid.PathResource && strings.EqualFold(tp.Type(), "Microsoft.Authorization/locks") {
		return nil
	}
	var locked []string
	for _, res := range s.store.ofType("microsoft.authorization/locks") {
		lp, ok := armid.ParsePath(res.ID)
		if !ok || lp.Kind != armid.PathResource {
			continue
		}
		level := strings.ToLower(strAt(res.Body, "properties", "level"))
		if level != lockCanNotDelete && level != lockReadOnly {
			continue
		}
		if op != lockOpDelete && level != lockReadOnly {
			continue
		}
		scope := lp.Scope
		covers := armid.Equal(scope, target) || armid.Contains(scope, target)
		if op == lockOpDelete && armid.Contains(target, scope) {
			covers = true // deleting a parent deletes the locked resource
		}
		if covers && !slices.ContainsFunc(locked, func(l string) bool { return armid.Equal(l, scope) }) {
			locked = append(locked, scope)
		}
	}
	if len(locked) == 0 {
		return nil
	}
	sort.Strings(locked)
	verb := "write"
	if op == lockOpDelete {
		verb = "delete"
	}
	return newError(http.StatusConflict, "ScopeLocked",
		"The scope '%s' cannot perform %s operation because following scope(s) are locked: '%s'. Please remove the lock and try again.",
		target, verb, strings.Join(locked, "','"))
}

// strAt reads a string at keys under v ("" when absent).
func strAt(v any, keys ...string) string {
	for _, k := range keys {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	s, _ := v.(string)
	return s
}

// lockList answers GET of a Microsoft.Authorization/locks collection at a
// scope as ARM does: every lock at the scope or below it, and for a scope
// inside a resource group also the locks of the scopes above it (ARM REST
// "Management Locks - List At Subscription Level": all the locks of the
// subscription; "List At Resource Group Level": the group's and its
// resources'; "List At Resource Level": "the management locks associated
// with the specified resource, its resource group, and any level below
// the resource" — the SDK's listForResource). ok is false for any other
// request. Caller holds s.mu.
func (s *Server) lockList(r *http.Request, p armid.Path) (reply, bool) {
	if r.Method != http.MethodGet || p.Kind != armid.PathCollection || !strings.EqualFold(p.Type(), "Microsoft.Authorization/locks") {
		return reply{}, false
	}
	scope := p.Scope
	below := func(other string) bool { return armid.Equal(other, scope) || armid.Contains(scope, other) }
	above := func(other string) bool {
		tp, ok := armid.ParsePath(scope)
		return ok && tp.ResourceGroup != "" && tp.Kind != armid.PathResourceGroup && armid.Contains(other, scope)
	}
	var items []any
	for _, res := range s.store.ofType("microsoft.authorization/locks") {
		lp, ok := armid.ParsePath(res.ID)
		if !ok || lp.Kind != armid.PathResource || !(below(lp.Scope) || above(lp.Scope)) {
			continue
		}
		items = append(items, withEnvelope(res))
	}
	sort.Slice(items, func(i, j int) bool {
		return armid.Key(asMap(items[i])["id"].(string)) < armid.Key(asMap(items[j])["id"].(string))
	})
	return s.page(r, items), true
}
