package apply

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// Lister reads a collection (a child collection such as
// .../dnsZones/z/A), following its pages. A Client may implement it (the
// ARM client's adapter does); the cascade check uses it to find child
// resources, which a resource group's /resources listing never holds.
type Lister interface {
	List(ctx context.Context, collectionID, apiVersion string) ([]map[string]any, error)
}

// ChildTypeSource names every known resource type and its api-versions,
// so the cascade check can find a type's child types. *schema.Registry
// implements it.
type ChildTypeSource interface {
	Types() []string
	HasVersion(typ, apiVersion string) bool
	NewestVersion(typ string) string
}

// maxCascadeDepth bounds how many levels of child types below a destroyed
// resource are listed (zone → record set; account → blob service →
// container → immutability policy).
const maxCascadeDepth = 4

// cascadeListConcurrency bounds child listings in flight; the ARM client
// paces them further.
const cascadeListConcurrency = 16

// unknownType marks a cascade entry that stands for something the check
// could not identify: a listing that failed or an entry without an ID.
// Such entries are never managed, so the plan is refused without
// --allow-cascade.
const unknownType = "(unknown)"

// deleteRules answers which children the service creates with their
// parent and which types ARM can delete. *schema.Registry implements it;
// without one, the schema package's tables alone answer.
type deleteRules interface {
	ServerCreated(typ, name string) bool
	CanDelete(typ, apiVersion, name string) bool
}

func (e *Engine) deleteRules() deleteRules {
	if r, ok := e.Schemas.(deleteRules); ok {
		return r
	}
	return (*schema.Registry)(nil)
}

// planCascades lists, for every delete or replace, what ARM deletes with
// the resource, each marked managed when a manifest or this set's state
// knows it:
//   - the resource group's /resources listing (top-level resources), one
//     listing per group; a failed listing fails the plan;
//   - every resource the manifests or the state (any set) know inside it;
//   - child resources, listed per child type the schema knows, down to
//     maxCascadeDepth levels below every resource found.
//
// Whatever cannot be identified — an entry without an ID, a child listing
// that fails — is an unmanaged entry: the plan is refused without
// --allow-cascade, never taken as "nothing there".
func (e *Engine) planCascades(ctx context.Context, items []*item, managed map[string]bool, sc planScope) error {
	var destroyed []*item
	for _, it := range items {
		if a := it.planned.Action; a == plan.ActionDelete || a == plan.ActionReplace {
			destroyed = append(destroyed, it)
		}
	}
	if len(destroyed) == 0 {
		return nil
	}
	lister, src, err := e.destroyTools()
	if err != nil {
		return fmt.Errorf("%s: %w", destroyed[0].display(), err)
	}
	cs := &cascadeScan{e: e, managed: managed, sc: sc, found: map[string][]plan.CascadeItem{}, lister: lister, src: src}
	cf := newCascadeFind(destroyed)
	if err := cs.groupContents(ctx, cf, items); err != nil {
		return err
	}
	cf.addKnown(items, sc, managed)
	if err := cs.listChildren(ctx, cf.roots); err != nil {
		return err
	}
	cf.addListed(cs.found)
	for _, it := range destroyed {
		it.planned.Cascade = cf.sorted(it)
	}
	return nil
}

// cascadeFind is what each destroyed resource takes with it, as found.
// Everything walks each found ID's ancestors to the destroyed resources
// that contain it: linear in what is found, not quadratic in what is
// deleted (a delete of 10,000 resources).
type cascadeFind struct {
	destroyed []*item
	inside    map[string]*item
	found     map[*item]map[string]plan.CascadeItem
	// roots are the resources whose children are listed: what is
	// destroyed and what a destroyed group holds.
	roots map[string]root
}

func newCascadeFind(destroyed []*item) *cascadeFind {
	cf := &cascadeFind{destroyed: destroyed, inside: make(map[string]*item, len(destroyed)),
		found: make(map[*item]map[string]plan.CascadeItem, len(destroyed)), roots: map[string]root{}}
	for _, it := range destroyed {
		cf.inside[it.key] = it
		cf.found[it] = map[string]plan.CascadeItem{}
		cf.roots[it.key] = root{id: it.id, typ: it.typ, ver: it.ver, body: it.live}
	}
	return cf
}

// containers visits every destroyed resource that contains key (or is it).
func (cf *cascadeFind) containers(k string, visit func(*item)) {
	enclosing(k, func(pk string) bool {
		if it := cf.inside[pk]; it != nil {
			visit(it)
		}
		return true
	})
}

