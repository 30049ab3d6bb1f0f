package arm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
)

// Collection reads. A plan reads the live state S of every managed
// resource; one GET each spends a read token per resource, while one list
// per (parent, type, api-version) returns many resources per request. A
// list item is used as S only when it carries everything the diff needs;
// otherwise, and whenever a list cannot be trusted, the resource is read
// with a GET. docs/arm-client.md describes the rules.

// DefaultMinListGroup is the smallest group read by a collection GET.
// A list costs at least one request and its pages carry every sibling,
// not only ours; for one or two resources their GETs cost as much and
// never fall back.
const DefaultMinListGroup = 3

// ReadRequest is one resource to read.
type ReadRequest struct {
	ID         string
	APIVersion string
	// Need are the owned body paths the diff compares, in pkg/diff's
	// display syntax (properties.subnets[name=a].properties.addressPrefix,
	// tags."a.b"). A list item lacking any of them is not used.
	Need []string
	// Envelope lets ARM's generic resource list serve the read when every
	// Need path lies in the envelope it carries (location, tags, sku,
	// kind, plan, extendedLocation, managedBy): its items hold no
	// properties, so the caller must know the rest of the body from its
	// own record and read in full anything it will write. See
	// genericEnvelope.
	Envelope bool
	// WrittenAt is when this tool last wrote the resource (zero: unknown).
	// The generic list does not serve a resource written less than
	// ReadManyOptions.CacheLag ago: ARM's cache may not show that write
	// yet.
	WrittenAt time.Time
}

// ReadResult is the live state of one requested resource.
type ReadResult struct {
	ID string
	// Body is the resource as ARM returned it (numbers as json.Number);
	// nil when it does not exist or the read failed.
	Body map[string]any
	Etag string
	// Exists is false after a 404 (then Err is nil).
	Exists bool
	Err    error
	// Via is "get", "list" or "generic": how Body was read.
	Via string
}

// Via values of ReadResult. A ViaGeneric body is the generic list's
// envelope only (no properties, no etag).
const (
	ViaGet     = "get"
	ViaList    = "list"
	ViaGeneric = "generic"
)

// ReadManyOptions tunes ReadMany.
type ReadManyOptions struct {
	// Disable reads every resource with its own GET.
	Disable bool
	// MinGroup is the smallest group read by a list (0: DefaultMinListGroup).
	MinGroup int
	// NoSubscriptionLists keeps lists to resource groups and parents
	// (no /subscriptions/{id}/providers/{ns}/{type} lists).
	NoSubscriptionLists bool
	// Session, when set, carries subscription-wide list pages from one
	// ReadMany call to the next: a caller that reads a large set in
	// chunks (for memory) then pages each type's list once instead of
	// from its first page in every chunk. One session serves one
	// read-only pass (a plan); never carry it across writes.
	Session *ReadSession
	// CacheLag is how long ARM's generic resource list may lag a write
	// (0: DefaultCacheLag; negative: it never lags, as with an emulator
	// that models no cache).
	CacheLag time.Duration
}

// DefaultCacheLag is how recent a write keeps a resource out of ARM's
// generic resource list. That list is served from ARM's cache of tracked
// resources, which follows writes with a delay: seconds in the reports
// found (Azure/azure-cli issue 29566: new tags of a disk visible "after
// a couple of seconds"; Azure/ARO-RP pull request 1398: resources listed
// from an out-of-date cache). Five minutes is a wide margin over them; a
// plan right after an apply reads those resources the exact way instead.
const DefaultCacheLag = 5 * time.Minute

// Generic resource list: /subscriptions/{id}/resources, filtered by type.
const (
	// genericListAPIVersion is the Microsoft.Resources api-version of the
	// generic list (stable since 2021-04-01, which every cloud serves).
	genericListAPIVersion = "2021-04-01"
	// genericPageGuess is its page size until a page shows another: 1,000
	// (azure-sdk-for-js issue 18535; $top above 1,000 is refused).
	genericPageGuess = 1000
	// genericKey is the pageSizes key of the generic list.
	genericKey = "resources"
)

