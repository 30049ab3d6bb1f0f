package specgen

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/schema/internal/format"
)

// version is one (type, api-version) before encoding.
type version struct {
	name  string // the type as this spec file spells it
	flags uint64
	props map[string]format.Prop
	patch []string
	descs map[string]string // path -> description
	// factsFrom: the Swagger api-version the Swagger-only facts came from.
	factsFrom            string
	putStatus, delStatus []int
	// How the Swagger's resource paths name the resource: by a path
	// parameter (namedByParam), or by fixed last segments (fixedNames:
	// .../diagnosticSettings/service, .../config/appsettings).
	fixedNames   []string
	namedByParam bool
}

// Stats summarises a generator run.
type Stats struct {
	Types, Pairs int
	// Fallbacks counts $refs into files the tree lacks that were answered
	// from the shared common-types (see docs.fallback).
	Fallbacks int
}

// Generate reads every candidate file of src and returns one blob per
// resource type, sorted by name. Files and paths are visited in sorted
// order, so output depends only on the input tree.
func Generate(src Source) ([]*format.Blob, Stats, error) {
	types, st, err := readSwagger(src)
	if err != nil {
		return nil, st, err
	}
	return encodeAll(types, st), st, nil
}

func encodeAll(types map[string]map[string]*version, st Stats) []*format.Blob {
	blobs := make([]*format.Blob, 0, len(types))
	for _, vs := range types {
		applyLocationRule(vs)
		blobs = append(blobs, encodeType(vs))
	}
	sort.Slice(blobs, func(i, j int) bool {
		return strings.ToLower(blobs[i].Name) < strings.ToLower(blobs[j].Name)
	})
	return blobs
}

// readSwagger collects every (type, api-version) the specs declare.
func readSwagger(src Source) (map[string]map[string]*version, Stats, error) {
	d := newDocs(src)
	files := src.Files()
	byDir := map[string][]string{}
	for _, f := range files {
		byDir[path.Dir(f)] = append(byDir[path.Dir(f)], f)
	}
	types := map[string]map[string]*version{} // lower(type) -> api-version -> facts
	service := ""
	for _, f := range files {
		// A full checkout parses to many gigabytes; services rarely refer
		// to each other, so parsed files are dropped service by service
		// (a cross-service $ref is simply parsed again).
		if s := serviceOf(f); s != service {
			d.forget()
			service = s
		}
		for _, op := range d.resourceOps(f) {
			lt := strings.ToLower(op.typ)
			vs := types[lt]
			if vs == nil {
				vs = map[string]*version{}
				types[lt] = vs
			}
			v := d.buildVersion(op, byDir[path.Dir(f)])
			if prev, dup := vs[op.version]; dup {
				prev.absorb(v)
				continue
			}
			vs[op.version] = v
		}
	}
	if len(types) == 0 {
		return nil, Stats{}, fmt.Errorf("no ARM resource types found; is this an azure-rest-api-specs tree?")
	}
	st := Stats{Types: len(types), Fallbacks: d.fallbacks}
	for _, vs := range types {
		st.Pairs += len(vs)
		for k, v := range vs {
			v.flags |= format.VFlagSwagger
			v.factsFrom = k
		}
	}
	return types, st, nil
}

// serviceOf returns "specification/<service>/" for a spec file path.
func serviceOf(f string) string {
	parts := strings.SplitN(f, "/", 3)
	if len(parts) < 3 {
		return f
	}
	return parts[0] + "/" + parts[1] + "/"
}

// Run generates the index for src into dir.
func Run(src Source, dir string) (Stats, error) {
	blobs, st, err := Generate(src)
	if err != nil {
		return st, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return st, err
	}
	return st, format.WriteIndex(dir, blobs)
}