// byGroup indexes the destroyed resources by their resource group's key,
// in first-seen order.
func (cf *cascadeFind) byGroup() (map[string][]*item, []string) {
	byGroup := map[string][]*item{}
	var groups []string
	for _, it := range cf.destroyed {
		id, err := armid.Parse(it.id)
		if err != nil || id.Subscription == "" || id.ResourceGroup == "" {
			continue
		}
		rg := armid.Key("/subscriptions/" + id.Subscription + "/resourceGroups/" + id.ResourceGroup)
		if _, ok := byGroup[rg]; !ok {
			groups = append(groups, rg)
		}
		byGroup[rg] = append(byGroup[rg], it)
	}
	return byGroup, groups
}

// groupContents lists each resource group holding a destroyed resource
// and notes what it holds inside each destroyed one.
func (cs *cascadeScan) groupContents(ctx context.Context, cf *cascadeFind, items []*item) error {
	byGroup, groups := cf.byGroup()
	// What the plan and the state know in each group whose own delete is
	// planned, indexed once: a delete of many groups stays linear.
	var known map[string][]knownResource
	for _, rg := range groups {
		if cf.inside[rg] != nil {
			known = knownByGroup(items, cs.sc)
			break
		}
	}
	for _, rg := range groups {
		contents, err := cs.groupList(ctx, cf, rg, byGroup[rg], known[rg])
		if err != nil {
			return err
		}
		for _, c := range contents {
			cf.noteContent(rg, byGroup[rg], c, cs.managed)
		}
	}
	return nil
}

// groupList lists what deleting the resources of group rg would take:
// the group's generic list and, when the group itself goes, its
// provider's lists of its types (failed listings noted as unknown).
func (cs *cascadeScan) groupList(ctx context.Context, cf *cascadeFind, rg string, in []*item, known []knownResource) ([]map[string]any, error) {
	first := in[0]
	x, _ := armid.Parse(first.id)
	contents, err := cs.e.client().ListResourceGroup(ctx, x.Subscription, x.ResourceGroup)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("listing what deleting %s would also delete (nothing was written): %w", first.display(), err)
	}
	if cf.inside[rg] == nil {
		return contents, nil
	}
	// The group itself goes: its generic list lags writes, so the
	// provider's own lists of the group's types are read too.
	more, failed, err := cs.listGroupTypes(ctx, cf.inside[rg].id, contents, known)
	if err != nil {
		return nil, err
	}
	for _, u := range failed {
		for _, it := range in {
			cf.found[it][u.ID] = u
		}
	}
	return append(contents, more...), nil
}

// noteContent notes one entry of group rg's listing inside the destroyed
// resources that contain it; an entry that cannot be placed may lie
// inside any of in.
func (cf *cascadeFind) noteContent(rg string, in []*item, c map[string]any, managed map[string]bool) {
	cid, _ := c["id"].(string)
	typ, _ := c["type"].(string)
	_, perr := armid.Parse(cid)
	if perr == nil && typ != "" && !armid.Contains(rg, cid) {
		// Outside the group (a type's list at a group's scope includes
		// the built-in role definitions, whose IDs are the
		// subscription's): a group's DELETE does not take it.
		return
	}
	if perr != nil || typ == "" {
		u := plan.CascadeItem{ID: "an entry of " + armid.Printable(rg) + "/resources without a valid id and type (" + armid.Printable(cid) + ")", Type: unknownType}
		for _, it := range in {
			cf.found[it][u.ID] = u
		}
		return
	}
	k := armid.Key(cid)
	inside := false
	cf.containers(k, func(it *item) {
		inside = true
		cf.found[it][k] = plan.CascadeItem{ID: cid, Type: typ, Managed: managed[k]}
	})
	if _, known := cf.roots[k]; inside && !known {
		cf.roots[k] = root{id: cid, typ: typ}
	}
}

// addKnown notes the resources the manifests or the state (any set) know
// inside a destroyed one. A resource read and found absent (its create
// failed, or it was deleted outside) goes with nothing: ARM has nothing
// of it to delete.
func (cf *cascadeFind) addKnown(items []*item, sc planScope, managed map[string]bool) {
	add := func(id, typ string) {
		k := armid.Key(id)
		cf.containers(k, func(it *item) {
			if _, ok := cf.found[it][k]; !ok {
				cf.found[it][k] = plan.CascadeItem{ID: id, Type: typ, Managed: managed[k]}
			}
		})
	}
	absent := map[string]bool{}
	for _, it := range items {
		if it.read && it.live == nil {
			absent[it.key] = true
			continue
		}
		add(it.id, it.typ)
	}
	for _, r := range sc.recs {
		if !absent[armid.Key(r.ID)] {
			add(r.ID, r.Type)
		}
	}
}

