package arm_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
)

// A plan reads its resources in chunks (for memory). Without a session
// every chunk pages each type's subscription-wide list from its first
// page until its own members show up, so the cost grows with the square
// of the chunks (565 reads for the mixed 10,000 instead of ~105). A
// ReadSession resumes where the previous chunk stopped.
func TestReadSessionPagesEachListOnce(t *testing.T) {
	srv := startEmulator(t, func(o *emulator.Options) {
		o.Throttle.Enabled = false
		o.LRODuration = 0
		o.PageSize = 50
	})
	c := emuClient(t, srv.URL(), func(o *arm.Options) { o.Pacing = false })
	ctx := context.Background()
	// 100 groups of 2 identities: 200 GETs the per-group way, 4 pages
	// subscription-wide.
	var chunks [4][]arm.ReadRequest
	for g := range 100 {
		rg := fmt.Sprintf("%srg-%03d", rgPrefix, g)
		if _, err := c.Put(ctx, rg, rgAPI, map[string]any{"location": "westeurope"}, nil); err != nil {
			t.Fatal(err)
		}
		for k := range 2 {
			id := fmt.Sprintf("%s/providers/%s/id-%d", rg, idType, k)
			if _, err := c.Put(ctx, id, idAPI, map[string]any{"location": "westeurope"}, nil); err != nil {
				t.Fatal(err)
			}
			chunks[g/25] = append(chunks[g/25], arm.ReadRequest{ID: id, APIVersion: idAPI, Need: []string{"location"}})
		}
	}
	read := func(opt arm.ReadManyOptions) (int64, [][]arm.ReadResult) {
		before := c.Stats().Requests["GET"]
		var out [][]arm.ReadResult
		for _, ch := range chunks {
			res := c.ReadMany(ctx, ch, opt)
			for _, r := range res {
				if r.Err != nil || !r.Exists || r.Via != arm.ViaList {
					t.Fatalf("%s: %+v", r.ID, r)
				}
			}
			out = append(out, res)
		}
		return c.Stats().Requests["GET"] - before, out
	}
	// Chunk k needs page k+1: 1+2+3+4 pages without a session.
	without, a := read(arm.ReadManyOptions{})
	with, b := read(arm.ReadManyOptions{Session: arm.NewReadSession()})
	if without != 10 || with != 4 {
		t.Errorf("GETs for 4 chunks: %d without a session (want 10), %d with (want 4)", without, with)
	}
	if !reflect.DeepEqual(a, b) {
		t.Error("a session changed what was read")
	}
	// A session read to its end still confirms a member it lacks by GET.
	s := arm.NewReadSession()
	read2 := func(reqs []arm.ReadRequest) []arm.ReadResult {
		return c.ReadMany(ctx, reqs, arm.ReadManyOptions{Session: s})
	}
	read2(append(chunks[0], chunks[3]...))
	gone := fmt.Sprintf("%srg-%03d/providers/%s/id-9", rgPrefix, 50, idType)
	before := c.Stats().Requests["GET"]
	res := read2(append(chunks[1], arm.ReadRequest{ID: gone, APIVersion: idAPI}))
	if n := c.Stats().Requests["GET"] - before; n != 1 || res[len(res)-1].Exists || res[len(res)-1].Via != arm.ViaGet {
		t.Errorf("after a complete list: %d GETs, last %+v (want the members from the session and one GET for the absent one)", n, res[len(res)-1])
	}
}
