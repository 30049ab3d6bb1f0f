package arm_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
)

const (
	idType   = "Microsoft.ManagedIdentity/userAssignedIdentities"
	idAPI    = "2023-01-31"
	nsgType  = "Microsoft.Network/networkSecurityGroups"
	rtType   = "Microsoft.Network/routeTables"
	netAPI   = "2023-09-01"
	rgPrefix = "/subscriptions/" + emuSub + "/resourceGroups/"
)

// readManyFixture seeds the emulator with a few hundred resources in
// several groups (top-level and child collections, pages of 50) and
// returns read requests covering every path of ReadMany: listed, too
// small a group, missing from the list, a Need the list item lacks.
func readManyFixture(t *testing.T) (*arm.Client, []arm.ReadRequest) {
	t.Helper()
	srv := startEmulator(t, func(o *emulator.Options) {
		o.Throttle.Enabled = false
		o.LRODuration = 0
		o.PageSize = 50
		o.NoParentLocks = true
	})
	c := emuClient(t, srv.URL(), func(o *arm.Options) { o.Pacing = false })
	ctx := context.Background()
	var writes []func() error
	put := func(id, api string, body map[string]any) {
		writes = append(writes, func() error {
			_, err := c.Put(ctx, id, api, body, nil)
			return err
		})
	}
	for _, rg := range []string{"rg-a", "rg-b", "rg-c"} {
		if _, err := c.Put(ctx, rgPrefix+rg, rgAPI, map[string]any{"location": "westeurope"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	rt := rgPrefix + "rg-b/providers/" + rtType + "/rt-0"
	if _, err := c.Put(ctx, rt, netAPI, map[string]any{"location": "westeurope"}, nil); err != nil {
		t.Fatal(err)
	}
	var reqs []arm.ReadRequest
	for i := range 150 {
		id := fmt.Sprintf("%srg-a/providers/%s/id-%03d", rgPrefix, idType, i)
		put(id, idAPI, map[string]any{"location": "westeurope", "tags": map[string]any{"n": fmt.Sprint(i)}})
		need := []string{"location", "tags.n"}
		if i%30 == 0 {
			need = append(need, "properties.notInTheListItem")
		}
		reqs = append(reqs, arm.ReadRequest{ID: id, APIVersion: idAPI, Need: need})
	}
	for i := range 10 { // never created
		id := fmt.Sprintf("%srg-a/providers/%s/missing-%d", rgPrefix, idType, i)
		reqs = append(reqs, arm.ReadRequest{ID: id, APIVersion: idAPI, Need: []string{"location"}})
	}
	for i := range 100 {
		id := fmt.Sprintf("%srg-b/providers/%s/nsg-%03d", rgPrefix, nsgType, i)
		put(id, netAPI, map[string]any{"location": "westeurope"})
		reqs = append(reqs, arm.ReadRequest{ID: id, APIVersion: netAPI, Need: []string{"location"}})
	}
	for i := range 60 {
		id := fmt.Sprintf("%s/routes/r-%03d", rt, i)
		put(id, netAPI, map[string]any{"properties": map[string]any{"addressPrefix": fmt.Sprintf("10.%d.0.0/16", i), "nextHopType": "Internet"}})
		reqs = append(reqs, arm.ReadRequest{ID: id, APIVersion: netAPI, Need: []string{"properties.addressPrefix"}})
	}
	for i := range 2 { // a group too small to list
		id := fmt.Sprintf("%srg-c/providers/%s/nsg-%d", rgPrefix, nsgType, i)
		put(id, netAPI, map[string]any{"location": "westeurope"})
		reqs = append(reqs, arm.ReadRequest{ID: id, APIVersion: netAPI})
	}
	for _, w := range writes {
		if err := w(); err != nil {
			t.Fatal(err)
		}
	}
	return c, reqs
}

func TestReadManySameResultsWithAndWithoutLists(t *testing.T) {
	c, reqs := readManyFixture(t)
	ctx := context.Background()

	gets := func() int64 { return c.Stats().Requests["GET"] }
	before := gets()
	single := c.ReadMany(ctx, reqs, arm.ReadManyOptions{Disable: true})
	singleGETs := gets() - before
	before = gets()
	listed := c.ReadMany(ctx, reqs, arm.ReadManyOptions{})
	listGETs := gets() - before

	if len(single) != len(reqs) || len(listed) != len(reqs) {
		t.Fatalf("%d and %d results for %d requests", len(single), len(listed), len(reqs))
	}
	via := map[string]int{}
	for i := range reqs {
		a, b := single[i], listed[i]
		if a.ID != reqs[i].ID || b.ID != reqs[i].ID {
			t.Fatalf("result %d is for %s / %s, want %s", i, a.ID, b.ID, reqs[i].ID)
		}
		if a.Err != nil || b.Err != nil {
			t.Fatalf("%s: errors %v / %v", reqs[i].ID, a.Err, b.Err)
		}
		if a.Exists != b.Exists || a.Etag != b.Etag || !reflect.DeepEqual(a.Body, b.Body) {
			t.Errorf("%s differs:\n GET  %v %q %v\n list %v %q %v", reqs[i].ID, a.Exists, a.Etag, a.Body, b.Exists, b.Etag, b.Body)
		}
		if a.Via != arm.ViaGet {
			t.Errorf("%s: read via %s with lists disabled", reqs[i].ID, a.Via)
		}
		via[b.Via]++
	}
	// 150 identities (5 lacking a Need path) + 10 missing, 100 NSGs, 60
	// routes, 2 NSGs in a group of two.
	if via[arm.ViaList] != 145+100+60 || via[arm.ViaGet] != 5+10+2 {
		t.Errorf("via %v", via)
	}
	// List pages of 50: identities 3, NSGs 2, routes 2; then 17 GETs.
	// The 102 NSGs sit in two groups (3 requests the per-group way), so
	// the planner reads one subscription-wide list, bounded at 2 pages:
	// they hold rg-b's 100, and rg-c's two are read by GET.
	wantList := int64(3 + 2 + 2 + 17)
	if singleGETs != int64(len(reqs)) || listGETs != wantList {
		t.Errorf("GET requests: %d without lists (want %d), %d with (want %d)", singleGETs, len(reqs), listGETs, wantList)
	}
	t.Logf("%d resources: %d GETs one by one, %d with collection reads", len(reqs), singleGETs, listGETs)
}

func TestCollectionHelpersOnEmulator(t *testing.T) {
	srv := startEmulator(t, func(o *emulator.Options) {
		o.Throttle.Enabled = false
		o.LRODuration = 0
		o.PageSize = 2
	})
	c := emuClient(t, srv.URL(), nil)
	ctx := context.Background()
	rg := rgPrefix + "rg-h"
	if _, err := c.Put(ctx, rg, rgAPI, map[string]any{"location": "westeurope"}, nil); err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := range 5 {
		id := fmt.Sprintf("%s/providers/%s/id-%d", rg, idType, i)
		if _, err := c.Put(ctx, id, idAPI, map[string]any{"location": "westeurope"}, nil); err != nil {
			t.Fatal(err)
		}
		want = append(want, id)
	}
	ids, err := c.ListIDs(ctx, rg+"/providers/"+idType, idAPI)
	if err != nil || !sameIDs(ids, want) {
		t.Fatalf("ListIDs: %v %v", ids, err)
	}
	ids, err = c.ResourceGroupContents(ctx, rg)
	if err != nil || !sameIDs(ids, want) {
		t.Fatalf("ResourceGroupContents: %v %v", ids, err)
	}
	if _, err := c.ResourceGroupContents(ctx, rgPrefix+"rg-none"); !arm.IsNotFound(err) {
		t.Fatalf("missing group: %v", err)
	}
	if _, err := c.ResourceGroupContents(ctx, rg+"/providers/"+idType+"/id-0"); err == nil {
		t.Fatal("a resource ID was taken for a group")
	}

	vers, err := c.ProviderAPIVersions(ctx, emuSub, "microsoft.network")
	if err != nil {
		t.Fatal(err)
	}
	subnets := vers["microsoft.network/virtualnetworks/subnets"]
	if !contains(subnets, netAPI) {
		t.Fatalf("subnets versions %v (of %d types)", subnets, len(vers))
	}
	if _, err := c.ProviderAPIVersions(ctx, emuSub, "Contoso.Nothing"); !arm.IsNotFound(err) {
		t.Fatalf("unknown namespace: %v", err)
	}
	if _, err := c.ProviderAPIVersions(ctx, emuSub, "Microsoft.Network/virtualNetworks"); err == nil {
		t.Fatal("a type was taken for a namespace")
	}
}

func sameIDs(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	seen := map[string]bool{}
	for _, g := range got {
		seen[strings.ToLower(g)] = true
	}
	for _, w := range want {
		if !seen[strings.ToLower(w)] {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