// addListed notes the children listed below each root inside the
// destroyed resources that contain the root.
func (cf *cascadeFind) addListed(found map[string][]plan.CascadeItem) {
	for rk, kids := range found {
		add := func(it *item) {
			for _, c := range kids {
				k := armid.Key(c.ID)
				if c.Type == unknownType {
					k = c.ID
				}
				if _, ok := cf.found[it][k]; !ok {
					cf.found[it][k] = c
				}
			}
		}
		if it := cf.inside[rk]; it != nil {
			add(it)
		}
		cf.containers(rk, add)
	}
}

// sorted is what it takes with it, by key.
func (cf *cascadeFind) sorted(it *item) []plan.CascadeItem {
	// Each entry's key is computed once, not again in every comparison.
	type keyed struct {
		key string
		c   plan.CascadeItem
	}
	ks := make([]keyed, 0, len(cf.found[it]))
	for _, c := range cf.found[it] {
		ks = append(ks, keyed{armid.Key(c.ID), c})
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i].key < ks[j].key })
	out := make([]plan.CascadeItem, len(ks))
	for i, k := range ks {
		out[i] = k.c
	}
	return out
}

// untrackedNamespaces hold types ARM's generic list never shows (role
// assignments, locks, deployments, diagnostic settings): their per-type
// lists at a group's scope are not the group's contents (a role
// assignment list also returns those inherited from above), so they are
// not listed for a group's cascade.
var untrackedNamespaces = map[string]bool{
	"microsoft.authorization": true, "microsoft.resources": true, "microsoft.insights": true,
	"microsoft.security": true, "microsoft.management": true, "microsoft.policyinsights": true,
}

// listGroupTypes lists, for a resource group about to be deleted, the
// provider's collection of every top-level type the group is known to
// hold (/resourceGroups/{rg}/providers/{ns}/{type}): the types its generic
// list returned and those of every resource the plan or the state knows
// in it. ARM serves the generic list from a cache that lags writes by
// seconds; the provider's lists do not, so a resource of a known type
// created just before the delete is still found. The items returned are
// in the generic list's shape (id, type). A listing that fails (other
// than 404 or 405) is returned as an unknown entry, which refuses the
// plan.
//
// A resource of a type nothing else in the group has, created within the
// cache's lag, is still only seen by the generic list: see
// docs/safety.md.
func (cs *cascadeScan) listGroupTypes(ctx context.Context, rg string, contents []map[string]any, known []knownResource) ([]map[string]any, []plan.CascadeItem, error) {
	lister, src := cs.lister, cs.src
	vers := map[string]string{} // lower-cased top-level type -> api-version ("" unknown)
	var types []string
	note := func(id, typ, ver string, known bool) {
		tt, ok := topLevelType(rg, id)
		if !ok {
			return
		}
		lt := strings.ToLower(tt)
		if known && untrackedNamespaces[lt[:strings.IndexByte(lt, '/')]] {
			return
		}
		v, seen := vers[lt]
		if !seen {
			types = append(types, tt)
		}
		if v == "" && strings.EqualFold(typ, tt) {
			v = ver // the version this tool reads the type with
		}
		vers[lt] = v
	}
	for _, c := range contents {
		id, _ := c["id"].(string)
		typ, _ := c["type"].(string)
		note(id, typ, "", false)
	}
	for _, k := range known {
		note(k.id, k.typ, k.ver, true)
	}
	var (
		mu     sync.Mutex
		out    []map[string]any
		failed []plan.CascadeItem
		g      errgroup.Group
	)
	g.SetLimit(cascadeListConcurrency)
	for _, tt := range types {
		ver := vers[strings.ToLower(tt)]
		if ver == "" {
			ver = src.NewestVersion(tt)
		}
		if ver == "" {
			continue // no api-version known: only the generic list can tell
		}
		coll := strings.TrimRight(rg, "/") + "/providers/" + tt
		g.Go(func() error {
			entries, err := lister.List(ctx, coll, ver)
			if err != nil {
				if errors.Is(err, ErrNotFound) || errors.Is(err, ErrMethodNotAllowed) {
					return nil // the group or the type's collection is not there
				}
				mu.Lock()
				failed = append(failed, plan.CascadeItem{ID: coll + " (listing failed: " + oneLine(err.Error()) + ")", Type: unknownType})
				mu.Unlock()
				return nil
			}
			mu.Lock()
			out = append(out, entries...)
			mu.Unlock()
			return nil
		})
	}
	_ = g.Wait()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	return out, failed, nil
}

