package apply

import (
	"context"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// A merge child (schema.MergeChildOf: Key Vault's accessPolicies/add) has
// no GET of its own: its PUT merges entries into a list its parent holds.
// It is read through the parent, as the entries of the parent's list that
// the manifest (or, for a delete, the record) names: absent when none of
// them is there. Where the PUT unions (add), an entry counts as holding
// what it asks for when the parent's entry holds at least that, so a
// permission someone else added to the same principal is not drift.

// mergeRead is how one item is read through its parent.
type mergeRead struct {
	child  schema.MergeChild
	parent string
	union  bool
}

func mergeReadOf(it *item) (mergeRead, bool) {
	name := lastName(it.id)
	m, ok := schema.MergeChildOf(it.typ, name)
	if !ok {
		return mergeRead{}, false
	}
	id, err := armid.Parse(it.id)
	if err != nil {
		return mergeRead{}, false
	}
	parent, ok := id.Parent()
	if !ok {
		return mergeRead{}, false
	}
	return mergeRead{child: m, parent: parent.String(), union: m.Union(name)}, true
}

// readID is what a read of the item asks ARM for.
func readID(it *item) string {
	if mr, ok := mergeReadOf(it); ok {
		return mr.parent
	}
	return it.id
}

// getItem reads the item as it is: itself, or through its parent.
func (e *Engine) getItem(ctx context.Context, it *item) (*Response, error) {
	mr, ok := mergeReadOf(it)
	if !ok {
		return e.client().Get(ctx, it.id, it.ver)
	}
	resp, err := e.client().Get(ctx, mr.parent, it.ver)
	if err != nil || resp == nil || resp.Body == nil {
		return resp, err
	}
	body := mr.project(it, resp.Body)
	if body == nil {
		return nil, ErrNotFound
	}
	// The parent's etag is not the child's: a write of the child never
	// carries it as If-Match.
	return &Response{StatusCode: resp.StatusCode, Body: body}, nil
}

// takeParentRead keeps what a read of readID answered for an item read
// through its parent: its entries are found there once its own values are
// resolved (a key such as a principal's objectId may come from another
// resource of the plan), by settleParentRead.
func takeParentRead(it *item, read map[string]any) {
	it.live, it.liveEtag, it.viaParent = nil, "", read
}

// settleParentRead turns the parent's body into the item's live state.
func settleParentRead(it *item) {
	if it.viaParent == nil {
		return
	}
	if mr, ok := mergeReadOf(it); ok {
		it.live = mr.project(it, it.viaParent)
	}
	it.viaParent = nil
}

// sendDelete deletes the item: a DELETE, or for a merge child the PUT of
// its entries to the parent's remover (planUndeletable chose which).
func (e *Engine) sendDelete(ctx context.Context, it *item) error {
	mr, ok := mergeReadOf(it)
	if !ok || it.planned.Method != plan.MethodPut {
		_, err := e.client().Delete(ctx, it.id, it.ver)
		return err
	}
	entries, _ := listAt(it.live, mr.child.Property)
	body := map[string]any{}
	put(body, mr.child.Property, entries)
	// The remover is the item's sibling: .../accessPolicies/remove.
	remover := strings.TrimRight(it.id, "/")
	remover = remover[:strings.LastIndexByte(remover, '/')+1] + mr.child.Remover
	_, err := e.client().Put(ctx, remover, it.ver, body, WriteOptions{})
	return err
}

// project finds the item's entries in the parent's body.
func (mr mergeRead) project(it *item, parent map[string]any) map[string]any {
	var want map[string]any
	switch {
	case it.res != nil:
		want = it.desired()
	case it.record != nil:
		want = it.record.LastApplied
	}
	wanted, _ := listAt(want, mr.child.Property)
	have, _ := listAt(parent, mr.child.Property)
	var found []any
	for _, w := range wanted {
		wm, _ := w.(map[string]any)
		if wm == nil {
			continue
		}
		if h := mr.match(wm, have); h != nil {
			if en := mr.entry(wm, h); !mr.union || holdsAny(en) {
				found = append(found, en)
			}
		}
	}
	if len(found) == 0 {
		return nil
	}
	body := map[string]any{"id": it.id, "name": lastName(it.id), "type": it.typ}
	put(body, mr.child.Property, found)
	return body
}

// match is the parent's entry with the same identifiers as w.
func (mr mergeRead) match(w map[string]any, have []any) map[string]any {
	for _, h := range have {
		hm, _ := h.(map[string]any)
		if hm != nil && mr.sameKeys(w, hm) {
			return hm
		}
	}
	return nil
}

func (mr mergeRead) sameKeys(a, b map[string]any) bool {
	for _, k := range mr.child.Keys {
		x, _ := a[k].(string)
		y, _ := b[k].(string)
		if !strings.EqualFold(x, y) {
			return false
		}
	}
	return true
}

// entry is the parent's entry h as the item's: where the PUT unions, each
// list w names holds the values of w that h holds too, spelled as w does
// (so a complete entry reads back as w exactly); otherwise h as it is.
func (mr mergeRead) entry(w, h map[string]any) map[string]any {
	if !mr.union {
		return h
	}
	return unionView(w, h)
}

// unionView is h seen through w: the members w names, lists narrowed to
// w's values that h holds.
func unionView(w, h map[string]any) map[string]any {
	out := make(map[string]any, len(w))
	for k, wv := range w {
		hv, ok := h[k]
		if !ok {
			continue
		}
		switch wt := wv.(type) {
		case map[string]any:
			if hm, ok := hv.(map[string]any); ok {
				out[k] = unionView(wt, hm)
			}
		case []any:
			if ha, ok := hv.([]any); ok {
				out[k] = heldOf(wt, ha)
			}
		default:
			out[k] = hv
		}
	}
	return out
}

// holdsAny reports whether a union view still holds a value of a list:
// one with every list empty is an entry whose values were all taken away
// (another principal's permissions left on it are not the item's).
func holdsAny(v any) bool {
	switch t := v.(type) {
	case map[string]any:
		for _, x := range t {
			if holdsAny(x) {
				return true
			}
		}
		return false
	case []any:
		return len(t) > 0
	}
	return false
}

// heldOf is the values of want that have holds (strings compared without
// case: Key Vault answers permissions in its own casing), in want's order.
func heldOf(want, have []any) []any {
	out := []any{}
	for _, w := range want {
		for _, h := range have {
			if sameValue(w, h) {
				out = append(out, w)
				break
			}
		}
	}
	return out
}

func sameValue(a, b any) bool {
	if x, ok := a.(string); ok {
		y, ok := b.(string)
		return ok && strings.EqualFold(x, y)
	}
	return sameJSON(a, b)
}

func listAt(body map[string]any, path []string) ([]any, bool) {
	var cur any = body
	for _, k := range path {
		m, _ := cur.(map[string]any)
		if m == nil {
			return nil, false
		}
		cur = m[k]
	}
	l, ok := cur.([]any)
	return l, ok
}

func put(body map[string]any, path []string, v any) {
	m := body
	for _, k := range path[:len(path)-1] {
		next, _ := m[k].(map[string]any)
		if next == nil {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[path[len(path)-1]] = v
}
