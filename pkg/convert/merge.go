package convert

import (
	"fmt"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/convert/expr"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
)

// A template may write one resource twice (a nested deployment that
// updates the vnet another created, a subnet inline in its vnet and as
// its own resource). ARM runs both PUTs, the dependent one last; a
// manifest set declares each resource once, with the state ARM ends in.

// mergeRepeats keeps one doc per ARM ID: the one written last. Key Vault
// accessPolicies/add (and /replace, /remove) are operations, not state:
// "add" docs are merged into one that adds every policy.
func (rd *renderer) mergeRepeats() {
	byKey := map[string]*doc{}
	var out []*doc
	for _, d := range rd.docs {
		k := rd.docKey(d)
		first, seen := byKey[k]
		if !seen || strings.HasPrefix(k, "\x00") {
			byKey[k] = d
			out = append(out, d)
			continue
		}
		keep, drop := first, d
		if isPolicyAdd(d) {
			addPolicies(first, d)
		} else if rd.dependsOnDoc(d, first) || !rd.dependsOnDoc(first, d) {
			keep, drop = d, first
		}
		if dep := rd.writtenBetween(drop, keep); dep != nil {
			// ARM writes the resource, then dep, then the resource again
			// with a body that needs dep: one document per resource has no
			// order for that.
			rd.r.problem(keep.path, manifest.SeverityError, "writes %s again after %s, which needs its first write (%s): this second write after its dependents cannot be expressed in manifests, which declare a resource once", rd.docKeyName(keep), dep.path, drop.path)
		}
		rd.r.notes = append(rd.r.notes, fmt.Sprintf("%s and %s write the same resource; the manifests hold the state ARM ends in (%s)", first.path, d.path, keep.path))
		for i, x := range out {
			if x == first {
				out[i] = keep
			}
		}
		byKey[k] = keep
		drop.skip = true
	}
	rd.docs = out
}

// writtenBetween is a resource that needs the earlier write of a resource
// written twice (it depends on it, names or reads it, or is its child)
// while the later write needs it in turn, directly or through others: a
// cycle only ARM's two writes resolve. Nil when there is none.
func (rd *renderer) writtenBetween(earlier, later *doc) *doc {
	key := rd.docKey(earlier)
	reach := map[*doc]bool{later: true}
	queue := []*doc{later}
	for len(queue) > 0 {
		a := queue[0]
		queue = queue[1:]
		for _, b := range rd.docs {
			if b == a || b == earlier || b == later || reach[b] || b.skip {
				continue
			}
			// The later write's own dependsOn only orders it (the
			// annotation gives way); its body is what needs b.
			if a == later && !rd.bodyNeeds(a, a.body, b) && !rd.namesID(a.body, rd.docKey(b)) || a != later && !rd.needs(a, b) {
				continue
			}
			if rd.needsKey(b, earlier, later, key) {
				return b
			}
			reach[b] = true
			queue = append(queue, b)
		}
	}
	return nil
}

// needs: a's dependsOn names b, or a's body names or reads b.
func (rd *renderer) needs(a, b *doc) bool {
	return rd.dependsOnDoc(a, b) || rd.bodyNeeds(a, a.body, b) || rd.namesID(a.body, rd.docKey(b))
}

// needsKey: b needs the resource whose ID is key (written by earlier).
func (rd *renderer) needsKey(b, earlier, later *doc, key string) bool {
	bk := rd.docKey(b)
	return rd.dependsOnDoc(b, earlier) || strings.HasPrefix(bk, key+"/") || rd.namesID(b.body, key) || rd.bodyNeeds(b, b.body, earlier) || rd.bodyNeeds(b, b.body, later)
}

