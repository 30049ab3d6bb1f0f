package emulator

import (
	"net/http"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// checkParentLock refuses a write under a Microsoft.Network resource while
// another write on the same parent tree is still in flight, as the network
// RP does: one operation per virtual network, NSG, route table, … at a
// time. Caller holds s.mu.
func (s *Server) checkParentLock(p armPath) *armError {
	if s.opts.NoParentLocks || !strings.EqualFold(p.Namespace, "Microsoft.Network") || len(p.Names) == 0 {
		return nil
	}
	root := armid.Key(p.Scope + "/providers/" + p.Namespace + "/" + p.Types[0] + "/" + p.Names[0])
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