// topLevelType is the type of the top-level resource of group rg that
// holds id (itself or an ancestor), "Namespace/type"; ok is false for an
// ID outside the group or the group itself.
// knownResource is a resource the plan or the state knows, with the
// api-version this tool reads it with.
type knownResource struct{ id, typ, ver string }

// knownByGroup indexes the plan's items and the state's records by
// resource group (armid.Key of the group's ID).
func knownByGroup(items []*item, sc planScope) map[string][]knownResource {
	out := map[string][]knownResource{}
	add := func(id, typ, ver string) {
		p, err := armid.Parse(id)
		if err != nil || p.Subscription == "" || p.ResourceGroup == "" {
			return
		}
		rg := armid.Key("/subscriptions/" + p.Subscription + "/resourceGroups/" + p.ResourceGroup)
		out[rg] = append(out[rg], knownResource{id, typ, ver})
	}
	for _, it := range items {
		add(it.id, it.typ, it.ver)
	}
	for _, r := range sc.recs {
		add(r.ID, r.Type, r.APIVersion)
	}
	return out
}

func topLevelType(rg, id string) (string, bool) {
	prefix := strings.TrimRight(rg, "/") + "/providers/"
	if len(id) <= len(prefix) || !strings.EqualFold(id[:len(prefix)], prefix) {
		return "", false
	}
	segs := strings.SplitN(id[len(prefix):], "/", 4)
	if len(segs) < 3 || segs[0] == "" || segs[1] == "" || segs[2] == "" {
		return "", false
	}
	return segs[0] + "/" + segs[1], true
}

// root is a resource whose children are listed; body, when known (the
// live body the plan read, or a listing's item), may carry child
// collections inline.
type root struct {
	id, typ, ver string
	body         map[string]any
}

// cascadeScan lists child resources below the roots.
type cascadeScan struct {
	e       *Engine
	managed map[string]bool
	sc      planScope
	// lister and src are the engine's destroyTools: required, never nil.
	lister Lister
	src    ChildTypeSource

	// roots are walked each on its own; a walk does not descend into
	// another root, whose own walk covers what is below it.
	roots map[string]root

	mu    sync.Mutex
	found map[string][]plan.CascadeItem // root key -> descendants found by listing
}

func (cs *cascadeScan) listChildren(ctx context.Context, roots map[string]root) error {
	src, lister := cs.src, cs.lister
	kids := cs.e.childTypes(src)
	cs.roots = roots
	var g errgroup.Group
	g.SetLimit(cascadeListConcurrency)
	for k, r := range roots {
		g.Go(func() error {
			var out []plan.CascadeItem
			cs.walk(ctx, src, kids, lister, r, 0, &out)
			cs.mu.Lock()
			cs.found[k] = out
			cs.mu.Unlock()
			return nil
		})
	}
	_ = g.Wait()
	return ctx.Err()
}

// walk lists every child type of r and descends into what it finds.
func (cs *cascadeScan) walk(ctx context.Context, src ChildTypeSource, kids map[string][]string, lister Lister, r root, depth int, out *[]plan.CascadeItem) {
	if depth >= maxCascadeDepth || ctx.Err() != nil {
		return
	}
	for _, ct := range kids[strings.ToLower(r.typ)] {
		seg := ct[strings.LastIndexByte(ct, '/')+1:]
		coll := strings.TrimRight(r.id, "/") + "/" + seg
		if schema.EveryServerCreated(ct) && len(kids[strings.ToLower(ct)]) == 0 {
			// Only children the service creates and deletes with the
			// parent, with nothing below them: nothing to find.
			continue
		}
		unknown := func(why string) {
			*out = append(*out, plan.CascadeItem{ID: coll + " (" + why + ")", Type: unknownType})
		}
		ver := cs.e.childVersion(src, ct, r)
		entries, ok := inlineChildren(r, seg)
		if !ok {
			var err error
			entries, err = lister.List(ctx, coll, ver)
			if err != nil {
				if errors.Is(err, ErrNotFound) || errors.Is(err, ErrMethodNotAllowed) {
					// No such collection (or the parent is gone): nothing there.
					continue
				}
				unknown("listing failed: " + oneLine(err.Error()))
				continue
			}
		}
		for _, c := range entries {
			cid, _ := c["id"].(string)
			x, perr := armid.Parse(cid)
			if perr != nil || !armid.Contains(r.id, cid) {
				unknown("an entry without a valid id inside it: " + armid.Printable(cid))
				continue
			}
			child := root{id: cid, typ: x.Type(), ver: ver, body: c}
			k := armid.Key(cid)
			*out = append(*out, plan.CascadeItem{ID: cid, Type: child.typ, Managed: cs.managed[k] || cs.declaredInline(r.id, seg),
				CreatedByAzure: cs.e.deleteRules().ServerCreated(child.typ, x.Name())})
			if _, isRoot := cs.roots[k]; isRoot {
				continue
			}
			cs.walk(ctx, src, kids, lister, child, depth+1, out)
		}
	}
}