// absorb merges another declaration of the same type and api-version
// into v. The same type is often declared on several paths: at several
// scopes (identical models), or once per fixed name with a model each
// (Microsoft.Web/sites/config: appsettings, web, logs...). The body may
// be any of them, so paths are united; the first declaration (in sorted
// file and path order) keeps its facts where both describe a path.
func (v *version) absorb(o *version) {
	for p, f := range o.props {
		if _, ok := v.props[p]; !ok {
			v.props[p] = f
		}
	}
	v.flags |= o.flags
	for p, d := range o.descs {
		if _, ok := v.descs[p]; !ok {
			v.descs[p] = d
		}
	}
	v.namedByParam = v.namedByParam || o.namedByParam
	for _, n := range o.fixedNames {
		if !contains(v.fixedNames, n) {
			v.fixedNames = append(v.fixedNames, n)
		}
	}
	v.putStatus = unionInts(v.putStatus, o.putStatus)
	v.delStatus = unionInts(v.delStatus, o.delStatus)
	seen := map[string]bool{}
	for _, p := range v.patch {
		seen[p] = true
	}
	for _, p := range o.patch {
		if !seen[p] {
			v.patch = append(v.patch, p)
		}
	}
	sort.Strings(v.patch)
}

func (d *docs) buildVersion(op resourceOp, scope []string) *version {
	v := &version{name: op.typ, props: map[string]format.Prop{}, descs: map[string]string{}, putStatus: op.putStatus, delStatus: op.delStatus}
	if op.fixedName != "" {
		v.fixedNames = []string{op.fixedName}
	} else {
		v.namedByParam = true
	}
	var put, get map[string]*fact
	if op.put != nil {
		put = d.flatten(*op.put, scope)
	}
	if op.get != nil {
		get = d.flatten(*op.get, scope)
	}
	if op.hasPatch {
		v.flags |= format.VFlagPatch
		if op.patch != nil {
			for p := range d.flatten(*op.patch, scope) {
				v.patch = append(v.patch, p)
			}
			sort.Strings(v.patch)
		}
	}
	if op.putLRO {
		v.flags |= format.VFlagPutLRO
	}
	if op.deleteLRO {
		v.flags |= format.VFlagDeleteLRO
	}
	if _, ok := get["etag"]; ok {
		v.flags |= format.VFlagEtag
	} else if _, ok := put["etag"]; ok {
		v.flags |= format.VFlagEtag
	}
	for p, f := range put {
		v.props[p] = merge(p, f, get[p], get)
	}
	for p, f := range get {
		if _, done := put[p]; !done {
			v.props[p] = merge(p, f, nil, nil)
		}
	}
	return v
}

// merge combines what the PUT model (primary) and the GET model say about
// one path. The PUT model decides writability: a GET model often marks
// inputs readonly that PUT accepts (storage's sku is one). Paths only in
// the GET model keep the GET model's flags.
func merge(p string, primary, other *fact, getModel map[string]*fact) format.Prop {
	out := format.Prop{Type: primary.typ}
	if out.Type == "" && other != nil {
		out.Type = other.typ
	}
	if primary.ro || (primary.hasMut && !primary.mutable("create") && !primary.mutable("update")) {
		out.Flags |= format.FlagReadOnly
	}
	// Either model may carry it: storage's create parameters say nothing
	// about location, the TrackedResource it returns says create-only.
	if (primary.createOnly || (other != nil && other.createOnly)) && out.Flags&format.FlagReadOnly == 0 {
		out.Flags |= format.FlagCreateOnly
	}
	if primary.hasMut && !primary.mutable("read") {
		out.Flags |= format.FlagWriteOnly
	}
	if getModel != nil && other == nil && inGetParent(p, getModel) && out.Flags&format.FlagReadOnly == 0 {
		// Declared for PUT, absent from what GET returns.
		out.Flags |= format.FlagWriteOnly
	}
	if primary.secret || (other != nil && other.secret) {
		out.Flags |= format.FlagSecret
	}
	if primary.armID || (other != nil && other.armID) {
		out.Flags |= format.FlagARMID
	}
	src := primary
	if !src.hasDef && other != nil && other.hasDef {
		src = other
	}
	if src.hasDef {
		if b, err := json.Marshal(src.def); err == nil {
			out.Flags |= format.FlagHasDefault
			out.Default = string(b)
		}
	}
	src = primary
	if len(src.enum) == 0 && other != nil {
		src = other
	}
	out.Enum = src.enum
	if src.closed {
		out.Flags |= format.FlagEnumClosed
	}
	src = primary
	if !src.hasIDs && other != nil {
		src = other
	}
	if src.hasIDs {
		out.Flags |= format.FlagHasIdentifiers
		out.Identifiers = src.ids
		if len(src.ids) == 0 {
			out.Flags |= format.FlagPositional
		}
	}
	return out
}

