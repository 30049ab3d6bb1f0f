package armclient_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/apply"
	"github.com/kubectl-azure/kubectl-azure/pkg/apply/armclient"
	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
)

const rg = "/subscriptions/00000000-0000-0000-0000-0000000000c1/resourceGroups/rg1"

// TestAdapter: the engine sees ARM's answers in its own types and error
// kinds, and nothing of the client's error is lost (message, errors.As).
func TestAdapter(t *testing.T) {
	ctx := context.Background()
	o := emulator.DefaultOptions()
	o.LRODuration = 10 * time.Millisecond
	srv, err := emulator.New(o)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	ao := arm.DefaultOptions()
	ao.Endpoint = hs.URL
	ac, err := arm.New(ao)
	if err != nil {
		t.Fatal(err)
	}
	c := armclient.New(ac)
	if _, ok := c.(apply.Lister); !ok {
		t.Error("the adapter of the ARM client does not list child collections")
	}

	_, err = c.Get(ctx, rg, "2021-04-01")
	var ae *arm.Error
	if !errors.Is(err, apply.ErrNotFound) || !errors.As(err, &ae) || ae.StatusCode != 404 {
		t.Fatalf("GET of a missing group: %v; want ErrNotFound wrapping the client's 404", err)
	}
	if errors.Is(err, apply.ErrPreconditionFailed) || errors.Is(err, apply.ErrOperationEnded) {
		t.Errorf("a 404 is marked with other kinds too: %v", err)
	}

	resp, err := c.Put(ctx, rg, "2021-04-01", map[string]any{"location": "westeurope"}, apply.WriteOptions{})
	if err != nil || resp.StatusCode != 201 || resp.Body["id"] == nil || resp.ETag == "" && resp.Body["etag"] != nil {
		t.Fatalf("PUT = %+v, %v", resp, err)
	}
	_, err = c.Patch(ctx, rg, "2021-04-01", map[string]any{"tags": map[string]any{"a": "b"}}, apply.WriteOptions{IfMatch: `"not-the-etag"`})
	if !errors.Is(err, apply.ErrPreconditionFailed) {
		t.Errorf("PATCH with a stale If-Match: %v; want ErrPreconditionFailed", err)
	}

	s := c.NewReadSession(nil)
	res := c.ReadMany(ctx, []apply.ReadRequest{{ID: rg, APIVersion: "2021-04-01"}, {ID: rg + "x", APIVersion: "2021-04-01"}}, apply.ReadOptions{Session: s})
	if len(res) != 2 || !res[0].Exists || res[0].Body == nil || res[1].Exists || res[1].Err != nil {
		t.Errorf("ReadMany = %+v", res)
	}
}
