package specgen

import (
	"maps"
	"slices"
	"sort"
	"strings"
)

// Limits that keep a pathological model (deeply polymorphic pipelines,
// self-similar JSON-schema-like models) from dominating the index. What
// lies beyond them is simply not described: callers fall back to
// heuristics, as for any path the spec does not mention.
const (
	maxDepth  = 24
	maxPaths  = 4000
	maxNested = 2
)

// members is an object model with allOf and discriminated sub-types merged.
type members struct {
	// resource: the model is an ARM resource itself (it extends a
	// *Resource base or carries x-ms-azure-resource).
	resource bool
	typ      string
	// props holds, per member name, every model that declares it: the
	// sub-types of a discriminated base often share a member name
	// ("typeProperties") with a different model each, and the wire body
	// may carry any of them, so their members are united.
	props map[string][]node
	addl  *node
	items []node
}

// walker flattens one request or response model into property paths.
type walker struct {
	d *docs
	// scope lists the files of the api-version folder being processed;
	// discriminated sub-types are looked up there and in the base's file,
	// so the result does not depend on what happened to be parsed before.
	scope []string
	out   map[string]*fact
}

func (d *docs) flatten(root node, scope []string) map[string]*fact {
	w := &walker{d: d, scope: scope, out: map[string]*fact{}}
	w.run(root)
	return w.out
}

func join(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// pending is a path waiting to be described.
type pending struct {
	alts      []node // the models that describe this path (see members.props)
	path      string
	depth     int
	inh       inherited
	ancestors []string // definition keys above this path, for recursion
	nested    int      // embedded resource models above and at this path
}

// run walks the model breadth-first, so that when a model is too large
// for maxPaths (network resources embed each other many levels deep) it is
// the deepest paths that go undescribed, never a top-level one. A node's
// members are described all together or not at all: a partly described
// object would make the validator call real members unknown.
func (w *walker) run(root node) {
	queue := []pending{{alts: []node{root}}}
	reserved := 0
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		var alts []node
		keys := map[string]bool{}
		for _, a := range it.alts {
			n, err := w.d.deref(a)
			if err != nil || (n.key != "" && keys[n.key]) {
				continue
			}
			if n.key != "" {
				keys[n.key] = true
			}
			alts = append(alts, n)
		}
		if len(alts) == 0 {
			continue
		}
		n := alts[0]
		mem := w.collect(alts)
		inh := it.inh
		var f *fact
		if it.path != "" {
			if len(alts) == 1 {
				f = factOf(n.m)
				if f.typ == "" {
					f.typ = mem.typ
				}
			} else {
				f = w.altFacts(alts)
			}
			f.ro = f.ro || inh.ro
			f.createOnly = f.createOnly || (inh.co && !f.hasMut)
			w.out[it.path] = f
			inh = inherited{ro: f.ro, co: f.createOnly}
		}
		if it.depth >= maxDepth {
			continue
		}
		// Resources embed other resources (a subnet's network security
		// group, its rules, their subnets...): the network specs reach
		// 250-character paths that nobody writes. Child resources listed
		// inline (subnets of a vnet) and what they reference are kept;
		// a third level is left undescribed, as free-form.
		nested := it.nested
		if mem.resource && it.path != "" {
			nested++
			if nested > maxNested {
				continue
			}
		}
		// Recursive models (an error with inner errors, a JSON-schema-like
		// definition) are described down to their first repetition only.
		ancestors := it.ancestors
		recursive := false
		for _, a := range alts {
			if a.key == "" {
				continue
			}
			if contains(ancestors, a.key) {
				recursive = true
				break
			}
			ancestors = append(ancestors[:len(ancestors):len(ancestors)], a.key)
		}
		if recursive {
			continue
		}
		names := slices.Sorted(maps.Keys(mem.props))
		count := len(names)
		if mem.addl != nil {
			count++
		}
		if len(mem.items) > 0 {
			count++
		}
		if reserved+count > maxPaths {
			continue
		}
		reserved += count
		next := func(c []node, p string) {
			queue = append(queue, pending{alts: c, path: p, depth: it.depth + 1, inh: inh, ancestors: ancestors, nested: nested})
		}
		for _, k := range names {
			next(mem.props[k], join(it.path, k))
		}
		if mem.addl != nil {
			if mem.addl.m != nil {
				next([]node{*mem.addl}, it.path+".*")
			} else if it.path != "" {
				w.out[it.path+".*"] = &fact{ro: inh.ro, createOnly: inh.co}
			}
		}
		if len(mem.items) > 0 {
			next(mem.items, it.path+"[]")
		}
		if f != nil && len(names) > 0 {
			f.children = true
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// collect merges a model's own members with those of its allOf parents
// and, when it is a discriminator base, those of every sub-type: the wire
// body may be any of them.
func (w *walker) collect(alts []node) members {
	mem := members{props: map[string][]node{}}
	seen := map[string]bool{}
	for _, n := range alts {
		w.collectInto(&mem, n, seen)
		if _, ok := n.m["discriminator"]; ok && n.key != "" {
			for _, child := range w.subTypes(n) {
				c, err := w.d.byKey(child)
				if err != nil {
					continue
				}
				w.collectInto(&mem, c, seen)
			}
		}
	}
	if mem.typ == "" {
		switch {
		case len(mem.props) > 0 || mem.addl != nil:
			mem.typ = "object"
		case len(mem.items) > 0:
			mem.typ = "array"
		}
	}
	return mem
}

func (w *walker) collectInto(mem *members, n node, seen map[string]bool) {
	n, err := w.d.deref(n)
	if err != nil {
		return
	}
	if n.key != "" {
		if seen[n.key] {
			return
		}
		seen[n.key] = true
	}
	if r, _ := n.m["x-ms-azure-resource"].(bool); r || strings.HasSuffix(n.key, "Resource") {
		mem.resource = true
	}
	if t, ok := n.m["type"].(string); ok && mem.typ == "" {
		mem.typ = t
	}
	if props, ok := n.m["properties"].(map[string]any); ok {
		for k, v := range props {
			vm, ok := v.(map[string]any)
			if !ok {
				continue
			}
			mem.props[k] = append(mem.props[k], node{m: vm, file: n.file})
		}
	}
	switch a := n.m["additionalProperties"].(type) {
	case map[string]any:
		if mem.addl == nil || mem.addl.m == nil {
			mem.addl = &node{m: a, file: n.file}
		}
	case bool:
		if a && mem.addl == nil {
			mem.addl = &node{}
		}
	}
	if it, ok := n.m["items"].(map[string]any); ok {
		mem.items = append(mem.items, node{m: it, file: n.file})
	}
	if all, ok := n.m["allOf"].([]any); ok {
		for _, a := range all {
			if am, ok := a.(map[string]any); ok {
				w.collectInto(mem, node{m: am, file: n.file}, seen)
			}
		}
	}
}

// subTypes lists, transitively and sorted, the definitions that extend
// base through allOf, looked up in base's own file and the scope files.
func (w *walker) subTypes(base node) []string {
	files := append([]string{base.file}, w.scope...)
	found := map[string]bool{base.key: true}
	queue := []string{base.key}
	var out []string
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		for _, f := range files {
			for _, c := range w.d.childrenOf(f, k) {
				if !found[c] {
					found[c] = true
					out = append(out, c)
					queue = append(queue, c)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}