// bodyNeeds: v holds an ID of b, a reference() to it or an action of it.
func (rd *renderer) bodyNeeds(from *doc, v any, b *doc) bool {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if rd.bodyNeeds(from, e, b) {
				return true
			}
		}
	case map[string]any:
		for _, e := range x {
			if rd.bodyNeeds(from, e, b) {
				return true
			}
		}
	case *expr.Concat:
		for _, e := range x.Parts {
			if rd.bodyNeeds(from, e, b) {
				return true
			}
		}
	case *idRef:
		return rd.sameResource(rd.target(x, from.decl.d), b)
	case *refValue:
		return rd.sameResource(rd.target(x.target, from.decl.d), b)
	case *actionValue:
		return rd.sameResource(rd.target(x.target, from.decl.d), b)
	}
	return false
}

// sameResource: t is b, or another write of the same resource (lookups
// may find the write a merge dropped).
func (rd *renderer) sameResource(t, b *doc) bool {
	return t != nil && (t == b || rd.docKey(t) == rd.docKey(b))
}

// selfReads: a body that reads the resource's own live body (a template
// that updates an existing subnet with reference(subnet).addressPrefix)
// needs the value before the write; a manifest cannot read itself.
func (rd *renderer) selfReads() {
	for _, d := range rd.docs {
		if d.skip || d.decl == nil {
			continue
		}
		if p, ok := rd.readsSelf(d, d.body, d.path); ok {
			rd.r.problem(p, manifest.SeverityError, "reads the live body of the resource it writes (%s): a value known only when deployed, which a manifest cannot read from itself", rd.docKeyName(d))
		}
	}
}

func (rd *renderer) readsSelf(d *doc, v any, path string) (string, bool) {
	switch x := v.(type) {
	case []any:
		for i, e := range x {
			if p, ok := rd.readsSelf(d, e, fmt.Sprintf("%s[%d]", path, i)); ok {
				return p, true
			}
		}
	case map[string]any:
		for _, k := range expr.SortedKeys(x) {
			if p, ok := rd.readsSelf(d, x[k], joinPath(path, k)); ok {
				return p, true
			}
		}
	case *expr.Concat:
		for _, e := range x.Parts {
			if _, ok := rd.readsSelf(d, e, path); ok {
				return path, true
			}
		}
	case *refValue:
		return path, rd.sameResource(rd.target(x.target, d.decl.d), d)
	}
	return "", false
}

// docKeyName is a doc's type and name, for messages.
func (rd *renderer) docKeyName(d *doc) string {
	n, err := rd.text(d.name, "")
	if err != nil {
		n = fmt.Sprint(d.name)
	}
	return d.typ + " " + n
}

func isPolicyAdd(d *doc) bool {
	return strings.EqualFold(d.typ, "Microsoft.KeyVault/vaults/accessPolicies") && strings.EqualFold(fmt.Sprint(d.segs[len(d.segs)-1]), "add")
}

// addPolicies appends from's access policies to into's.
func addPolicies(into, from *doc) {
	ip, _ := into.body["properties"].(map[string]any)
	fp, _ := from.body["properties"].(map[string]any)
	a, _ := ip["accessPolicies"].([]any)
	b, _ := fp["accessPolicies"].([]any)
	if ip == nil || b == nil {
		return
	}
	merged := map[string]any{}
	for k, v := range ip {
		merged[k] = v
	}
	merged["accessPolicies"] = append(append([]any{}, a...), b...)
	into.body = copyWith(into.body, "properties", merged)
	into.dependsOn = append(into.dependsOn, from.dependsOn...)
}

func copyWith(m map[string]any, k string, v any) map[string]any {
	out := make(map[string]any, len(m))
	for x, y := range m {
		out[x] = y
	}
	out[k] = v
	return out
}

// dependsOnDoc: a's dependsOn names b (or the deployment holding b),
// directly or through the nested deployment a was declared in.
func (rd *renderer) dependsOnDoc(a, b *doc) bool {
	for _, d := range []*doc{a, rd.deploymentOf(a)} {
		if d == nil {
			continue
		}
		for _, v := range d.dependsOn {
			for _, t := range rd.dependencyTargets(v, d) {
				if t == b {
					return true
				}
			}
		}
	}
	return false
}