// inlineChildren returns the child collection seg as r's body carries it
// (a vnet's properties.subnets, an NSG's properties.securityRules): the
// same items a listing returns, without the request. ok is false unless
// the body holds the collection and every item is a child of r with an
// id, so anything else is listed.
func inlineChildren(r root, seg string) (items []map[string]any, ok bool) {
	props, _ := r.body["properties"].(map[string]any)
	var arr []any
	found := false
	for name, v := range props {
		if strings.EqualFold(name, seg) {
			arr, found = v.([]any)
			break
		}
	}
	if !found {
		return nil, false
	}
	items = make([]map[string]any, 0, len(arr))
	for _, v := range arr {
		m, _ := v.(map[string]any)
		id, _ := m["id"].(string)
		if m == nil || !armid.Contains(r.id, id) || !strings.EqualFold(armid.TypeOf(id), r.typ+"/"+seg) {
			return nil, false
		}
		items = append(items, m)
	}
	return items, true
}

// declaredInline reports whether a managed parent declares the child
// collection in its own body (an NSG's securityRules, a vnet's subnets):
// those children are the parent manifest's, owned as a whole collection.
func (cs *cascadeScan) declaredInline(parentID, seg string) bool {
	k := armid.Key(parentID)
	if !cs.managed[k] {
		return false
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	var body map[string]any
	if it := cs.sc.byKey[k]; it != nil && it.res != nil {
		body = it.res.Body
	} else if r := cs.sc.recs[k]; r != nil {
		if cs.sc.bodies != nil && cs.sc.bodies.load(context.Background(), r) != nil {
			return false
		}
		body = r.LastApplied
	}
	props, _ := body["properties"].(map[string]any)
	for name := range props {
		if strings.EqualFold(name, seg) {
			return true
		}
	}
	return false
}

// childTypes indexes the schema's types by parent type, once per engine.
func (e *Engine) childTypes(src ChildTypeSource) map[string][]string {
	e.kidsOnce.Do(func() {
		e.kids = map[string][]string{}
		for _, t := range src.Types() {
			i := strings.LastIndexByte(t, '/')
			if i < 0 || strings.Count(t, "/") < 2 {
				continue // a top-level type has no parent type
			}
			p := strings.ToLower(t[:i])
			e.kids[p] = append(e.kids[p], t)
		}
	})
	return e.kids
}

// childVersion lists a child collection with the parent's api-version when
// the child type has it (they are usually published together), else the
// child's newest.
func (e *Engine) childVersion(src ChildTypeSource, childType string, parent root) string {
	if parent.ver != "" && src.HasVersion(childType, parent.ver) {
		return parent.ver
	}
	return src.NewestVersion(childType)
}

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// dropCascaded forgets the state records of resources ARM deleted with
// it, once the delete is confirmed. Resources handled by their own item in
// this run keep their records until that item decides.
func (e *Engine) dropCascaded(ctx context.Context, p *Prepared, it *item) error {
	own := p.ownKeys()
	for _, c := range it.planned.Cascade {
		k := armid.Key(c.ID)
		if own[k] || p.records[k] == nil {
			continue
		}
		if err := e.Store.Delete(ctx, c.ID); err != nil {
			return fmt.Errorf("forgetting %s, deleted by ARM with %s: %w", armid.Printable(c.ID), it.display(), err)
		}
	}
	return nil
}

// ownKeys is the set of the plan's item keys, built once: a delete of many
// resources used to rebuild it per deleted resource (quadratic).
func (p *Prepared) ownKeys() map[string]bool {
	p.ownOnce.Do(func() {
		p.own = make(map[string]bool, len(p.items))
		for _, x := range p.items {
			p.own[x.key] = true
		}
	})
	return p.own
}
