package reconcile

import (
	"context"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/apply"
)

// listingClient is an apply.Client that also lists collections.
type listingClient struct{ apply.Client }

func (listingClient) List(_ context.Context, id, _ string) ([]map[string]any, error) {
	return []map[string]any{{"id": id + "/x"}}, nil
}

// TestWrappersKeepTheLister: the clients the loop wraps around its ARM
// client (the write fence, the outputs recorder) still list collections,
// which the cascade check of a deletion needs: hidden, every deletion
// under leader election was refused as "child resources could not be
// listed".
func TestWrappersKeepTheLister(t *testing.T) {
	inner := listingClient{}
	for name, c := range map[string]apply.Client{
		"fence":   NewFence(10*time.Second, time.Second).Client(inner),
		"outputs": outputsClient{inner, &Controller{}},
	} {
		l, ok := c.(apply.Lister)
		if !ok {
			t.Errorf("%s: not a Lister", name)
			continue
		}
		got, err := l.List(t.Context(), "/c", "v")
		if err != nil || len(got) != 1 || got[0]["id"] != "/c/x" {
			t.Errorf("%s: %v %v", name, got, err)
		}
	}
}
