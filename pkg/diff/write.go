package diff

import (
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// writer builds request bodies from D, L and S.
type writer struct {
	f *facts
	c comparer
	// drops are live items and keys added outside this tool (collection
	// drift) that the write removes; resets are removed properties written
	// as their default; keeps are removed properties the tool stops
	// managing, which a PUT built from live keeps at live's value (leaving
	// them out would reset them). All keyed by segsKey.
	drops  map[string]bool
	resets map[string]any
	keeps  map[string]bool
	path   bodypath.Path
}

// newWriter prepares a writer for r's changes. The bodies it returns are
// in with ignored paths taken out of D and L, so a PUT keeps live's values
// there and a PATCH never names them.
func newWriter(in *Input, r *Result) *writer {
	if len(r.segs) != len(r.Changes) {
		*r = Compute(*in)
	}
	if skip := parsePatterns(in.IgnoreChanges); len(skip) > 0 {
		in.Desired, in.LastApplied = withoutPaths(in.Desired, skip), withoutPaths(in.LastApplied, skip)
	}
	f := factsFor(in.Schema, in.Plugin)
	w := &writer{f: f, c: comparer{f: f}, drops: map[string]bool{}, resets: map[string]any{}, keeps: map[string]bool{}}
	removed := map[string]Removal{}
	for _, rm := range r.Removed {
		removed[rm.Path] = rm
	}
	for i, ch := range r.Changes {
		switch ch.Cause {
		case plan.CauseDrift:
			if ch.Kind == plan.KindRemove {
				w.drops[segsKey(r.segs[i])] = true
			}
		case plan.CauseDefaultReset:
			if rm, ok := removed[ch.Path]; ok && rm.Default {
				w.resets[segsKey(r.segs[i])] = rm.After
			}
		case plan.CauseRemoval:
			w.keeps[segsKey(r.segs[i])] = true
		}
	}
	return w
}

// under reports whether a removal kept or reset lies below the path key.
func (w *writer) under(key string) bool {
	for k := range w.keeps {
		if strings.HasPrefix(k, key+".") {
			return true
		}
	}
	for k := range w.resets {
		if strings.HasPrefix(k, key+".") {
			return true
		}
	}
	return false
}

func (w *writer) push(s bodypath.Seg) { w.path = append(w.path, s) }
func (w *writer) pop()                { w.path = w.path[:len(w.path)-1] }

// Patch returns the JSON merge patch (RFC 7396) that applies r's changes:
// changed leaves set to their desired value, removals as null. A change
// inside an array sends the whole array, because a merge patch cannot
// address items: it is live's array with owned items updated, removed
// items dropped and items owned by nobody (server-added, or children
// managed as their own resources) kept.
//
// A property removed from the manifest without a known default is not
// written (the service decides); one with a default is written as it.
func Patch(in Input, r Result) map[string]any {
	w := newWriter(&in, &r)
	f := w.f
	patch := map[string]any{}
	done := map[string]bool{}
	for i, ch := range r.Changes {
		p := r.segs[i]
		k := firstArraySeg(p)
		if k < 0 {
			switch {
			case ch.Cause == plan.CauseRemoval:
				continue
			case ch.Cause == plan.CauseDefaultReset:
				if v, ok := w.resets[segsKey(p)]; ok {
					setPath(patch, p, bodypath.Copy(v))
				}
				continue
			case ch.Kind == plan.KindRemove:
				setPath(patch, p, nil)
				continue
			}
			v, _ := get(in.Desired, p)
			setPath(patch, p, bodypath.Copy(v))
			continue
		}
		ap := p[:k]
		key := ap.String()
		if done[key] {
			continue
		}
		done[key] = true
		sp := schema.PathOf(ap, f.isMap)
		lv, lh := get(in.Live, ap)
		dv, dh := get(in.Desired, ap)
		av, _ := get(in.LastApplied, ap)
		if !dh {
			if !w.f.children[sp] {
				setPath(patch, ap, nil)
				continue
			}
			dv = []any{} // releasing a child collection keeps unowned children
		}
		var merged any
		if lh {
			w.path = ap.Clone()
			merged = w.merge(sp, ap.LastMember(), lv, dv, av)
		} else {
			merged = bodypath.Copy(dv)
		}
		setPath(patch, ap, w.strip(sp, merged))
	}
	wholeTags(patch, in.Live)
	if in.Plugin != nil {
		patch = in.Plugin.BeforeWrite(patch)
	}
	return patch
}

// wholeTags rewrites a patch's tags as the complete tag set: ARM replaces
// the tag set on PATCH instead of merging it, so a patch that named only
// the changed tags would drop every other one. The set is live's tags with
// the patch's entries applied (null removes), which keeps tags the user
// does not own (ignored or added by the service at our write).
func wholeTags(patch, live map[string]any) {
	pv, ok := patch["tags"]
	if !ok {
		return
	}
	full := map[string]any{}
	if lt, ok := live["tags"].(map[string]any); ok {
		for k, v := range lt {
			full[k] = v
		}
	}
	pt, _ := pv.(map[string]any)
	if pv == nil {
		full = map[string]any{}
	}
	for k, v := range pt {
		if v == nil {
			delete(full, k)
			continue
		}
		full[k] = v
	}
	patch["tags"] = full
}

// PutBody returns the body of a GET-modify-PUT: live minus readonly fields,
// with the user's desired values applied; removed items and map keys are
// omitted, a property reset to its default carries the default, and a
// property the tool stops managing keeps live's value (ARM's PUT replaces
// the body, so omitting it would reset it, unlike the PATCH, which does not
// name it). Everything the user does not own is preserved. Array items nobody owns are kept, so
// a child managed as its own resource (a subnet, a security rule, a route)
// survives a write of its parent.
func PutBody(in Input, r Result) map[string]any {
	w := newWriter(&in, &r)
	var body map[string]any
	if in.Live == nil {
		body, _ = w.strip("", bodypath.CopyMap(in.Desired)).(map[string]any)
	} else {
		live, _ := w.strip("", bodypath.CopyMap(in.Live)).(map[string]any)
		body, _ = w.merge("", "", live, in.Desired, in.LastApplied).(map[string]any)
	}
	for k := range envelope {
		delete(body, k)
	}
	if in.Plugin != nil {
		body = in.Plugin.BeforeWrite(body)
	}
	return body
}

func firstArraySeg(p bodypath.Path) int {
	for i, s := range p {
		if s.Kind != bodypath.Member {
			return i
		}
	}
	return -1
}

func setPath(dst map[string]any, p bodypath.Path, v any) {
	cur := dst
	for i, s := range p {
		if i == len(p)-1 {
			cur[s.Name] = v
			return
		}
		next, ok := cur[s.Name].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[s.Name] = next
		}
		cur = next
	}
}

