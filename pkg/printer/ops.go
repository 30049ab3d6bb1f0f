package printer

import (
	"bytes"
	"encoding/json"

	"github.com/wI2L/jsondiff"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// operations computes the RFC 6902 patch of a resource's changes, for tools
// that consume patches. The before and after documents are rebuilt from the
// changed paths only, so the patch touches exactly what the plan shows. It
// returns nil when a path addresses an array item by key ([default]): a
// JSON pointer cannot name it without the live array's order. Changes the
// write leaves out (a property no longer managed) have no operation.
func operations(r plan.Resource) []any {
	before, after := map[string]any{}, map[string]any{}
	for _, c := range r.Changes {
		// A property no longer managed is not written: Azure keeps its
		// value, so the patch must not remove it.
		if c.Path == "" || c.Cause == plan.CauseRemoval {
			continue
		}
		segs, ok := pointerSegments(c.Path)
		if !ok {
			return nil
		}
		// Parents exist on both sides, so an added member is one "add"
		// of that member, not a replacement of its parent.
		last := segs[len(segs)-1]
		b, a := parentObject(before, segs), parentObject(after, segs)
		if c.Kind != plan.KindAdd {
			b[last] = c.Before
		}
		if c.Kind != plan.KindRemove {
			a[last] = c.After
		}
	}
	if len(before) == 0 && len(after) == 0 {
		return nil
	}
	src, err1 := json.Marshal(before)
	dst, err2 := json.Marshal(after)
	if err1 != nil || err2 != nil {
		return nil
	}
	patch, err := jsondiff.CompareJSON(src, dst, jsondiff.UnmarshalFunc(unmarshalNumbers))
	if err != nil {
		return nil
	}
	ops := make([]any, 0, len(patch))
	for _, op := range patch {
		ops = append(ops, op)
	}
	return ops
}

// unmarshalNumbers keeps numbers exact (json.Number), as everywhere else.
func unmarshalNumbers(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}

// pointerSegments parses a plan path into object members. Any item
// ([0], [default], ["a.b"]) is refused, since the rebuilt documents hold
// no arrays to index into.
func pointerSegments(path string) ([]string, bool) {
	p, err := bodypath.Parse(path)
	if err != nil {
		return nil, false
	}
	segs := make([]string, len(p))
	for i, s := range p {
		if s.Kind != bodypath.Member {
			return nil, false
		}
		segs[i] = s.Name
	}
	return segs, len(segs) > 0
}

// parentObject returns the object in doc that holds the member segs
// addresses, creating the objects on the way.
func parentObject(doc map[string]any, segs []string) map[string]any {
	for _, s := range segs[:len(segs)-1] {
		next, ok := doc[s].(map[string]any)
		if !ok {
			next = map[string]any{}
			doc[s] = next
		}
		doc = next
	}
	return doc
}
