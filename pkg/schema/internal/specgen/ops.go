package specgen

import (
	"iter"
	"maps"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// resourceOp is what one spec file says about one resource path.
type resourceOp struct {
	typ, version string
	// fixedName is the path's last segment when it is a literal name
	// (".../diagnosticSettings/service"), "" when a parameter names it.
	fixedName string
	put, get  *node // request body of PUT, 200 body of GET
	patch     *node
	hasPatch  bool
	putLRO    bool
	deleteLRO bool
	// HTTP status codes the PUT and DELETE declare (not "default").
	putStatus, delStatus []int
}

// typesFromPath derives the ARM resource types from a resource path: the
// namespace after the last "providers" segment, then every other segment
// (the names sit between); paths ending on an action or a collection are
// not resource PUTs. A type segment may be a path parameter with an enum
// (DNS record sets: .../dnsZones/{zone}/{recordType}/{name}): the path
// then declares one type per enum value. enumOf returns a
// parameter's enum, or nil.
func typesFromPath(p string, enumOf func(param string) []string) []string {
	p, _, _ = strings.Cut(p, "?")
	segs := strings.Split(strings.Trim(p, "/"), "/")
	last := -1
	for i, s := range segs {
		if strings.EqualFold(s, "providers") {
			last = i
		}
	}
	if last < 0 && len(segs) == 4 && strings.EqualFold(segs[0], "subscriptions") && strings.EqualFold(segs[2], "resourceGroups") {
		// Resource groups are the one ARM resource whose path carries no
		// provider namespace.
		return []string{"Microsoft.Resources/resourceGroups"}
	}
	if last < 0 || last+1 >= len(segs) {
		return nil
	}
	ns := segs[last+1]
	rest := segs[last+2:]
	if strings.Contains(ns, "{") || len(rest) < 2 || len(rest)%2 != 0 {
		return nil
	}
	out := []string{ns}
	for i := 0; i < len(rest); i += 2 {
		seg := rest[i]
		if seg == "" || rest[i+1] == "" {
			return nil
		}
		alts := []string{seg}
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			if enumOf == nil {
				return nil
			}
			alts = enumOf(strings.Trim(seg, "{}"))
			if len(alts) == 0 {
				return nil
			}
		} else if strings.Contains(seg, "{") {
			return nil
		}
		var next []string
		for _, prefix := range out {
			for _, a := range alts {
				next = append(next, prefix+"/"+a)
			}
		}
		out = next
	}
	return out
}

// fixedNameOf returns the last segment of a resource path when it is a
// literal name rather than a parameter.
func fixedNameOf(p string) string {
	p, _, _ = strings.Cut(p, "?")
	segs := strings.Split(strings.Trim(p, "/"), "/")
	last := segs[len(segs)-1]
	if strings.Contains(last, "{") {
		return ""
	}
	return last
}

// versionFromFile takes the api-version from the folder layout
// (".../stable/2023-05-01/file.json"), which is what the service serves;
// info.version is the fallback for unusual layouts.
func versionFromFile(file string, doc map[string]any) string {
	segs := strings.Split(path.Dir(file), "/")
	for i := len(segs) - 2; i >= 0; i-- {
		if segs[i] == "stable" || segs[i] == "preview" {
			return segs[i+1]
		}
	}
	info, _ := doc["info"].(map[string]any)
	v, _ := info["version"].(string)
	return v
}

// resourceOps lists the resource PUTs a spec file declares, in path order.
func (d *docs) resourceOps(file string) []resourceOp {
	doc, err := d.doc(file)
	if err != nil {
		return nil
	}
	version := versionFromFile(file, doc)
	if version == "" {
		return nil
	}
	var out []resourceOp
	for _, key := range []string{"paths", "x-ms-paths"} {
		paths, _ := doc[key].(map[string]any)
		for _, p := range slices.Sorted(maps.Keys(paths)) {
			item, _ := paths[p].(map[string]any)
			put, ok := item["put"].(map[string]any)
			if !ok {
				continue
			}
			shared, _ := item["parameters"].([]any)
			enumOf := func(name string) []string { return d.pathEnum(file, name, shared, put) }
			for _, typ := range typesFromPath(p, enumOf) {
				op := d.resourceOp(file, typ, version, item, shared, put)
				op.fixedName = fixedNameOf(p)
				out = append(out, op)
			}
		}
	}
	return out
}

// pathEnum returns the enum of a path parameter, from the operation's or
// the path's parameter list. SOA records and the like are enum values too:
// ARM serves them as types of their own.
func (d *docs) pathEnum(file, name string, shared []any, op map[string]any) []string {
	for n := range d.params(file, shared, op) {
		if pn, _ := n.m["name"].(string); pn != name {
			continue
		}
		if in, _ := n.m["in"].(string); in != "path" {
			continue
		}
		return factOf(n.m).enum
	}
	return nil
}

// params yields an operation's parameters with references resolved: its
// own first, since they override the path's shared ones of the same name,
// then the shared ones. Entries that do not resolve are passed over.
func (d *docs) params(file string, shared []any, op map[string]any) iter.Seq[node] {
	own, _ := op["parameters"].([]any)
	return func(yield func(node) bool) {
		for _, list := range [][]any{own, shared} {
			for _, p := range list {
				pm, ok := p.(map[string]any)
				if !ok {
					continue
				}
				n, err := d.deref(node{m: pm, file: file})
				if err != nil {
					continue
				}
				if !yield(n) {
					return
				}
			}
		}
	}
}

func (d *docs) resourceOp(file, typ, version string, item map[string]any, shared []any, put map[string]any) resourceOp {
	op := resourceOp{typ: typ, version: version}
	op.put = d.bodyParam(file, shared, put)
	op.putLRO = isLRO(put)
	op.putStatus = statusCodes(put)
	if get, ok := item["get"].(map[string]any); ok {
		op.get = d.okResponse(file, get, "200")
	}
	if op.get == nil {
		// No GET on this path: what PUT returns is the best description
		// of what the service keeps.
		op.get = d.okResponse(file, put, "200", "201")
	}
	if patch, ok := item["patch"].(map[string]any); ok {
		op.hasPatch = true
		op.patch = d.bodyParam(file, shared, patch)
	}
	if del, ok := item["delete"].(map[string]any); ok {
		op.deleteLRO = isLRO(del)
		op.delStatus = statusCodes(del)
	}
	return op
}

func statusCodes(op map[string]any) []int {
	resp, _ := op["responses"].(map[string]any)
	var out []int
	for c := range resp {
		if n, err := strconv.Atoi(c); err == nil && n >= 100 && n < 600 {
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out
}

func isLRO(op map[string]any) bool {
	v, _ := op["x-ms-long-running-operation"].(bool)
	return v
}

func (d *docs) bodyParam(file string, shared []any, op map[string]any) *node {
	for n := range d.params(file, shared, op) {
		if in, _ := n.m["in"].(string); in != "body" {
			continue
		}
		if s, ok := n.m["schema"].(map[string]any); ok {
			return &node{m: s, file: n.file}
		}
	}
	return nil
}

func (d *docs) okResponse(file string, op map[string]any, codes ...string) *node {
	resp, _ := op["responses"].(map[string]any)
	for _, c := range codes {
		r, ok := resp[c].(map[string]any)
		if !ok {
			continue
		}
		n, err := d.deref(node{m: r, file: file})
		if err != nil {
			continue
		}
		if s, ok := n.m["schema"].(map[string]any); ok {
			return &node{m: s, file: n.file}
		}
	}
	return nil
}
