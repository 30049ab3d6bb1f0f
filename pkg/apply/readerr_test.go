package apply

import (
	"context"
	"errors"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"net/http"
	"strings"
	"testing"

	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
)

// unreadable answers reads of one resource with an error or no body, and
// can fail resource group listings.
type unreadable struct {
	*fakeARM
	id      string
	err     error // nil: 200 without a body
	listErr error
}

func (u *unreadable) ReadMany(ctx context.Context, reqs []arm.ReadRequest, opt arm.ReadManyOptions) []arm.ReadResult {
	out := u.fakeARM.ReadMany(ctx, reqs, opt)
	for i := range out {
		if armid.Equal(out[i].ID, u.id) {
			out[i] = arm.ReadResult{ID: u.id, Err: u.err, Exists: u.err == nil}
		}
	}
	return out
}

func (u *unreadable) Get(ctx context.Context, id, v string) (*arm.Response, error) {
	if armid.Equal(id, u.id) {
		if u.err != nil {
			return nil, u.err
		}
		return &arm.Response{StatusCode: 200}, nil
	}
	return u.fakeARM.Get(ctx, id, v)
}

func (u *unreadable) ListResourceGroup(ctx context.Context, s, rg string) ([]map[string]any, error) {
	if u.listErr != nil {
		return nil, u.listErr
	}
	return u.fakeARM.ListResourceGroup(ctx, s, rg)
}

// TestUnreadableAnswerWritesNothing: a GET ARM answered with a body the
// client cannot decode, or with no body, is an error for the plan, not an
// empty resource; a group listing that fails never lets a delete or
// replace go ahead (issue 27 item 5).
func TestUnreadableAnswerWritesNothing(t *testing.T) {
	decodeErr := errors.New("GET: response body is not JSON (text/html)")
	for _, tc := range []struct {
		name string
		u    unreadable
		opts func(*Options)
		set  []*manifest.Resource
	}{
		{"undecodable body", unreadable{id: idA, err: decodeErr}, nil, []*manifest.Resource{res(rg1, body()), res(idA, body("a", "2"), rg1)}},
		{"no body", unreadable{id: idA}, nil, []*manifest.Resource{res(rg1, body()), res(idA, body("a", "2"), rg1)}},
		{"group listing fails on delete", unreadable{listErr: &arm.Error{Method: "GET", StatusCode: http.StatusInternalServerError}},
			func(o *Options) { o.Mode, o.AllowCascade = plan.ModeDelete, true }, []*manifest.Resource{res(rg1, body())}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeARM()
			f.seed(rg1, body())
			f.seed(idA, map[string]any{"location": "westeurope", "properties": map[string]any{"kept": "by Azure"}})
			u := tc.u
			u.fakeARM = f
			o := DefaultOptions()
			o.Adopt, o.AllowReplace = true, true
			if tc.opts != nil {
				tc.opts(&o)
			}
			st := newMemStore(recordOf(rg1, body(), DefaultSet), recordOf(idA, body("a", "1"), DefaultSet))
			e := newEngine(&u, st, o)
			_, err := e.Plan(context.Background(), &manifest.Set{Resources: tc.set})
			if err == nil {
				t.Fatal("Plan succeeded on an answer it could not read")
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("error %q", err)
			}
			if n := len(f.Calls("PUT")) + len(f.Calls("PATCH")) + len(f.Calls("DELETE")); n > 0 {
				t.Fatalf("wrote after an unreadable answer: %v", f.calls)
			}
		})
	}
}
