package arm

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// listingARM is a fake ARM holding resources that answers GETs of each,
// per-group lists and subscription-wide lists
// (/subscriptions/{id}/providers/{ns}/{type}), paged at pageSize, the way
// ARM does. subWide=false answers subscription-wide lists empty (as an
// endpoint that does not list the type there).
type listingARM struct {
	*fakeARM
	mu       sync.Mutex
	byID     map[string]map[string]any
	pageSize int
	subWide  bool
}

func newListingARM(t *testing.T, pageSize int, subWide bool) *listingARM {
	l := &listingARM{fakeARM: newFakeARM(t), byID: map[string]map[string]any{}, pageSize: pageSize, subWide: subWide}
	l.srv.Config.Handler = http.HandlerFunc(l.serve)
	return l
}

func (l *listingARM) add(id string, body map[string]any) {
	body["id"] = id
	l.mu.Lock()
	l.byID[strings.ToLower(id)] = body
	l.mu.Unlock()
}

func (l *listingARM) serve(w http.ResponseWriter, r *http.Request) {
	l.fakeARM.mu.Lock()
	l.seen = append(l.seen, seenReq{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery})
	l.fakeARM.mu.Unlock()
	path := strings.ToLower(r.URL.Path)
	l.mu.Lock()
	defer l.mu.Unlock()
	if b, ok := l.byID[path]; ok {
		writeJSON(w, 200, b)
		return
	}
	// A collection: every resource whose ID is path + "/" + name, or,
	// subscription-wide, every resource of the type in the subscription.
	segs := strings.Split(strings.Trim(path, "/"), "/")
	var items []string
	for id := range l.byID {
		switch {
		case strings.HasPrefix(id, path+"/") && !strings.Contains(id[len(path)+1:], "/"):
			items = append(items, id)
		case len(segs) == 5 && segs[2] == "providers" && l.subWide:
			sub, typ := "/subscriptions/"+segs[1]+"/resourcegroups/", "/providers/"+segs[3]+"/"+segs[4]+"/"
			if strings.HasPrefix(id, sub) && strings.Contains(id, typ) && !strings.Contains(id[strings.Index(id, typ)+len(typ):], "/") {
				items = append(items, id)
			}
		}
	}
	if len(items) == 0 && (!strings.Contains(path, "/providers/") || len(segs) == 8) {
		w.WriteHeader(404)
		fmt.Fprint(w, `{"error":{"code":"ResourceNotFound"}}`)
		return
	}
	sort.Strings(items)
	start, _ := strconv.Atoi(r.URL.Query().Get("$skiptoken"))
	end := min(start+l.pageSize, len(items))
	page := map[string]any{"value": []any{}}
	var vals []any
	for _, id := range items[start:end] {
		vals = append(vals, l.byID[id])
	}
	if vals != nil {
		page["value"] = vals
	}
	if end < len(items) {
		page["nextLink"] = fmt.Sprintf("http://%s%s?api-version=%s&$skiptoken=%d", r.Host, r.URL.Path, testAPI, end)
	}
	writeJSON(w, 200, page)
}

// mixed seeds groups x types the way issue 34's layout does: every group
// holds one or two resources of each of several types.
func (l *listingARM) mixed(groups int, types []string, perType int) []ReadRequest {
	var reqs []ReadRequest
	for g := range groups {
		rg := fmt.Sprintf("/subscriptions/%s/resourceGroups/rg-%03d", testSub, g)
		l.add(rg, map[string]any{"name": fmt.Sprintf("rg-%03d", g), "location": "westeurope"})
		reqs = append(reqs, ReadRequest{ID: rg, APIVersion: "2021-04-01", Need: []string{"location"}})
		for _, typ := range types {
			for n := range perType {
				id := fmt.Sprintf("/subscriptions/%s/resourceGroups/rg-%03d/providers/%s/r-%d", testSub, g, typ, n)
				l.add(id, map[string]any{"name": fmt.Sprintf("r-%d", n), "location": "westeurope", "tags": map[string]any{"g": strconv.Itoa(g)}})
				reqs = append(reqs, ReadRequest{ID: id, APIVersion: testAPI, Need: []string{"location", "tags.g"}})
			}
		}
	}
	return reqs
}

var mixedTypes = []string{
	"Microsoft.Network/networkSecurityGroups", "Microsoft.Network/publicIPAddresses", "Microsoft.Network/routeTables",
	"Microsoft.Network/applicationSecurityGroups", "Microsoft.Network/virtualNetworks", "Microsoft.ManagedIdentity/userAssignedIdentities",
	"Microsoft.Storage/storageAccounts", "Microsoft.Network/networkInterfaces", "Microsoft.Network/loadBalancers",
	"Microsoft.KeyVault/vaults", "Microsoft.Network/privateDnsZones",
}

