package specgen

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/schema/internal/format"
)

// Bicep type index (Azure/bicep-types-az, generated/<rp>/<ns>/<version>/types.json):
// one JSON array of type nodes per file, nodes refer to each other with
// {"$ref": "#/N"}. It knows every api-version, preview included, with
// required, write-only and sensitive markers, descriptions and limits.

// Property flags of the Bicep format.
const (
	bicepRequired  = 1
	bicepReadOnly  = 2
	bicepWriteOnly = 4
)

type bicepRef struct {
	Ref string `json:"$ref"`
}

func (r *bicepRef) index() (int, bool) {
	if r == nil || !strings.HasPrefix(r.Ref, "#/") {
		return 0, false
	}
	n := 0
	for _, c := range r.Ref[2:] {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, len(r.Ref) > 2
}

type bicepProp struct {
	Type        bicepRef `json:"type"`
	Flags       int      `json:"flags"`
	Description string   `json:"description"`
}

type bicepNode struct {
	Kind                 string               `json:"$type"`
	Name                 string               `json:"name"`
	Body                 *bicepRef            `json:"body"`
	Properties           map[string]bicepProp `json:"properties"`
	AdditionalProperties *bicepRef            `json:"additionalProperties"`
	Sensitive            bool                 `json:"sensitive"`
	Discriminator        string               `json:"discriminator"`
	BaseProperties       map[string]bicepProp `json:"baseProperties"`
	Elements             json.RawMessage      `json:"elements"`
	ItemType             *bicepRef            `json:"itemType"`
	Value                any                  `json:"value"`
	MinLength            *json.Number         `json:"minLength"`
	MaxLength            *json.Number         `json:"maxLength"`
	MinValue             *json.Number         `json:"minValue"`
	MaxValue             *json.Number         `json:"maxValue"`
	Pattern              string               `json:"pattern"`
}

// ReadBicep reads a bicep-types-az tree (a directory holding generated/,
// or a .tar.gz of one) into versions keyed by lower(type), then
// api-version.
func ReadBicep(p string) (map[string]map[string]*version, error) {
	out := map[string]map[string]*version{}
	add := func(name string, data []byte) error {
		if !strings.HasSuffix(name, "/types.json") || !strings.Contains(name, "generated/") {
			return nil
		}
		if err := readBicepFile(data, out); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	}
	st, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("bicep types: %w", err)
	}
	if st.IsDir() {
		err = filepath.WalkDir(p, func(f string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			data, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			return add(filepath.ToSlash(f), data)
		})
	} else {
		err = readTarGz(p, add)
	}
	if err != nil {
		return nil, fmt.Errorf("bicep types: %w", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("bicep types %s: no generated/*/types.json found; point at a bicep-types-az checkout or its archive", p)
	}
	return out, nil
}

func readTarGz(p string, fn func(name string, data []byte) error) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return err
		}
		if err := fn(h.Name, data); err != nil {
			return err
		}
	}
}

func readBicepFile(data []byte, out map[string]map[string]*version) error {
	var nodes []bicepNode
	if err := json.Unmarshal(data, &nodes); err != nil {
		return err
	}
	for _, n := range nodes {
		if n.Kind != "ResourceType" || n.Body == nil {
			continue
		}
		typ, ver, ok := strings.Cut(n.Name, "@")
		if !ok || typ == "" || ver == "" {
			continue
		}
		w := &bicepWalker{nodes: nodes, out: map[string]*bicepFact{}, elems: map[string]int{}}
		w.run(*n.Body)
		v := w.version(typ)
		lt := strings.ToLower(typ)
		vs := out[lt]
		if vs == nil {
			vs = map[string]*version{}
			out[lt] = vs
		}
		if prev, dup := vs[ver]; dup {
			prev.absorb(v)
			continue
		}
		vs[ver] = v
	}
	return nil
}

// bicepFact is one path while walking; visits from several variants of a
// polymorphic body are merged into it.
type bicepFact struct {
	prop  format.Prop
	desc  string
	enum  []string // in the spec's order
	open  bool     // a union admits any string
	base  bool     // reached outside any variant: every variant has it
	vars  map[string]bool
	disc  string // the polymorphic object the variants refer to
	count int
}

type bicepItem struct {
	ref      bicepRef
	path     string
	flags    int
	desc     string
	depth    int
	variant  string // value of the nearest discriminator above, "" outside
	readOnly bool   // an ancestor is readonly: so is everything in it
	discAt   string // the polymorphic object variant refers to
	ancestry []int  // node indexes above, to stop at recursion
}

type bicepWalker struct {
	nodes []bicepNode
	out   map[string]*bicepFact
	// elems counts the bodies of each polymorphic object (by path): a
	// member every body declares belongs to no variant in particular.
	elems map[string]int
}

