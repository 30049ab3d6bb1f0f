package apply

import (
	"context"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
)

// TestLostDeletePollKeepsTheRecord: a DELETE whose operation poll answers
// 404 (the endpoint lost it) while the resource still exists is not taken
// as done: the record stays, so nothing is forgotten that still exists.
// One whose resource really is gone is forgotten.
func TestLostDeletePollKeepsTheRecord(t *testing.T) {
	for _, gone := range []bool{false, true} {
		a := newFakeARM()
		a.seed(rg1, body())
		a.seed(idA, body())
		a.fail["DELETE "+armid.Key(idA)] = notFound("DELETE", idA)
		st := newMemStore(recordOf(rg1, body(), DefaultSet), recordOf(idA, body(), DefaultSet))
		o := DefaultOptions()
		o.Delete = true
		e := newEngine(&vanishing{fakeARM: a, id: idA, vanish: gone}, st, o)
		p, err := e.Plan(context.Background(), &manifest.Set{Resources: []*manifest.Resource{res(idA, body())}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.Execute(context.Background(), p)
		if gone {
			if err != nil || st.has(idA) {
				t.Errorf("resource gone: err %v, still recorded %v", err, st.has(idA))
			}
			continue
		}
		if err == nil || !st.has(idA) {
			t.Errorf("resource still exists: err %v, recorded %v; the record must stay", err, st.has(idA))
		}
	}
}

// vanishing removes id when its DELETE is sent, when vanish is set, and
// answers the DELETE with whatever the fake fails it with.
type vanishing struct {
	*fakeARM
	id     string
	vanish bool
}

func (v *vanishing) Delete(ctx context.Context, id, ver string, o *arm.RequestOptions) (*arm.Response, error) {
	if v.vanish && armid.Equal(id, v.id) {
		v.mu.Lock()
		delete(v.res, armid.Key(id))
		v.mu.Unlock()
	}
	return v.fakeARM.Delete(ctx, id, ver, o)
}