// genericEnvelope are the members of a resource that ARM's generic list
// carries as a GET does (GenericResource in the Microsoft.Resources
// specification): a read whose every Need path starts with one of them may
// come from the list. identity is left out: its user-assigned map is keyed
// by resource IDs whose casing the list need not keep.
var genericEnvelope = map[string]bool{
	"location": true, "tags": true, "sku": true, "kind": true,
	"plan": true, "extendedLocation": true, "managedBy": true,
}

// envelopeOnly reports whether every path lies in genericEnvelope.
func envelopeOnly(paths []string) bool {
	for _, p := range paths {
		segs, err := bodypath.Parse(p)
		if err != nil || len(segs) == 0 || segs[0].Kind != bodypath.Member || !genericEnvelope[segs[0].Name] {
			return false
		}
	}
	return true
}

// ReadSession holds what subscription-wide lists returned so far, for
// ReadManyOptions.Session. The zero value is not usable: use
// NewReadSession. Safe for concurrent use.
type ReadSession struct {
	mu    sync.Mutex
	lists map[string]*sessionList
	// expect counts the top-level resources of each subscription and
	// type the whole pass reads (Expect), so that each chunk chooses the
	// type's lists for the pass rather than for itself alone; generic
	// keeps that choice for the generic list, per subscription and type.
	expect  map[string]int
	generic map[string]bool
}

// NewReadSession returns an empty session.
func NewReadSession() *ReadSession {
	return &ReadSession{lists: map[string]*sessionList{}, expect: map[string]int{}, generic: map[string]bool{}}
}

// Expect tells the session every resource the pass will read (only ID
// matters), before its first ReadMany.
func (s *ReadSession) Expect(reqs []ReadRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range reqs {
		if id, err := armid.Parse(r.ID); err == nil && len(id.Types) == 1 && id.ResourceGroup != "" {
			s.expect[typeKey(id.Subscription, id.Type())]++
		}
	}
}

// typeKey keys a session's per-type memory.
func typeKey(sub, typ string) string { return strings.ToLower(sub + "|" + typ) }

// passChoice returns the pass's choice for the generic list of a type, and
// the members the pass reads of it (0: unknown).
func (s *ReadSession) passChoice(key string) (choice, decided bool, expect int) {
	if s == nil {
		return false, false, 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	choice, decided = s.generic[key]
	return choice, decided, s.expect[key]
}

func (s *ReadSession) choose(key string, generic bool) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.generic[key] = generic
	s.mu.Unlock()
}

// sessionList is one subscription-wide list read so far: the items not
// yet handed out, and where paging resumes.
type sessionList struct {
	mu      sync.Mutex
	items   map[string]map[string]any // armid.Key(id) -> item
	started bool
	next    string // URL of the next page; "" once started means complete
	seen    int    // items on the pages read so far
}

// begun reports whether the list's first page was read (nil: no session).
func (l *sessionList) begun() bool {
	if l == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.started
}

func (s *ReadSession) list(collection, apiVersion string) *sessionList {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := armid.Key(collection) + "?" + strings.ToLower(apiVersion)
	l := s.lists[key]
	if l == nil {
		l = &sessionList{items: map[string]map[string]any{}}
		s.lists[key] = l
	}
	return l
}

// listPageGuess is the page size the planner assumes for a type whose
// list it has not seen paged yet: ARM's providers commonly page at 100.
// Once a page of the type came with a nextLink, its item count is used
// instead (pageSize).
const listPageGuess = 100

// listedType is the lower-cased resource type a collection path lists
// ("microsoft.network/routetables" for a group's or the subscription's
// routeTables, ".../virtualnetworks/subnets" for a vnet's subnets, the
// resource-group type for the subscription's groups).
func listedType(collection string) string {
	p, ok := armid.ParsePath(collection)
	if ok && (p.Kind == armid.PathSubscriptionResources || p.Kind == armid.PathGroupResources) {
		return genericKey
	}
	if !ok || p.Kind != armid.PathCollection && p.Kind != armid.PathResourceGroups {
		return ""
	}
	return strings.ToLower(p.Type())
}

