package apply

import (
	"context"
	"errors"

	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
)

// ARM is what the adapter needs of an ARM client, in the ARM client's
// types; *arm.Client implements it, and so do the package's test fakes.
// Callers give the engine armclient.New(c). This file is the one place in
// pkg/apply that speaks the ARM client's types: the engine itself decides
// in its own (interfaces.go).
type ARM interface {
	ReadMany(ctx context.Context, reqs []arm.ReadRequest, opt arm.ReadManyOptions) []arm.ReadResult
	Get(ctx context.Context, id, apiVersion string) (*arm.Response, error)
	Put(ctx context.Context, id, apiVersion string, body map[string]any, o *arm.RequestOptions) (*arm.Response, error)
	Patch(ctx context.Context, id, apiVersion string, body map[string]any, o *arm.RequestOptions) (*arm.Response, error)
	Delete(ctx context.Context, id, apiVersion string, o *arm.RequestOptions) (*arm.Response, error)
	Post(ctx context.Context, id, apiVersion string, body map[string]any, o *arm.RequestOptions) (*arm.Response, error)
	ListResourceGroup(ctx context.Context, subscription, resourceGroup string) ([]map[string]any, error)
	PatchUnsupported(resourceType string) bool
	MarkPatchUnsupported(resourceType string)
}

// FromARM adapts an ARM client (*arm.Client, or a wrapper of it) to the
// engine's Client. When a implements Lister, so does the result: the
// cascade check lists child collections through it.
func FromARM(a ARM) Client {
	if a == nil {
		return nil
	}
	c := armAdapter{a: a}
	if l, ok := a.(Lister); ok {
		return listingAdapter{armAdapter: c, l: l}
	}
	return c
}

type armAdapter struct{ a ARM }

type listingAdapter struct {
	armAdapter
	l Lister
}

func (c listingAdapter) List(ctx context.Context, collectionID, apiVersion string) ([]map[string]any, error) {
	out, err := c.l.List(ctx, collectionID, apiVersion)
	return out, kindOf(err)
}

func (c armAdapter) ReadMany(ctx context.Context, reqs []ReadRequest, opt ReadOptions) []ReadResult {
	in := make([]arm.ReadRequest, len(reqs))
	for i, r := range reqs {
		in[i] = arm.ReadRequest{ID: r.ID, APIVersion: r.APIVersion, Need: r.Need, Envelope: r.Envelope, WrittenAt: r.WrittenAt}
	}
	session, _ := opt.Session.(*arm.ReadSession)
	res := c.a.ReadMany(ctx, in, arm.ReadManyOptions{Disable: opt.Disable, Session: session, CacheLag: opt.CacheLag})
	out := make([]ReadResult, len(res))
	for i, r := range res {
		out[i] = ReadResult{Body: r.Body, Etag: r.Etag, Exists: r.Exists, Err: kindOf(r.Err), Envelope: r.Via == arm.ViaGeneric}
	}
	return out
}

func (c armAdapter) NewReadSession(expect []ReadRequest) ReadSession {
	s := arm.NewReadSession()
	in := make([]arm.ReadRequest, len(expect))
	for i, r := range expect {
		in[i] = arm.ReadRequest{ID: r.ID, APIVersion: r.APIVersion}
	}
	s.Expect(in)
	return s
}

func (c armAdapter) Get(ctx context.Context, id, apiVersion string) (*Response, error) {
	return answer(c.a.Get(ctx, id, apiVersion))
}

func (c armAdapter) Put(ctx context.Context, id, apiVersion string, body map[string]any, o WriteOptions) (*Response, error) {
	return answer(c.a.Put(ctx, id, apiVersion, body, &arm.RequestOptions{IfMatch: o.IfMatch}))
}

func (c armAdapter) Patch(ctx context.Context, id, apiVersion string, body map[string]any, o WriteOptions) (*Response, error) {
	return answer(c.a.Patch(ctx, id, apiVersion, body, &arm.RequestOptions{IfMatch: o.IfMatch}))
}

func (c armAdapter) Delete(ctx context.Context, id, apiVersion string) (*Response, error) {
	return answer(c.a.Delete(ctx, id, apiVersion, nil))
}

func (c armAdapter) Post(ctx context.Context, id, apiVersion string, body map[string]any) (*Response, error) {
	return answer(c.a.Post(ctx, id, apiVersion, body, nil))
}

func (c armAdapter) ListResourceGroup(ctx context.Context, subscription, resourceGroup string) ([]map[string]any, error) {
	out, err := c.a.ListResourceGroup(ctx, subscription, resourceGroup)
	return out, kindOf(err)
}

func (c armAdapter) PatchUnsupported(resourceType string) bool {
	return c.a.PatchUnsupported(resourceType)
}
func (c armAdapter) MarkPatchUnsupported(resourceType string) { c.a.MarkPatchUnsupported(resourceType) }

func answer(r *arm.Response, err error) (*Response, error) {
	if err != nil {
		return nil, kindOf(err)
	}
	if r == nil {
		return nil, nil
	}
	return &Response{StatusCode: r.StatusCode, Body: r.Body, ETag: r.ETag, LRO: r.LRO, ReadBack: r.ReadBack}, nil
}

// kindOf marks an ARM client error with the engine's error kinds; the
// message and everything errors.As finds in it stay as they were.
func kindOf(err error) error {
	if err == nil {
		return nil
	}
	var kinds []error
	if arm.IsNotFound(err) {
		kinds = append(kinds, ErrNotFound)
	}
	if arm.IsPreconditionFailed(err) {
		kinds = append(kinds, ErrPreconditionFailed)
	}
	if arm.IsMethodNotAllowed(err) {
		kinds = append(kinds, ErrMethodNotAllowed)
	}
	if ae := (*arm.Error)(nil); errors.As(err, &ae) && ae.OperationStatus != "" {
		kinds = append(kinds, ErrOperationEnded)
	}
	if len(kinds) == 0 {
		return err
	}
	return &kindError{err: err, kinds: kinds}
}

type kindError struct {
	err   error
	kinds []error
}

func (e *kindError) Error() string   { return e.err.Error() }
func (e *kindError) Unwrap() []error { return append([]error{e.err}, e.kinds...) }

// client is the Client the engine uses.
func (e *Engine) client() Client { return e.Client }