// deploymentOf is the nested-deployment doc whose template declared d.
func (rd *renderer) deploymentOf(d *doc) *doc {
	if d.decl == nil {
		return nil
	}
	for _, x := range rd.r.docs {
		if x.inner != nil && x.inner == d.decl.d {
			return x
		}
	}
	return nil
}

// mergeInlineChildren declares once a child that is both inline in its
// parent's collection (a subnet in its vnet's properties.subnets, a pool
// in its load balancer's) and its own resource. The child's PUT comes
// after the parent's, so its properties are what ARM ends with. When the
// parent names the item (a rule naming its pool), the child is folded
// into the inline item, as two documents would close a cycle; otherwise
// the inline item goes and the child document owns it.
func (rd *renderer) mergeInlineChildren() {
	var out []*doc
	for _, c := range rd.docs {
		if !rd.foldIntoParent(c) {
			out = append(out, c)
		}
	}
	rd.docs = out
}

func (rd *renderer) foldIntoParent(c *doc) bool {
	if len(c.segs) < 2 {
		return false
	}
	p := rd.parentDoc(c)
	leaf, ok := expr.Known(c.segs[len(c.segs)-1])
	if p == nil || !ok {
		return false
	}
	coll := c.typ[strings.LastIndex(c.typ, "/")+1:]
	props, _ := p.body["properties"].(map[string]any)
	for k, v := range props {
		items, isArr := v.([]any)
		if !isArr || !strings.EqualFold(k, coll) {
			continue
		}
		for i, it := range items {
			m, _ := it.(map[string]any)
			if n, ok := expr.Known(m["name"]); !ok || !strings.EqualFold(fmt.Sprint(n), fmt.Sprint(leaf)) {
				continue
			}
			if !rd.namesID(p.body, rd.docKey(c)) {
				// Nothing in the parent names the item: the child owns it,
				// and its references stay its own (a subnet's route table
				// may depend on the vnet through a NIC).
				p.body = copyWith(p.body, "properties", copyWith(props, k, append(append([]any{}, items[:i]...), items[i+1:]...)))
				rd.r.notes = append(rd.r.notes, fmt.Sprintf("%s is declared inline in %s and as its own resource (%s); the manifests declare it once, as its own resource", leaf, p.path, c.path))
				return false
			}
			merged := append([]any{}, items...)
			merged[i] = copyWith(m, "properties", c.body["properties"])
			p.body = copyWith(p.body, "properties", copyWith(props, k, merged))
			p.dependsOn = append(p.dependsOn, c.dependsOn...)
			c.skip = true
			rd.r.notes = append(rd.r.notes, fmt.Sprintf("%s is declared inline in %s and as its own resource (%s); the manifests declare it once, inline, with the properties of its own declaration", leaf, p.path, c.path))
			return true
		}
	}
	return false
}

func (rd *renderer) parentDoc(c *doc) *doc {
	ptyp := c.typ[:strings.LastIndex(c.typ, "/")]
	if strings.Count(ptyp, "/") < 1 {
		return nil
	}
	for _, d := range rd.docs {
		if d.skip || !strings.EqualFold(d.typ, ptyp) || len(d.segs) != len(c.segs)-1 {
			continue
		}
		same := fmt.Sprint(d.sub) == fmt.Sprint(c.sub) && fmt.Sprint(d.group) == fmt.Sprint(c.group)
		for i := range d.segs {
			a, okA := expr.Known(d.segs[i])
			b, okB := expr.Known(c.segs[i])
			same = same && okA && okB && strings.EqualFold(fmt.Sprint(a), fmt.Sprint(b))
		}
		if same {
			return d
		}
	}
	return nil
}

// namesID reports whether a body holds the ID key (as rendered for
// lookups), or an ID below it.
func (rd *renderer) namesID(v any, key string) bool {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if rd.namesID(e, key) {
				return true
			}
		}
	case map[string]any:
		for _, e := range x {
			if rd.namesID(e, key) {
				return true
			}
		}
	case string, expr.Unknown:
		t, err := rd.literalText(x)
		t = strings.ToLower(t)
		return err == nil && (t == key || strings.HasPrefix(t, key+"/"))
	}
	return false
}