// notePage learns a type's page size from a list page: a page followed by
// a nextLink is a full page (the largest such page seen counts, in case a
// provider sends a short page before the end).
func (c *Client) notePage(collection string, items int, more bool) {
	if !more || items <= 0 {
		return
	}
	typ := listedType(collection)
	if typ == "" {
		return
	}
	if old, ok := c.pageSizes.Load(typ); ok && old.(int) >= items {
		return
	}
	c.pageSizes.Store(typ, items)
}

// noteListSize records how many items a subscription-wide list holds:
// exactly when it was read to its end, else more than the seen ones.
func (c *Client) noteListSize(collection string, seen int, complete bool) {
	key := armid.Key(collection)
	if !complete {
		seen++
		if old, ok := c.listSizes.Load(key); ok && old.(int) >= seen {
			return
		}
	}
	c.listSizes.Store(key, seen)
}

// listSize is what noteListSize recorded for a collection (0: nothing).
func (c *Client) listSize(collection string) int {
	if n, ok := c.listSizes.Load(armid.Key(collection)); ok {
		return n.(int)
	}
	return 0
}

// pageSize is the items per page the planner expects of typ's lists.
func (c *Client) pageSize(typ string) int {
	if n, ok := c.pageSizes.Load(strings.ToLower(typ)); ok {
		return n.(int)
	}
	return listPageGuess
}

// reducedListTypes are types whose list items are not the resource as a
// GET returns it although the members are there, so a Need check cannot
// tell. Each entry with its evidence:
//   - Microsoft.Web/sites and sites/slots: the list operations return
//     siteConfig with every member null, by design to keep list payloads
//     small (Azure/azure-powershell#4841, App Service team's answer); a
//     GET of the site fills part of it.
var reducedListTypes = map[string]bool{
	"microsoft.web/sites":       true,
	"microsoft.web/sites/slots": true,
}