// Issue 34: many groups of a few resources of many types cost one
// subscription-wide list per type (pages of 100), not a request per group.
func TestReadManyUsesSubscriptionListsForSpreadTypes(t *testing.T) {
	l := newListingARM(t, 100, true)
	reqs := l.mixed(50, mixedTypes, 2) // 1,100 resources, 2 per group and type
	res := l.client(func(o *Options) { o.Pacing = false }).ReadMany(context.Background(), reqs, ReadManyOptions{})
	for i, r := range res {
		if r.Err != nil || !r.Exists || r.Via != ViaList || r.Body["id"] != reqs[i].ID {
			t.Fatalf("result %d: %+v", i, r)
		}
	}
	// 100 per type: one page each; the 50 groups: one page of groups.
	if n := len(l.requests()); n != len(mixedTypes)+1 {
		t.Errorf("%d requests for %d resources in 50 groups x %d types, want %d", n, len(reqs), len(mixedTypes), len(mixedTypes)+1)
	}
	t.Logf("%d resources: %d requests (%.3f per resource)", len(reqs), len(l.requests()), float64(len(l.requests()))/float64(len(reqs)))
}

// Without subscription-wide lists on the endpoint the planner pays one
// request per type to find out, then reads per group as before.
func TestReadManyFallsBackWhenSubscriptionListIsEmpty(t *testing.T) {
	l := newListingARM(t, 100, false)
	reqs := l.mixed(10, mixedTypes[:3], 3) // 3 per group and type: one list per group
	c := l.client(func(o *Options) { o.Pacing = false })
	res := c.ReadMany(context.Background(), reqs, ReadManyOptions{})
	for i, r := range res {
		if r.Err != nil || !r.Exists || r.Via != ViaList {
			t.Fatalf("result %d: %+v", i, r)
		}
	}
	if n, want := len(l.requests()), 1+3+3*10; n != want {
		t.Errorf("%d requests, want %d (the groups, 3 empty subscription lists, then 10 groups x 3 types)", n, want)
	}
	// The Client remembers: the next read goes per group at once.
	before := len(l.requests())
	c.ReadMany(context.Background(), reqs, ReadManyOptions{})
	if n := len(l.requests()) - before; n != 31 {
		t.Errorf("second read: %d requests, want 31", n)
	}
}

// A subscription holding many more resources of the type than the set:
// paging stops at the per-group plan's cost, and the rest is read per
// group; results stay exact.
func TestReadManySubscriptionListBoundedByPerGroupCost(t *testing.T) {
	l := newListingARM(t, 10, true)
	typ := "Microsoft.Network/routeTables"
	for i := range 500 { // unmanaged, sorted before ours
		l.add(fmt.Sprintf("/subscriptions/%s/resourceGroups/aaa-%03d/providers/%s/x", testSub, i, typ), map[string]any{"location": "westeurope"})
	}
	reqs := l.mixed(4, []string{typ}, 3) // 4 groups of 3: per-group plan costs 4
	reqs = append(reqs, ReadRequest{ID: fmt.Sprintf("/subscriptions/%s/resourceGroups/rg-000/providers/%s/gone", testSub, typ), APIVersion: testAPI})
	res := l.client(func(o *Options) { o.Pacing = false }).ReadMany(context.Background(), reqs, ReadManyOptions{})
	for i, r := range res[:16] {
		if r.Err != nil || !r.Exists || r.Body["id"] != reqs[i].ID {
			t.Fatalf("result %d: %+v", i, r)
		}
	}
	if g := res[16]; g.Err != nil || g.Exists {
		t.Errorf("missing resource: %+v", g)
	}
	// The 4-group plan costs 4 (+1 GET of the missing one, +1 list of
	// the groups); the subscription list may spend at most 3 pages before.
	if n := len(l.requests()); n > 3+4+1+1 {
		t.Errorf("%d requests, want at most 9", n)
	}
}

// The layout of BenchmarkPlanMixed1000/10000 (per group: 2 each of 7
// types, 3 identities, a vnet, a DNS zone, a workspace) against an
// endpoint that lists subscription-wide, paged at 100 as ARM's providers
// commonly do. Issue 34's targets: ≤ 25 reads for 1,000; ≤ 60 for 10,000
// (pages of 100 put the floor at about one read per 100 resources).
func TestReadManyMixedLayoutCost(t *testing.T) {
	for _, tc := range []struct {
		groups int
		max    int
	}{{50, 25}, {500, 110}} {
		if tc.groups > 50 && testing.Short() {
			continue
		}
		l := newListingARM(t, 100, true)
		reqs := l.mixed(tc.groups, mixedTypes[:7], 2)
		reqs = append(reqs, l.mixed(tc.groups, mixedTypes[7:8], 3)[tc.groups:]...)
		for _, typ := range mixedTypes[8:] {
			reqs = append(reqs, l.mixed(tc.groups, []string{typ}, 1)[tc.groups:]...)
		}
		res := l.client(func(o *Options) { o.Pacing = false }).ReadMany(context.Background(), reqs, ReadManyOptions{})
		for i, r := range res {
			if r.Err != nil || !r.Exists {
				t.Fatalf("result %d: %+v", i, r)
			}
		}
		n := len(l.requests())
		t.Logf("%d groups, %d resources: %d reads (%.4f per resource)", tc.groups, len(reqs), n, float64(n)/float64(len(reqs)))
		if n > tc.max {
			t.Errorf("%d reads, want at most %d", n, tc.max)
		}
	}
}