// inGetParent reports whether the GET model describes the members of p's
// parent, so that p's absence there means something.
func inGetParent(p string, get map[string]*fact) bool {
	parent := schemaParent(p)
	if parent == "" {
		return len(get) > 0
	}
	f, ok := get[parent]
	return ok && f.children
}

// schemaParent returns the parent of a schema path: "a.b[]" for
// "a.b[].c", "a.b" for "a.b.*", "a" for "a.b".
func schemaParent(p string) string {
	if strings.HasSuffix(p, "[]") {
		return "" // array items are judged with the array itself
	}
	i := strings.LastIndex(p, ".")
	if i < 0 {
		return ""
	}
	return p[:i]
}

// encodeType dedupes paths and property records across api-versions.
func encodeType(vs map[string]*version) *format.Blob {
	keys := slices.Sorted(maps.Keys(vs))
	b := &format.Blob{Name: vs[keys[len(keys)-1]].name} // newest spelling
	pathSet := map[string]bool{}
	for _, k := range keys {
		for p := range vs[k].props {
			pathSet[p] = true
		}
		for p := range vs[k].descs {
			pathSet[p] = true
		}
		for _, p := range vs[k].patch {
			pathSet[p] = true
		}
	}
	for p := range pathSet {
		b.Paths = append(b.Paths, p)
	}
	sort.Strings(b.Paths)
	pathIdx := make(map[string]int, len(b.Paths))
	for i, p := range b.Paths {
		pathIdx[p] = i
	}
	props, descs := newInterner(&b.Props), newInterner(&b.Descriptions)
	for _, k := range keys {
		v := vs[k]
		av := format.APIVersion{Version: k, Flags: v.flags, FactsFrom: v.factsFrom, PutStatus: v.putStatus, DeleteStatus: v.delStatus}
		for _, p := range slices.Sorted(maps.Keys(v.descs)) {
			d := v.descs[p]
			av.Descs = append(av.Descs, format.PathProp{Path: pathIdx[p], Prop: descs.index(d, d)})
		}
		sort.Slice(av.Descs, func(i, j int) bool { return av.Descs[i].Path < av.Descs[j].Path })
		for _, p := range v.patch {
			av.PatchPaths = append(av.PatchPaths, pathIdx[p])
		}
		sort.Ints(av.PatchPaths)
		for _, p := range slices.Sorted(maps.Keys(v.props)) {
			pr := v.props[p]
			av.Props = append(av.Props, format.PathProp{Path: pathIdx[p], Prop: props.index(propKey(pr), pr)})
		}
		b.Versions = append(b.Versions, av)
	}
	return b
}

// interner stores each distinct value once in a blob's list, in the order
// first seen, so api-versions that share a value refer to it by index.
type interner[T any] struct {
	seen map[string]int
	list *[]T
}

func newInterner[T any](list *[]T) interner[T] {
	return interner[T]{seen: map[string]int{}, list: list}
}

// index returns the position of the value identified by key, appending v
// when the key is new.
func (n interner[T]) index(key string, v T) int {
	i, ok := n.seen[key]
	if !ok {
		i = len(*n.list)
		n.seen[key] = i
		*n.list = append(*n.list, v)
	}
	return i
}

func propKey(p format.Prop) string {
	return fmt.Sprintf("%d\x00%s\x00%s\x00%q\x00%q\x00%d,%d,%d,%d\x00%q\x00%q\x00%q", p.Flags, p.Type, p.Default, p.Enum, p.Identifiers,
		p.MinLength, p.MaxLength, p.MinValue, p.MaxValue, p.Pattern, p.Discriminator, p.Variants)
}

func unionInts(a, b []int) []int {
	for _, x := range b {
		if !slices.Contains(a, x) {
			a = append(a, x)
		}
	}
	sort.Ints(a)
	return a
}

// applyLocationRule makes the root location create-only for every
// version: ARM cannot move a tracked resource (or a resource group), and
// many specs forget to say so.
func applyLocationRule(vs map[string]*version) {
	for _, v := range vs {
		if p, ok := v.props["location"]; ok && p.Flags&format.FlagReadOnly == 0 {
			p.Flags |= format.FlagCreateOnly
			v.props["location"] = p
		}
	}
}