// ReadMany reads the live state of many resources, by collection where
// that is cheaper, and returns one result per request in the same order.
// Every request goes through the Client's pacing and concurrency limits.
//
// The plan, per resource type and api-version in a subscription: the
// cheaper of one subscription-wide list (/subscriptions/{id}/providers/
// {ns}/{type}, ceil(members/page) pages expected) and the per-group plan
// (a list per resource group holding at least MinGroup members, paged
// too, a GET for each other member). page is the type's page size as
// this Client saw it (100 until a list of the type came paged). Child resources are listed per parent, groups of
// MinGroup or more; resource groups through the subscription's list of
// groups (MinGroup or more); everything else is read by GET. A subscription list
// stops paging once it costs as much as the per-group plan, and what it
// did not serve is read the per-group way; members a complete list lacks
// get a GET (lists can lag writes), unless the list held none of several
// members, which means the endpoint does not really list the type
// subscription-wide: they are read per group, and the type is not listed
// that way again by this Client.
func (c *Client) ReadMany(ctx context.Context, reqs []ReadRequest, opt ReadManyOptions) []ReadResult {
	out := make([]ReadResult, len(reqs))
	minGroup := opt.MinGroup
	if minGroup <= 0 {
		minGroup = DefaultMinListGroup
	}
	type typeGroup struct {
		sub, typ, apiVersion string
		members              []int
	}
	groups := map[string]*readGroup{}
	types := map[string]*typeGroup{}
	var singles []int
	for i, r := range reqs {
		out[i] = ReadResult{ID: r.ID, Via: ViaGet}
		id, err := armid.Parse(r.ID)
		if err != nil {
			out[i].Err = err
			continue
		}
		if !opt.Disable && id.IsResourceGroup() && id.Subscription != "" {
			// The subscription's resource-group list carries what a GET of
			// each group does (location, tags, managedBy, state).
			addToGroup(groups, "/subscriptions/"+id.Subscription+"/resourcegroups", r.APIVersion, i)
			continue
		}
		coll, ok := collectionOf(id)
		if opt.Disable || !ok || reducedListTypes[strings.ToLower(id.Type())] {
			singles = append(singles, i)
			continue
		}
		if len(id.Types) == 1 && !opt.NoSubscriptionLists {
			key := strings.ToLower(id.Subscription + "|" + id.Type() + "|" + r.APIVersion)
			tg := types[key]
			if tg == nil {
				tg = &typeGroup{sub: id.Subscription, typ: id.Type(), apiVersion: r.APIVersion}
				types[key] = tg
			}
			tg.members = append(tg.members, i)
			continue
		}
		addToGroup(groups, coll, r.APIVersion, i)
	}

	// Top-level types: the generic list for what it can serve, then a
	// subscription-wide list of the type where it beats the per-group
	// plan.
	now := time.Now()
	var subLists []*readGroup
	for _, tg := range types {
		page := c.pageSize(tg.typ)
		coll := "/subscriptions/" + tg.sub + "/providers/" + tg.typ
		sl := opt.Session.list(coll, tg.apiVersion)
		listed := c.listSize(coll)
		if sl.begun() {
			listed = 0 // pages a session already read cost nothing again
		}
		if g := c.planGeneric(reqs, tg.members, tg.sub, tg.typ, page, listed, minGroup, now, opt); g != nil {
			subLists = append(subLists, g)
			tg.members = g.rest
			if len(tg.members) == 0 {
				continue
			}
		}
		alt := perGroupCost(reqs, tg.members, minGroup, page)
		// The list holds the subscription's other resources of the type
		// too, as many as an earlier read saw.
		n := max(len(tg.members), listed)
		if alt > pagesFor(n, page) && !c.noSubList(tg.typ) {
			subLists = append(subLists, &readGroup{
				collection: coll, apiVersion: tg.apiVersion, members: tg.members, maxPages: alt - 1, subscription: true,
				session: sl,
			})
			continue
		}
		for _, i := range tg.members {
			id, _ := armid.Parse(reqs[i].ID)
			coll, _ := collectionOf(id)
			addToGroup(groups, coll, reqs[i].APIVersion, i)
		}
	}
	lists, small := splitGroups(groups, minGroup)
	singles = append(singles, small...)
	lists = append(lists, subLists...)

	// Up to three bounded phases: the lists (with the GETs that need no
	// list); the per-group lists of what subscription lists did not
	// serve; the GETs nothing else could serve. The pipeline bounds
	// in-flight requests anyway; the limit only caps waiting goroutines.
	var mu sync.Mutex
	var fallback, replan []int
	run(ctx, c.Concurrency(), len(lists)+len(singles), func(ctx context.Context, n int) {
		if n >= len(lists) {
			i := singles[n-len(lists)]
			c.readOne(ctx, reqs[i], &out[i])
			return
		}
		g := lists[n]
		rest, regroup := c.readGroup(ctx, g, reqs, out, minGroup)
		mu.Lock()
		fallback = append(fallback, rest...)
		replan = append(replan, regroup...)
		mu.Unlock()
	})
	if len(replan) > 0 {
		again := map[string]*readGroup{}
		for _, i := range replan {
			id, _ := armid.Parse(reqs[i].ID)
			coll, _ := collectionOf(id)
			addToGroup(again, coll, reqs[i].APIVersion, i)
		}
		lists, small := splitGroups(again, minGroup)
		fallback = append(fallback, small...)
		run(ctx, c.Concurrency(), len(lists), func(ctx context.Context, n int) {
			rest, _ := c.readGroup(ctx, lists[n], reqs, out, minGroup)
			mu.Lock()
			fallback = append(fallback, rest...)
			mu.Unlock()
		})
	}
	run(ctx, c.Concurrency(), len(fallback), func(ctx context.Context, n int) {
		i := fallback[n]
		c.readOne(ctx, reqs[i], &out[i])
	})
	return out
}

func addToGroup(groups map[string]*readGroup, coll, apiVersion string, i int) {
	key := armid.Key(coll) + "?" + strings.ToLower(apiVersion)
	g := groups[key]
	if g == nil {
		g = &readGroup{collection: coll, apiVersion: apiVersion}
		groups[key] = g
	}
	g.members = append(g.members, i)
}

