package apply

import (
	"context"

	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// listRecords lists the state's records, without their bodies when the
// store can load those later: a plan then loads them a chunk at a time.
func (e *Engine) listRecords(ctx context.Context) ([]*state.Record, *recordBodies, error) {
	if bl, ok := e.Store.(state.BodyLoader); ok {
		recs, load, err := bl.ListHeads(ctx)
		return recs, &recordBodies{from: load, loaded: map[*state.Record]bool{}}, err
	}
	recs, err := e.Store.List(ctx)
	return recs, &recordBodies{}, err
}

// recordBodies loads, once each, the bodies of records listed without them.
type recordBodies struct {
	from   state.LoadBodies // nil: the records came with their bodies
	loaded map[*state.Record]bool
}

func (b *recordBodies) load(ctx context.Context, recs ...*state.Record) error {
	if b == nil || b.from == nil {
		return nil
	}
	var todo []*state.Record
	for _, r := range recs {
		if r != nil && !b.loaded[r] {
			b.loaded[r] = true
			todo = append(todo, r)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	return b.from(ctx, todo)
}