func (w *bicepWalker) node(r bicepRef) (*bicepNode, int, bool) {
	i, ok := r.index()
	if !ok || i >= len(w.nodes) {
		return nil, 0, false
	}
	return &w.nodes[i], i, true
}

// run walks breadth-first, so that a body too large for maxPaths loses its
// deepest paths, never a top-level one.
func (w *bicepWalker) run(root bicepRef) {
	queue := []bicepItem{{ref: root}}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		n, idx, ok := w.node(it.ref)
		if !ok {
			continue
		}
		recursive := false
		for _, a := range it.ancestry {
			if a == idx {
				recursive = true
			}
		}
		var f *bicepFact
		if it.path != "" {
			f = w.visit(it, n)
		}
		if recursive || it.depth >= maxDepth || len(w.out) >= maxPaths {
			continue
		}
		anc := append(append([]int(nil), it.ancestry...), idx)
		child := func(path string, p bicepProp, variant, discAt string) {
			ro := it.readOnly || it.flags&bicepReadOnly != 0
			queue = append(queue, bicepItem{ref: p.Type, path: path, flags: p.Flags, desc: p.Description, depth: it.depth + 1,
				variant: variant, discAt: discAt, readOnly: ro, ancestry: anc})
		}
		switch n.Kind {
		case "ObjectType":
			for _, k := range slices.Sorted(maps.Keys(n.Properties)) {
				child(join(it.path, k), n.Properties[k], it.variant, it.discAt)
			}
			if n.AdditionalProperties != nil {
				child(join(it.path, "*"), bicepProp{Type: *n.AdditionalProperties}, it.variant, it.discAt)
			}
		case "DiscriminatedObjectType":
			if f != nil || it.path == "" {
				w.markDiscriminator(it.path, n.Discriminator)
			}
			for _, k := range slices.Sorted(maps.Keys(n.BaseProperties)) {
				child(join(it.path, k), n.BaseProperties[k], it.variant, it.discAt)
			}
			var elems map[string]bicepRef
			_ = json.Unmarshal(n.Elements, &elems)
			at := it.path
			if at == "" {
				at = rootKey
			}
			w.elems[at] = len(elems)
			for _, val := range slices.Sorted(maps.Keys(elems)) {
				e, _, ok := w.node(elems[val])
				if !ok {
					continue
				}
				for _, k := range slices.Sorted(maps.Keys(e.Properties)) {
					child(join(it.path, k), e.Properties[k], val, at)
				}
				if e.AdditionalProperties != nil {
					child(join(it.path, "*"), bicepProp{Type: *e.AdditionalProperties}, val, at)
				}
			}
		case "ArrayType":
			if n.ItemType != nil {
				child(it.path+"[]", bicepProp{Type: *n.ItemType}, it.variant, it.discAt)
			}
		}
	}
}

// markDiscriminator records on a polymorphic object which member selects
// its body. The root has no record of its own, so it gets one.
func (w *bicepWalker) markDiscriminator(path, disc string) {
	key := path
	if key == "" {
		key = rootKey
	}
	f := w.out[key]
	if f == nil {
		f = &bicepFact{prop: format.Prop{Type: "object"}, base: true}
		w.out[key] = f
	}
	f.prop.Flags |= format.FlagDiscriminator
	f.prop.Discriminator = disc
}

// rootKey stands for the body root while walking; it becomes the empty
// path in the index.
const rootKey = "\x00root"

func (w *bicepWalker) visit(it bicepItem, n *bicepNode) *bicepFact {
	var p format.Prop
	if it.flags&bicepRequired != 0 {
		p.Flags |= format.FlagRequired
	}
	if it.flags&bicepReadOnly != 0 || it.readOnly {
		p.Flags |= format.FlagReadOnly
	}
	if it.flags&bicepWriteOnly != 0 {
		p.Flags |= format.FlagWriteOnly
	}
	var enum []string
	open := false
	switch n.Kind {
	case "StringType":
		p.Type = "string"
		w.limits(&p, n)
	case "StringLiteralType":
		p.Type = "string"
		if s, ok := n.Value.(string); ok {
			enum = append(enum, s)
		}
	case "UnionType":
		p.Type, enum, open = w.union(n)
	case "IntegerType":
		p.Type = "integer"
		w.limits(&p, n)
	case "BooleanType":
		p.Type = "boolean"
	case "ObjectType", "DiscriminatedObjectType":
		p.Type = "object"
	case "ArrayType":
		p.Type = "array"
	}
	if n.Sensitive {
		p.Flags |= format.FlagSecret
	}
	f := w.out[it.path]
	if f == nil {
		f = &bicepFact{prop: p, desc: it.desc, enum: enum, open: open, vars: map[string]bool{}}
		w.out[it.path] = f
	} else {
		f.merge(p, enum, open)
		if f.desc == "" {
			f.desc = it.desc
		}
	}
	f.count++
	if it.variant == "" {
		f.base = true
	} else {
		f.vars[it.variant] = true
		f.disc = it.discAt
	}
	return f
}