// splitGroups returns the groups worth a list, in a deterministic order
// (for logs and tests), and the members of the others.
func splitGroups(groups map[string]*readGroup, minGroup int) (lists []*readGroup, singles []int) {
	keys := make([]string, 0, len(groups))
	for k, g := range groups {
		if len(g.members) < minGroup {
			singles = append(singles, g.members...)
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	sort.Ints(singles)
	for _, k := range keys {
		lists = append(lists, groups[k])
	}
	return lists, singles
}

// perGroupCost counts the requests of reading members the per-group
// way: a list per group of at least minGroup members (ceil(n/page)
// pages), one GET for each other member.
func perGroupCost(reqs []ReadRequest, members []int, minGroup, page int) (cost int) {
	groups := map[string]int{}
	for _, i := range members {
		id, _ := armid.Parse(reqs[i].ID)
		groups[strings.ToLower(id.ResourceGroup)]++
	}
	for _, n := range groups {
		if n >= minGroup {
			cost += pagesFor(n, page)
		} else {
			cost += n
		}
	}
	return cost
}

// typeCost is the cheaper way to read members of one top-level type: a
// subscription-wide list (listed: the items it held when last read) or
// the per-group plan.
func (c *Client) typeCost(reqs []ReadRequest, members []int, typ string, page, listed, minGroup int) int {
	if len(members) == 0 {
		return 0
	}
	cost := perGroupCost(reqs, members, minGroup, page)
	if !c.noSubList(typ) {
		cost = min(cost, pagesFor(max(len(members), listed), page))
	}
	return cost
}

// planGeneric picks the members of one top-level type that ARM's generic
// list may serve (Envelope set, every Need path in the envelope, not
// written within the cache lag) and returns a list of them when that,
// plus reading the others the usual way, costs fewer requests than
// reading all of them the usual way; nil otherwise. Its rest are the
// members left to the usual plan.
func (c *Client) planGeneric(reqs []ReadRequest, members []int, sub, typ string, page, listed, minGroup int, now time.Time, opt ReadManyOptions) *readGroup {
	if c.noGeneric(typ) {
		return nil
	}
	lag := opt.CacheLag
	if lag == 0 {
		lag = DefaultCacheLag
	}
	var gen, rest []int
	for _, i := range members {
		r := reqs[i]
		fresh := lag > 0 && !r.WrittenAt.IsZero() && now.Sub(r.WrittenAt) < lag
		if r.Envelope && !fresh && envelopeOnly(r.Need) {
			gen = append(gen, i)
		} else {
			rest = append(rest, i)
		}
	}
	key := typeKey(sub, typ)
	choice, decided, expect := opt.Session.passChoice(key)
	if len(gen) == 0 || decided && !choice {
		return nil
	}
	coll, filter := genericCollection(sub, typ)
	sl := opt.Session.list(coll+"?"+filter, genericListAPIVersion)
	n := len(gen)
	if !sl.begun() {
		n = max(n, c.listSize(coll+"?"+filter))
	}
	pages := pagesFor(n, c.genericPageSize())
	usual := c.typeCost(reqs, gen, typ, page, listed, minGroup)
	switch {
	case decided:
	case expect > len(members):
		// One chunk of a longer pass: judge the pass, scaling this
		// chunk's share of envelope reads to it, with the lists a pass
		// of that size reads (each paged once through the session).
		passGen := (expect*len(gen) + len(members) - 1) / len(members)
		cost := pagesFor(max(passGen, c.listSize(coll+"?"+filter)), c.genericPageSize())
		if expect > passGen {
			cost += pagesFor(expect-passGen, page)
		}
		cheaper := cost < pagesFor(max(expect, listed), page)
		opt.Session.choose(key, cheaper)
		if !cheaper {
			return nil
		}
	case pages+c.typeCost(reqs, rest, typ, page, listed, minGroup) >= c.typeCost(reqs, members, typ, page, listed, minGroup):
		return nil
	}
	return &readGroup{collection: coll, filter: filter, apiVersion: genericListAPIVersion, members: gen, rest: rest,
		maxPages: max(pages, usual-1), subscription: true, generic: true, session: sl}
}

// genericCollection is the generic list of a subscription, and the
// filter (a raw query) that keeps one type of it.
func genericCollection(sub, typ string) (coll, filter string) {
	// Spaces as %20: a "+" means a space only to some servers' query
	// parsers. provisioningState (top-level in the item) lets the caller
	// tell a resource left Failed from a healthy one.
	return "/subscriptions/" + sub + "/resources", "$filter=" + strings.ReplaceAll(url.QueryEscape("resourceType eq '"+typ+"'"), "+", "%20") + "&$expand=provisioningState"
}

// firstPage is the URL of a group's first page.
func (c *Client) firstPage(g *readGroup) string {
	u := c.urlOf(g.collection, g.apiVersion)
	if g.filter != "" {
		u.RawQuery = g.filter + "&" + u.RawQuery
	}
	return u.String()
}

// sizeKey is what a group's list size is kept under.
func (g *readGroup) sizeKey() string {
	if g.filter == "" {
		return g.collection
	}
	return g.collection + "?" + g.filter
}

// genericPageSize is the generic list's page size as seen, or the guess.
func (c *Client) genericPageSize() int {
	if n, ok := c.pageSizes.Load(genericKey); ok {
		return n.(int)
	}
	return genericPageGuess
}

// noGeneric reports a type the generic list did not hold on this endpoint
// (ARM lists only tracked resources there).
func (c *Client) noGeneric(typ string) bool {
	_, ok := c.noGenericLists.Load(strings.ToLower(typ))
	return ok
}

// pagesFor is the expected pages of a list holding n members (more if
// the collection holds others of the type).
func pagesFor(n, page int) int { return max(1, (n+page-1)/max(page, 1)) }

// noSubList reports a type whose subscription-wide list held none of
// several existing members on this endpoint.
func (c *Client) noSubList(typ string) bool {
	_, ok := c.noSubLists.Load(strings.ToLower(typ))
	return ok
}

// run calls f for 0..n-1 with at most limit calls at a time. It is the
// package's one way to fan out work.
func run(ctx context.Context, limit, n int, f func(ctx context.Context, i int)) {
	var eg errgroup.Group
	eg.SetLimit(max(limit, 1))
	for i := range n {
		eg.Go(func() error { f(ctx, i); return nil })
	}
	_ = eg.Wait()
}

type readGroup struct {
	collection string
	apiVersion string
	members    []int
	// maxPages bounds paging (0: one page fewer than members, the cost
	// of their GETs). subscription marks a subscription-wide list.
	maxPages     int
	subscription bool
	// session, for a subscription-wide list, resumes from pages earlier
	// ReadMany calls of the same ReadSession read.
	session *sessionList
	// generic marks ARM's generic list of one type (collection carries
	// its filter); its items are envelopes only. rest are the members of
	// the type the plan left to other reads.
	generic bool
	filter  string
	rest    []int
}

// readGroup lists one collection, fills the results its items serve, and
// returns the members that still need a GET (rest) or, after a
// subscription-wide list that could not serve them, a per-group read
// (regroup).
func (c *Client) readGroup(ctx context.Context, g *readGroup, reqs []ReadRequest, out []ReadResult, minGroup int) (rest, regroup []int) {
	want := make(map[string]bool, len(g.members))
	for _, i := range g.members {
		want[armid.Key(reqs[i].ID)] = true
	}
	byID := make(map[string]map[string]any, len(g.members))
	// Paging stops once every member was seen, and before the pages
	// would cost more requests than the alternative: a group of 3 in a
	// collection of 5,000 siblings is read by GET after 2 pages.
	maxPages := g.maxPages
	if maxPages <= 0 {
		maxPages = len(g.members) - 1
	}
	var complete bool
	var err error
	seen := 0
	if g.session != nil {
		complete, seen, err = c.sessionPages(ctx, g, want, byID, maxPages)
	} else {
		complete, err = c.listPages(ctx, g.collection, c.firstPage(g), maxPages, func(page []map[string]any) bool {
			seen += len(page)
			for _, it := range page {
				if id, ok := it["id"].(string); ok && want[armid.Key(id)] {
					byID[armid.Key(id)] = it
				}
			}
			return len(byID) == len(want)
		})
	}
	if err == nil && g.subscription {
		c.noteListSize(g.sizeKey(), seen, complete)
	}
	if err != nil {
		// A collection without a list operation, a list permission the
		// identity lacks, a parent that does not exist: GETs (or the
		// per-group lists) will say what is true of each resource.
		if g.subscription {
			return nil, g.members
		}
		return g.members, nil
	}
	var missing []int
	for _, i := range g.members {
		it := byID[armid.Key(reqs[i].ID)]
		if it == nil {
			missing = append(missing, i)
			continue
		}
		if !hasAll(it, reqs[i].Need) {
			// Incomplete: the GET has the full body.
			rest = append(rest, i)
			continue
		}
		via := ViaList
		if g.generic {
			via = ViaGeneric
		}
		out[i] = ReadResult{ID: reqs[i].ID, Body: it, Etag: etagOf(it), Exists: true, Via: via}
	}
	if g.subscription && len(missing) > 0 {
		switch {
		case !complete:
			// Paging stopped at the per-group plan's cost.
			return rest, missing
		case len(byID) == 0 && len(missing) >= minGroup:
			// None of several members: the endpoint does not list this
			// type subscription-wide (or lists something else; the
			// generic list holds tracked resources only).
			if id, err := armid.Parse(reqs[g.members[0]].ID); err == nil {
				seen := &c.noSubLists
				if g.generic {
					seen = &c.noGenericLists
				}
				seen.Store(strings.ToLower(id.Type()), true)
			}
			return rest, missing
		}
	}
	// Missing from a complete list: a GET confirms the 404 (lists can lag
	// behind writes).
	return append(rest, missing...), nil
}

// sessionPages serves a subscription-wide list's members from the pages
// its session already read, and pages on from where the session stopped
// (at most maxPages new pages) while members are missing. Items handed out
// leave the session, so it holds only what no chunk asked for yet.
// complete reports that the list was read to its end; seen counts the
// items of every page the session read.
func (c *Client) sessionPages(ctx context.Context, g *readGroup, want map[string]bool, byID map[string]map[string]any, maxPages int) (complete bool, seen int, err error) {
	sl := g.session
	sl.mu.Lock()
	defer sl.mu.Unlock()
	take := func() {
		for k := range want {
			if it, ok := sl.items[k]; ok {
				byID[k] = it
				delete(sl.items, k)
			}
		}
	}
	take()
	ctx, cancel := c.opCtx(ctx)
	defer cancel()
	for pages := 0; len(byID) < len(want) && (!sl.started || sl.next != ""); pages++ {
		if pages >= maxPages {
			return false, sl.seen, nil
		}
		next := sl.next
		if !sl.started {
			next = c.firstPage(g)
		}
		resp, err := c.send(ctx, http.MethodGet, g.collection, next, nil, nil)
		if err != nil {
			return false, sl.seen, err
		}
		pg, err := decodePage(resp.Raw)
		if err != nil {
			return false, sl.seen, &DecodeError{Method: http.MethodGet, ID: g.collection, StatusCode: resp.StatusCode,
				ContentType: safeLine(resp.Header.Get("Content-Type"), 80), Reason: "a list answer must be {\"value\": [...]}: " + decodeReason(c.opts.Secrets, resp.Raw, err)}
		}
		link := ""
		if pg.NextLink != "" {
			if link, err = c.checkNextLink(pg.NextLink); err != nil {
				return false, sl.seen, fmt.Errorf("GET %s: %w", g.collection, err)
			}
		}
		c.notePage(g.collection, len(pg.Value), link != "")
		sl.seen += len(pg.Value)
		for _, it := range pg.Value {
			if id, ok := it["id"].(string); ok {
				sl.items[armid.Key(id)] = it
			}
		}
		sl.started, sl.next = true, link
		take()
	}
	return sl.started && sl.next == "", sl.seen, nil
}

func (c *Client) readOne(ctx context.Context, r ReadRequest, res *ReadResult) {
	resp, err := c.Get(ctx, r.ID, r.APIVersion)
	res.Via = ViaGet
	switch {
	case IsNotFound(err):
		res.Exists = false
	case err != nil:
		res.Err = err
	default:
		res.Body, res.Etag, res.Exists = resp.Body, resp.ETag, true
	}
}

func etagOf(body map[string]any) string {
	e, _ := body["etag"].(string)
	return e
}

// collectionOf returns the collection path that lists id's siblings:
// resourceGroups/{rg}/providers/{ns}/{type} for a top-level resource,
// {parentID}/{childType} for a child. Subscription-level, tenant-level
// and extension resources, and resource groups, are read by GET: their
// collections span other scopes (role assignments list inherited ones,
// a subscription-level path lists every group's resources).
func collectionOf(id armid.ID) (string, bool) {
	if id.ResourceGroup == "" || len(id.Types) == 0 || id.IsResourceGroup() {
		return "", false
	}
	if scope, err := armid.Parse(id.Scope); err != nil || !scope.IsResourceGroup() {
		return "", false // extension resource (or a child of one)
	}
	parent, ok := id.Parent()
	if !ok {
		return "", false
	}
	if len(id.Types) == 1 {
		return parent.String() + "/providers/" + id.Provider + "/" + id.Types[0], true
	}
	return parent.String() + "/" + id.Types[len(id.Types)-1], true
}

// hasAll reports whether body has a non-null value at every path.
func hasAll(body map[string]any, paths []string) bool {
	for _, p := range paths {
		segs, err := bodypath.Parse(p)
		if err != nil || !present(body, segs) {
			return false
		}
	}
	return true
}

// present walks p through v; any missing or null step is false. Members
// match case-insensitively, "*" and [*] mean every member or item, and an
// item given by value only matches its name or id.
func present(v any, p bodypath.Path) bool {
	if v == nil {
		return false
	}
	if len(p) == 0 {
		return true
	}
	s, rest := p[0], p[1:]
	switch t := v.(type) {
	case map[string]any:
		name, ok := memberOf(s)
		if !ok {
			return false
		}
		if name == "*" && s.Kind != bodypath.Keyed {
			for _, val := range t {
				if !present(val, rest) {
					return false
				}
			}
			return len(t) > 0 || len(rest) == 0
		}
		val, ok := t[name]
		if !ok {
			for k, x := range t {
				if strings.EqualFold(k, name) {
					val, ok = x, true
					break
				}
			}
		}
		return ok && present(val, rest)
	case []any:
		switch s.Kind {
		case bodypath.AnyItem:
			for _, it := range t {
				if !present(it, rest) {
					return false
				}
			}
			return true
		case bodypath.Index:
			return s.Index < len(t) && present(t[s.Index], rest)
		case bodypath.Keyed:
			for _, it := range t {
				if matches(it, s) {
					return present(it, rest)
				}
			}
		}
	}
	return false
}

// memberOf is the member a segment names in an object: a member, "*" for
// [*], or the value of ["a.b"].
func memberOf(s bodypath.Seg) (string, bool) {
	switch {
	case s.Kind == bodypath.Member:
		return s.Name, true
	case s.Kind == bodypath.AnyItem:
		return "*", true
	case s.Kind == bodypath.Keyed && len(s.Keys) == 0 && len(s.Values) == 1:
		return s.Values[0], true
	}
	return "", false
}

// matches reports whether an array item has the identifier values of s;
// a value without a name matches the item's name or id.
func matches(item any, s bodypath.Seg) bool {
	m, ok := item.(map[string]any)
	if !ok {
		return false
	}
	for k, want := range s.Values {
		if len(s.Keys) != len(s.Values) {
			n, _ := m["name"].(string)
			id, _ := m["id"].(string)
			if !strings.EqualFold(n, want) && !armid.Equal(id, want) {
				return false
			}
			continue
		}
		if !strings.EqualFold(stringOf(m[s.Keys[k]]), want) {
			return false
		}
	}
	return true
}

// stringOf renders an identifier value for comparison with a path's.
func stringOf(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case json.Number:
		return t.String()
	case bool:
		return strconv.FormatBool(t)
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}