// Issue 34: the planner costs lists with the page size it saw, not an
// assumed 100. Pages of 5, two groups of 12 of one type: guessing 100, a
// subscription list looks like one request, stops after that one page
// (the per-group plan's cost, 2, minus one) and the rest goes per group
// (3 pages each). Once the Client saw pages of 5, the subscription list
// costs 5 pages against 6 per group, and is read to its end.
func TestReadManyCostsListsWithObservedPageSize(t *testing.T) {
	l := newListingARM(t, 5, true)
	reqs := l.mixed(2, []string{"Microsoft.Network/routeTables"}, 12)[1:] // the first group's read is not part of this
	reqs = append(reqs[:12], reqs[13:]...)                                // nor the second's
	c := l.client(func(o *Options) { o.Pacing = false })
	read := func() int {
		before := len(l.requests())
		for i, r := range c.ReadMany(context.Background(), reqs, ReadManyOptions{}) {
			if r.Err != nil || !r.Exists || r.Via != ViaList || r.Body["id"] != reqs[i].ID {
				t.Fatalf("result %d: %+v", i, r)
			}
		}
		return len(l.requests()) - before
	}
	if n := read(); n != 1+2*3 {
		t.Errorf("first read: %d requests, want 7 (one page of the subscription list, then 3 pages per group)", n)
	}
	if n := read(); n != 5 {
		t.Errorf("second read: %d requests, want 5 (the subscription list's 5 pages)", n)
	}
	if got := c.pageSize("microsoft.network/routetables"); got != 5 {
		t.Errorf("learned page size %d, want 5", got)
	}
	// A type seen paged at 5 with all its members in one group of 4 is
	// still read with the group's list (one page), and a lone member by
	// GET.
	var one []ReadRequest
	for n := range 4 {
		id := fmt.Sprintf("/subscriptions/%s/resourceGroups/rg-other/providers/Microsoft.Network/routeTables/t-%d", testSub, n)
		l.add(id, map[string]any{"location": "westeurope"})
		one = append(one, ReadRequest{ID: id, APIVersion: testAPI, Need: []string{"location"}})
	}
	two := l.mixed(1, []string{"Microsoft.Network/publicIPAddresses"}, 1)[1:]
	before := len(l.requests())
	for i, r := range c.ReadMany(context.Background(), append(one, two...), ReadManyOptions{}) {
		want := ViaList
		if i >= len(one) {
			want = ViaGet
		}
		if r.Err != nil || !r.Exists || r.Via != want {
			t.Fatalf("result %d: %+v, want via %s", i, r, want)
		}
	}
	if n := len(l.requests()) - before; n != 1+1 {
		t.Errorf("%d requests for a group of 4 and a single, want 2", n)
	}
}

// A subscription-wide list that stopped at the per-group plan's cost told
// the Client that the subscription holds more of the type than the set:
// the next read of the same set goes per group at once instead of paying
// those pages again.
func TestReadManyRemembersALongSubscriptionList(t *testing.T) {
	l := newListingARM(t, 10, true)
	typ := "Microsoft.Network/routeTables"
	for i := range 500 { // unmanaged, sorted before ours
		l.add(fmt.Sprintf("/subscriptions/%s/resourceGroups/aaa-%03d/providers/%s/x", testSub, i, typ), map[string]any{"location": "westeurope"})
	}
	reqs := l.mixed(4, []string{typ}, 3)
	c := l.client(func(o *Options) { o.Pacing = false })
	read := func() int {
		before := len(l.requests())
		for i, r := range c.ReadMany(context.Background(), reqs, ReadManyOptions{}) {
			if r.Err != nil || !r.Exists || r.Body["id"] != reqs[i].ID {
				t.Fatalf("result %d: %+v", i, r)
			}
		}
		return len(l.requests()) - before
	}
	if n := read(); n != 3+4+1 {
		t.Errorf("first read: %d requests, want 8 (3 pages of the subscription list, 4 group lists, the groups)", n)
	}
	if n := read(); n != 4+1 {
		t.Errorf("second read: %d requests, want 5 (4 group lists, the groups)", n)
	}
}
