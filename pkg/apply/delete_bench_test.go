package apply

import (
	"context"
	"fmt"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// flatDelete deletes one resource per DELETE, without the fake's scan for
// contents, so the benchmark measures the engine.
type flatDelete struct{ *fakeARM }

func (f flatDelete) Delete(ctx context.Context, id, v string, o *arm.RequestOptions) (*arm.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "DELETE "+id)
	delete(f.res, armid.Key(id))
	return &arm.Response{StatusCode: 200}, nil
}

// BenchmarkDelete plans and executes the delete of n identities in
// groups the manifests do not delete (one DELETE each), to show the cost
// grows linearly: compare ns/op of the two sizes (issue 34).
func BenchmarkDelete(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				a := newFakeARM()
				var recs []*state.Record
				var set []*manifest.Resource
				for i := range n {
					id := idOf(fmt.Sprintf("rg%d", i%10), "Microsoft.ManagedIdentity/userAssignedIdentities", fmt.Sprintf("id%05d", i))
					a.seed(id, body())
					recs = append(recs, recordOf(id, body(), DefaultSet))
					set = append(set, res(id, body()))
				}
				for g := range 10 {
					a.seed(rgID(fmt.Sprintf("rg%d", g)), body())
				}
				o := DefaultOptions()
				o.Mode = plan.ModeDelete
				e := newEngine(flatDelete{a}, newMemStore(recs...), o)
				b.StartTimer()
				p, err := e.Plan(context.Background(), &manifest.Set{Resources: set})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := e.Execute(context.Background(), p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