// merge applies desired d (and removals from last-applied l) onto live.
func (w *writer) merge(sp schema.Path, key string, live, d, l any) any {
	switch dv := d.(type) {
	case map[string]any:
		lm, ok := live.(map[string]any)
		if !ok {
			return bodypath.Copy(d)
		}
		am, _ := l.(map[string]any)
		out := make(map[string]any, len(lm)+len(dv))
		for k, v := range lm {
			out[k] = v
		}
		isMap := w.f.isMap(sp)
		for k, v := range dv {
			if sp == "" && envelope[k] {
				continue
			}
			csp := sp.Child(k, isMap)
			if w.f.isReadOnly(csp) {
				continue
			}
			var av any
			if am != nil {
				av = am[k]
			}
			w.push(bodypath.Field(k))
			if _, ok := out[k]; !ok && (!isMap || sp == "tags" || looksARMID(k)) {
				// live spells the member in other case: one member, the
				// manifest's spelling (ARM binds names case-insensitively)
				for lk := range out {
					if strings.EqualFold(lk, k) {
						out[k] = out[lk]
						delete(out, lk)
						break
					}
				}
			}
			out[k] = w.merge(csp, k, out[k], v, av)
			w.pop()
		}
		for k := range am {
			if _, ok := dv[k]; ok {
				continue
			}
			csp := sp.Child(k, isMap)
			w.push(bodypath.Field(k))
			if w.f.children[csp] {
				// keep the children nobody's manifest lists any more
				out[k] = w.merge(csp, k, out[k], []any{}, am[k])
			} else if def, ok := w.resets[segsKey(w.path)]; ok {
				out[k] = bodypath.Copy(def)
			} else if w.keeps[segsKey(w.path)] {
				// no longer managed: live's value stays, as a PATCH that
				// does not name it leaves it
			} else if _, isObj := out[k].(map[string]any); isObj && w.under(segsKey(w.path)) {
				// members inside are kept or reset one by one
				out[k] = w.merge(csp, k, out[k], map[string]any{}, am[k])
			} else {
				delete(out, k)
			}
			w.pop()
		}
		if len(w.drops) > 0 {
			for k := range out {
				w.push(bodypath.Field(k))
				if w.drops[segsKey(w.path)] {
					delete(out, k)
				}
				w.pop()
			}
		}
		return out
	case []any:
		la, ok := live.([]any)
		if !ok {
			return bodypath.Copy(d)
		}
		aa, _ := l.([]any)
		kind, ids := w.c.classify(sp, dv, la)
		if kind != arrayKeyed {
			if len(dv) == 0 && (w.f.children[sp] || len(aa) == 0) {
				// [] owns no items: keep what lives there (children
				// managed elsewhere, server-added items).
				if p := w.f.prop(sp.Item()); (p != nil && p.Type == "object") || w.f.children[sp] || allMaps(la) {
					return la
				}
			}
			return bodypath.Copy(d)
		}
		isp := sp.Item()
		out := make([]any, 0, len(la)+len(dv))
		used := make([]bool, len(dv))
		// Index D's and L's items once: large collections stay linear.
		dIdx, aIdx := keyIndex(dv, ids), keyIndex(aa, ids)
		for _, it := range la {
			m, ok := it.(map[string]any)
			if !ok {
				out = append(out, it)
				continue
			}
			if _, ok := itemKey(m, ids); !ok {
				out = append(out, m) // no identifier: nobody's item, kept
				continue
			}
			s := keyedSeg(m, ids)
			if j := dIdx.find(m, ids); j >= 0 {
				used[j] = true
				var av any
				if k := aIdx.find(m, ids); k >= 0 {
					av = aa[k]
				}
				w.push(keyedSeg(dv[j].(map[string]any), ids))
				out = append(out, w.merge(isp, key, m, dv[j], av))
				w.pop()
				continue
			}
			if aIdx.find(m, ids) >= 0 {
				continue // in L, not in D: the user removed it
			}
			w.push(s)
			drop := w.drops[segsKey(w.path)]
			w.pop()
			if drop {
				continue // added outside this tool: collection drift
			}
			out = append(out, m)
		}
		for j, it := range dv {
			if !used[j] {
				out = append(out, bodypath.Copy(it))
			}
		}
		return out
	default:
		return d
	}
}

