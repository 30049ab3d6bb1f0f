package arm_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
)

// genericFixture seeds 12 groups of 100 identities (1,200: 12 pages of a
// type list, 2 of the generic list) and returns a client and one envelope
// read request per identity, as a plan of resources recorded long ago
// would make them.
func genericFixture(t *testing.T) (*arm.Client, []arm.ReadRequest) {
	t.Helper()
	srv := startEmulator(t, func(o *emulator.Options) {
		o.Throttle.Enabled = false
		o.LRODuration = 0
		o.NoParentLocks = true
	})
	c := emuClient(t, srv.URL(), func(o *arm.Options) { o.Pacing = false })
	ctx := context.Background()
	var reqs []arm.ReadRequest
	for g := range 12 {
		rg := fmt.Sprintf("%srg-%02d", rgPrefix, g)
		if _, err := c.Put(ctx, rg, rgAPI, map[string]any{"location": "westeurope"}, nil); err != nil {
			t.Fatal(err)
		}
		for i := range 100 {
			id := fmt.Sprintf("%s/providers/%s/id-%03d", rg, idType, i)
			if _, err := c.Put(ctx, id, idAPI, map[string]any{"location": "westeurope", "tags": map[string]any{"n": fmt.Sprint(i)}}, nil); err != nil {
				t.Fatal(err)
			}
			reqs = append(reqs, arm.ReadRequest{ID: id, APIVersion: idAPI, Need: []string{"location", "tags.n"},
				Envelope: true, WrittenAt: time.Now().Add(-time.Hour)})
		}
	}
	return c, reqs
}

// readVia reads reqs and returns the results, the GETs they took, and how
// many were read each way.
func readVia(t *testing.T, c *arm.Client, reqs []arm.ReadRequest, opt arm.ReadManyOptions) ([]arm.ReadResult, int64, map[string]int) {
	t.Helper()
	before := c.Stats().Requests["GET"]
	res := c.ReadMany(context.Background(), reqs, opt)
	via := map[string]int{}
	for i, r := range res {
		if r.Err != nil {
			t.Fatalf("%s: %v", reqs[i].ID, r.Err)
		}
		via[r.Via]++
	}
	return res, c.Stats().Requests["GET"] - before, via
}

func TestReadManyGenericListServesEnvelopes(t *testing.T) {
	c, reqs := genericFixture(t)
	res, gets, via := readVia(t, c, reqs, arm.ReadManyOptions{})
	if via[arm.ViaGeneric] != len(reqs) || gets != 2 {
		t.Fatalf("read %v in %d GETs, want all %d from 2 pages of the generic list", via, gets, len(reqs))
	}
	full, _, _ := readVia(t, c, reqs, arm.ReadManyOptions{Disable: true})
	for i, r := range res {
		// The envelope carries what the diff compares exactly as a GET
		// does, and nothing of the properties.
		for _, k := range []string{"id", "location", "tags"} {
			if !reflect.DeepEqual(r.Body[k], full[i].Body[k]) {
				t.Fatalf("%s: %s is %v in the generic list, %v by GET", reqs[i].ID, k, r.Body[k], full[i].Body[k])
			}
		}
		if _, ok := r.Body["properties"]; ok || !r.Exists {
			t.Fatalf("%s: generic item %v (exists %v): want an envelope without properties", reqs[i].ID, r.Body, r.Exists)
		}
	}

	// Without Envelope the type's own lists serve them, full bodies.
	plain := append([]arm.ReadRequest(nil), reqs...)
	for i := range plain {
		plain[i].Envelope = false
	}
	_, gets, via = readVia(t, c, plain, arm.ReadManyOptions{})
	if via[arm.ViaList] != len(reqs) || gets != 12 {
		t.Fatalf("without Envelope: read %v in %d GETs, want all %d from 12 pages of the type's list", via, gets, len(reqs))
	}
}

func TestReadManyGenericListSkipsRecentWritesAndOtherPaths(t *testing.T) {
	c, reqs := genericFixture(t)
	recent := append([]arm.ReadRequest(nil), reqs...)
	for i := range recent {
		if i%2 == 0 {
			recent[i].WrittenAt = time.Now().Add(-time.Minute) // within DefaultCacheLag
		}
		if i%5 == 1 {
			recent[i].Need = append(recent[i].Need, "properties.principalId") // not in the envelope
		}
	}
	res, _, via := readVia(t, c, recent, arm.ReadManyOptions{})
	for i, r := range res {
		wantGeneric := i%2 == 1 && i%5 != 1
		if got := r.Via == arm.ViaGeneric; got != wantGeneric {
			t.Fatalf("%s (written %s ago, need %v): via %s, want generic %v", reqs[i].ID, time.Since(recent[i].WrittenAt).Round(time.Minute), recent[i].Need, r.Via, wantGeneric)
		}
		if !wantGeneric && r.Body["properties"] == nil {
			t.Fatalf("%s: read via %s without properties", reqs[i].ID, r.Via)
		}
	}
	if via[arm.ViaGeneric] == 0 || via[arm.ViaList] == 0 {
		t.Fatalf("read %v: want both ways", via)
	}

	// A client told the list never lags serves the recent writes too.
	for i := range recent {
		recent[i].Need = reqs[i].Need
	}
	_, _, via = readVia(t, c, recent, arm.ReadManyOptions{CacheLag: -1})
	if via[arm.ViaGeneric] != len(reqs) {
		t.Fatalf("with no cache lag: %v, want all %d from the generic list", via, len(reqs))
	}
}

func TestReadManyGenericListFallsBackPerResource(t *testing.T) {
	c, reqs := genericFixture(t)
	ctx := context.Background()
	untagged, deleted := reqs[7], reqs[300]
	if _, err := c.Patch(ctx, untagged.ID, idAPI, map[string]any{"tags": map[string]any{"other": "x"}}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Delete(ctx, deleted.ID, idAPI, nil); err != nil {
		t.Fatal(err)
	}
	res, _, _ := readVia(t, c, reqs, arm.ReadManyOptions{})
	// The list item lacks the tag the diff compares: a GET says what is
	// true of it (here, that the tag is gone).
	if r := res[7]; r.Via != arm.ViaGet || !r.Exists || r.Body["properties"] == nil {
		t.Fatalf("untagged: via %s exists %v body %v, want a full GET", r.Via, r.Exists, r.Body)
	}
	// Missing from a complete list: a GET confirms it is gone.
	if r := res[300]; r.Via != arm.ViaGet || r.Exists {
		t.Fatalf("deleted: via %s exists %v, want a GET's 404", r.Via, r.Exists)
	}
}

// A plan reads in chunks (for memory). Told the whole pass (Expect), each
// chunk chooses the lists for the pass: one generic list paged once
// through the session, not a page of the type's own list per chunk.
func TestReadSessionPlansTheGenericListForThePass(t *testing.T) {
	c, reqs := genericFixture(t)
	for _, tc := range []struct {
		name   string
		expect bool
		want   int64
	}{{"told the pass", true, 2}, {"chunk by chunk", false, 12}} {
		s := arm.NewReadSession()
		if tc.expect {
			s.Expect(reqs)
		}
		var gets int64
		for start := 0; start < len(reqs); start += 100 { // one group per chunk
			_, n, _ := readVia(t, c, reqs[start:start+100], arm.ReadManyOptions{Session: s})
			gets += n
		}
		if gets != tc.want {
			t.Errorf("%s: %d GETs for %d resources in chunks of 100, want %d", tc.name, gets, len(reqs), tc.want)
		}
	}
}
