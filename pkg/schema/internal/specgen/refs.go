package specgen

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"sort"
	"strings"
)

// node is a JSON schema object together with the file it lives in, which
// is what relative $refs inside it resolve against.
type node struct {
	m    map[string]any
	file string
	key  string // canonical "file#/pointer" when the node is a named definition; "" otherwise
}

// docs parses spec files on demand and keeps them, since $refs into the
// same few files (common-types, a provider's shared models) repeat.
type docs struct {
	src    Source
	parsed map[string]map[string]any
	bad    map[string]error
	// children maps a definition key to the keys of the definitions
	// whose allOf names it, per file that declares them.
	children map[string]map[string][]string
	// fallbacks counts $refs into missing files answered from common-types.
	fallbacks int
}

func newDocs(src Source) *docs {
	return &docs{src: src, parsed: map[string]map[string]any{}, bad: map[string]error{}, children: map[string]map[string][]string{}}
}

func (d *docs) doc(file string) (map[string]any, error) {
	if m, ok := d.parsed[file]; ok {
		return m, nil
	}
	if err, ok := d.bad[file]; ok {
		return nil, err
	}
	b, err := d.src.Read(file)
	if err == nil {
		var m map[string]any
		if err = json.Unmarshal(b, &m); err == nil {
			d.parsed[file] = m
			return m, nil
		}
	}
	err = fmt.Errorf("%s: %w", file, err)
	d.bad[file] = err
	return nil, err
}

// forget drops parsed files, except the shared common-types that every
// service refers to.
func (d *docs) forget() {
	for f := range d.parsed {
		if !strings.HasPrefix(f, "specification/common-types/") {
			delete(d.parsed, f)
			delete(d.children, f)
		}
	}
	clear(d.bad)
}

// resolveRef finds the target of ref written inside file.
func (d *docs) resolveRef(file, ref string) (node, error) {
	target, frag, _ := strings.Cut(ref, "#")
	tf := file
	if target != "" {
		if u, err := url.Parse(target); err == nil && u.Scheme != "" {
			return node{}, fmt.Errorf("remote $ref %q is not supported", ref)
		}
		tf = path.Clean(path.Join(path.Dir(file), target))
	}
	doc, err := d.doc(tf)
	if err != nil {
		if n, ok := d.fallback(frag); ok {
			return n, nil
		}
		return node{}, err
	}
	var cur any = doc
	for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		if tok == "" {
			continue
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		if t, err := url.PathUnescape(tok); err == nil {
			tok = t
		}
		m, ok := cur.(map[string]any)
		if !ok {
			return node{}, fmt.Errorf("$ref %q in %s: not found", ref, file)
		}
		cur, ok = m[tok]
		if !ok {
			return node{}, fmt.Errorf("$ref %q in %s: not found", ref, file)
		}
	}
	m, ok := cur.(map[string]any)
	if !ok {
		return node{}, fmt.Errorf("$ref %q in %s: not an object", ref, file)
	}
	return node{m: m, file: tf, key: tf + "#" + frag}, nil
}

// commonFiles lists the shared ARM definitions, newest first. A function,
// not a package variable, so importing the generator costs nothing.
func commonFiles() []string {
	var out []string
	for v := 6; v >= 1; v-- {
		for _, f := range []string{"types.json", "managedidentity.json", "privatelinks.json", "customermanagedkeys.json"} {
			out = append(out, fmt.Sprintf("specification/common-types/resource-management/v%d/%s", v, f))
		}
	}
	return out
}

// fallback stands in for a definition whose file is missing. Service
// folders keep their own copies of the ARM basics (compute's
// common-types/v1/common.json, sql's common/v1/types.json, ...), which a
// stable-only archive leaves out; the same definitions exist in the
// shared common-types, so a VM keeps its location and tags. A service's
// own "Resource" is location-bearing, i.e. common-types' TrackedResource.
func (d *docs) fallback(frag string) (node, bool) {
	name, ok := strings.CutPrefix(frag, "/definitions/")
	if !ok || strings.Contains(name, "/") {
		return node{}, false
	}
	names := []string{name}
	if name == "Resource" {
		names = []string{"TrackedResource", "Resource"}
	}
	for _, n := range names {
		for _, f := range commonFiles() {
			doc, err := d.doc(f)
			if err != nil {
				continue
			}
			defs, _ := doc["definitions"].(map[string]any)
			if m, ok := defs[n].(map[string]any); ok {
				d.fallbacks++
				return node{m: m, file: f, key: f + "#/definitions/" + n}, true
			}
		}
	}
	return node{}, false
}

// deref follows $ref chains. Keywords written beside a $ref (readOnly,
// x-ms-mutability, description, ...) override the target's, which is how
// specs mark a shared model readonly at one use site.
func (d *docs) deref(n node) (node, error) {
	for i := 0; i < 32; i++ {
		ref, ok := n.m["$ref"].(string)
		if !ok {
			return n, nil
		}
		t, err := d.resolveRef(n.file, ref)
		if err != nil {
			return n, err
		}
		if len(n.m) > 1 {
			merged := make(map[string]any, len(t.m)+len(n.m))
			for k, v := range t.m {
				merged[k] = v
			}
			for k, v := range n.m {
				if k != "$ref" {
					merged[k] = v
				}
			}
			t.m = merged
		}
		n = t
	}
	return n, fmt.Errorf("$ref chain too long in %s", n.file)
}

// childrenOf lists, sorted, the definitions in file that name key in
// their allOf: the discriminated sub-types of key declared there.
func (d *docs) childrenOf(file, key string) []string {
	idx, ok := d.children[file]
	if !ok {
		idx = map[string][]string{}
		d.children[file] = idx
		doc, err := d.doc(file)
		if err == nil {
			defs, _ := doc["definitions"].(map[string]any)
			for name, v := range defs {
				m, _ := v.(map[string]any)
				all, _ := m["allOf"].([]any)
				for _, a := range all {
					am, _ := a.(map[string]any)
					ref, _ := am["$ref"].(string)
					if ref == "" {
						continue
					}
					t, err := d.resolveRef(file, ref)
					if err != nil {
						continue
					}
					idx[t.key] = append(idx[t.key], file+"#/definitions/"+name)
				}
			}
			for k := range idx {
				sort.Strings(idx[k])
			}
		}
	}
	return idx[key]
}

// byKey returns the definition a canonical key names.
func (d *docs) byKey(key string) (node, error) {
	file, frag, _ := strings.Cut(key, "#")
	return d.resolveRef(file, "#"+frag)
}
