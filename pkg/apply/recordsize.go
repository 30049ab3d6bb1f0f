package apply

import (
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// recordTooLarge is the problem of a resource whose record the state could
// not keep (a Kubernetes ConfigMap holds 1 MiB): found while planning,
// before anything is written, instead of after its write to Azure, when the
// write could no longer be recorded.
func (e *Engine) recordTooLarge(it *item) *manifest.Problem {
	if it.res == nil || it.planned.Action == plan.ActionDelete || it.planned.Action == plan.ActionNoOp && it.record != nil {
		return nil
	}
	err := state.CheckFits(e.Store, it.id, it.desired(), it.live)
	if err == nil {
		return nil
	}
	return &manifest.Problem{File: it.res.Origin.File, Index: it.res.Origin.Index, Path: "spec.body",
		Severity: manifest.SeverityError, Message: err.Error()}
}