func allMaps(a []any) bool {
	for _, v := range a {
		if _, ok := v.(map[string]any); !ok {
			return false
		}
	}
	return len(a) > 0
}

// strip removes readonly paths (schema, plugin, and provisioningState which
// every provider computes) from a body about to be written.
func (w *writer) strip(sp schema.Path, v any) any {
	switch t := v.(type) {
	case map[string]any:
		isMap := w.f.isMap(sp)
		for k, cv := range t {
			csp := sp.Child(k, isMap)
			if w.f.isReadOnly(csp) || (!isMap && strings.EqualFold(k, "provisioningState")) {
				delete(t, k)
				continue
			}
			t[k] = w.strip(csp, cv)
		}
		return t
	case []any:
		for i := range t {
			t[i] = w.strip(sp.Item(), t[i])
		}
		return t
	}
	return v
}

// WriteMethod says how apply should write r's changes: PATCH when the type
// has a PATCH whose model accepts every changed path, PUT otherwise, none
// when nothing is written.
func WriteMethod(in Input, r Result) plan.Method {
	switch r.Action {
	case ActionNoOp:
		return plan.MethodNone
	case ActionCreate, ActionReplace:
		return plan.MethodPut
	}
	f := factsFor(in.Schema, in.Plugin)
	if in.Schema == nil || !in.Schema.PatchSupported || (f.r != nil && f.r.NoPatch) {
		return plan.MethodPut
	}
	for i, ch := range r.Changes {
		var sp schema.Path
		if i < len(r.segs) {
			sp = schema.PathOf(r.segs[i], f.isMap)
		} else {
			sp = schema.Path(ch.Path)
		}
		if f.r != nil && f.r.TagsOnlyPatch && !sp.Within("tags") {
			return plan.MethodPut
		}
		if len(in.Schema.PatchPaths) > 0 && !patchAccepts(in.Schema.PatchPaths, sp) {
			return plan.MethodPut
		}
	}
	return plan.MethodPatch
}

func patchAccepts(paths []string, sp schema.Path) bool {
	for _, p := range paths {
		if sp.Within(schema.Path(p)) {
			return true
		}
	}
	return false
}

// itemIndex maps identifier keys (normKey) to the first item holding them.
type itemIndex map[string]int

func keyIndex(a []any, ids []string) itemIndex {
	idx := make(itemIndex, len(a))
	for i, it := range a {
		if m, ok := it.(map[string]any); ok {
			if k, ok := liveKey(m, ids); ok {
				if _, dup := idx[k]; !dup {
					idx[k] = i
				}
			}
		}
	}
	return idx
}

func (x itemIndex) find(m map[string]any, ids []string) int {
	k, ok := liveKey(m, ids)
	if !ok {
		return -1
	}
	if i, ok := x[k]; ok {
		return i
	}
	return -1
}