// merge keeps only what every visit agrees on: a value any variant
// accepts must stay acceptable.
func (f *bicepFact) merge(p format.Prop, enum []string, open bool) {
	const agree = format.FlagRequired | format.FlagReadOnly | format.FlagWriteOnly | format.FlagHasMinLength | format.FlagHasMaxLength | format.FlagHasMinValue | format.FlagHasMaxValue | format.FlagHasPattern
	keep := f.prop.Flags & p.Flags & agree
	f.prop.Flags = f.prop.Flags&^agree | keep | p.Flags&format.FlagSecret
	if f.prop.Type != p.Type {
		f.prop.Type = ""
	}
	if f.prop.MinLength != p.MinLength || f.prop.MaxLength != p.MaxLength || f.prop.MinValue != p.MinValue || f.prop.MaxValue != p.MaxValue || f.prop.Pattern != p.Pattern {
		f.prop.Flags &^= format.FlagHasMinLength | format.FlagHasMaxLength | format.FlagHasMinValue | format.FlagHasMaxValue | format.FlagHasPattern
	}
	if len(enum) == 0 || len(f.enum) == 0 {
		f.open = true
	}
	for _, e := range enum {
		if !slices.Contains(f.enum, e) {
			f.enum = append(f.enum, e)
		}
	}
	f.open = f.open || open
}

// union reads an enum: string literals, plus a plain string when the enum
// is open. Anything else makes the value free-form.
func (w *bicepWalker) union(n *bicepNode) (typ string, enum []string, open bool) {
	var elems []bicepRef
	_ = json.Unmarshal(n.Elements, &elems)
	typ = "string"
	for _, r := range elems {
		e, _, ok := w.node(r)
		if !ok {
			continue
		}
		switch e.Kind {
		case "StringLiteralType":
			if s, ok := e.Value.(string); ok {
				enum = append(enum, s)
			} else {
				typ = ""
			}
		case "StringType":
			open = true
		default:
			typ = ""
		}
	}
	if typ == "" {
		return "", nil, false
	}
	return typ, enum, open
}

func (w *bicepWalker) limits(p *format.Prop, n *bicepNode) {
	set := func(num *json.Number, flag uint64, dst *int64) {
		if num == nil {
			return
		}
		v, err := num.Int64()
		if err != nil {
			return
		}
		p.Flags |= flag
		*dst = v
	}
	set(n.MinLength, format.FlagHasMinLength, &p.MinLength)
	set(n.MaxLength, format.FlagHasMaxLength, &p.MaxLength)
	set(n.MinValue, format.FlagHasMinValue, &p.MinValue)
	set(n.MaxValue, format.FlagHasMaxValue, &p.MaxValue)
	if n.Pattern != "" {
		p.Flags |= format.FlagHasPattern
		p.Pattern = n.Pattern
	}
}

// version turns the walked paths into a version record. The body root's
// name, type, id and apiVersion are Bicep's view of the resource: ARM
// takes them from the URL, so none is required in a request body.
func (w *bicepWalker) version(typ string) *version {
	v := &version{name: typ, props: map[string]format.Prop{}, descs: map[string]string{}, flags: format.VFlagBicep}
	for path, f := range w.out {
		if path == "apiVersion" {
			continue
		}
		p := f.prop
		if path == "name" || path == "type" || path == "id" {
			p.Flags &^= format.FlagRequired
		}
		if len(f.enum) > 0 {
			p.Enum = f.enum
			if !f.open && !w.isDiscriminator(path) {
				p.Flags |= format.FlagEnumClosed
			}
		}
		if !f.base && len(f.vars) > 0 && len(f.vars) < w.elems[f.disc] {
			p.Flags |= format.FlagVariants
			for x := range f.vars {
				p.Variants = append(p.Variants, x)
			}
			sort.Strings(p.Variants)
		}
		if path == rootKey {
			path = ""
		}
		v.props[path] = p
		if f.desc != "" {
			v.descs[path] = f.desc
		}
	}
	return v
}

// isDiscriminator reports whether path is the member that selects the
// body of its parent: its values are the known variants, and a service
// may accept newer ones, so the enum stays open.
func (w *bicepWalker) isDiscriminator(path string) bool {
	parent, name := splitPath(path)
	if parent == "" {
		parent = rootKey
	}
	f := w.out[parent]
	return f != nil && f.prop.Discriminator == name
}

func splitPath(p string) (parent, name string) {
	if i := strings.LastIndex(p, "."); i >= 0 {
		return p[:i], p[i+1:]
	}
	return "", p
}
