package convert

import (
	"fmt"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/convert/expr"
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
