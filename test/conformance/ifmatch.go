package main

import (
	"context"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v6"
)

// ifMatch checks optimistic concurrency through the Network SDK client:
// every write verb honours If-Match, a stale etag is 412
// PreconditionFailed (ARM's code), and the etag the SDK reads back is the
// one the next conditional write must carry.
func ifMatch(ctx context.Context, e *env, r *runner) {
	nsgs, _ := armnetwork.NewSecurityGroupsClient(e.sub, e.cred, e.opts)
	const name = "nsg-ifmatch"
	const stale = `W/"00000000-0000-0000-0000-000000000000"`
	with := func(etag string) context.Context {
		return policy.WithHTTPHeader(ctx, http.Header{"If-Match": []string{etag}})
	}
	etag := ""
	r.check("if-match: a created NSG carries an etag the SDK reads", func() error {
		p, err := nsgs.BeginCreateOrUpdate(ctx, group, name, armnetwork.SecurityGroup{Location: to.Ptr(location)}, nil)
		if err != nil {
			return err
		}
		if _, err := p.PollUntilDone(ctx, e.poll()); err != nil {
			return err
		}
		g, err := nsgs.Get(ctx, group, name, nil)
		if err != nil {
			return err
		}
		etag = deref(g.Etag)
		return expect(etag != "", "no etag on GET")
	})
	r.check("if-match: PATCH (UpdateTags) with a stale etag is 412 PreconditionFailed", func() error {
		_, err := nsgs.UpdateTags(with(stale), group, name, armnetwork.TagsObject{Tags: map[string]*string{"v": to.Ptr("stale")}}, nil)
		return wantError(err, 412, "PreconditionFailed")
	})
	r.check("if-match: PUT with a stale etag is 412 PreconditionFailed", func() error {
		_, err := nsgs.BeginCreateOrUpdate(with(stale), group, name, armnetwork.SecurityGroup{Location: to.Ptr(location)}, nil)
		return wantError(err, 412, "PreconditionFailed")
	})
	r.check("if-match: DELETE with a stale etag is 412 PreconditionFailed", func() error {
		_, err := nsgs.BeginDelete(with(stale), group, name, nil)
		return wantError(err, 412, "PreconditionFailed")
	})
	r.check("if-match: PATCH with the current etag succeeds and moves the etag", func() error {
		res, err := nsgs.UpdateTags(with(etag), group, name, armnetwork.TagsObject{Tags: map[string]*string{"v": to.Ptr("2")}}, nil)
		if err != nil {
			return err
		}
		return expect(deref(res.Etag) != "" && deref(res.Etag) != etag && deref(res.Tags["v"]) == "2",
			"etag %q (was %q), tags %v", deref(res.Etag), etag, res.Tags)
	})
	r.check("if-match: the etag before the last write no longer matches", func() error {
		_, err := nsgs.UpdateTags(with(etag), group, name, armnetwork.TagsObject{Tags: map[string]*string{"v": to.Ptr("3")}}, nil)
		return wantError(err, 412, "PreconditionFailed")
	})
	r.check("if-none-match: * on an existing NSG is 412 PreconditionFailed", func() error {
		hdr := policy.WithHTTPHeader(ctx, http.Header{"If-None-Match": []string{"*"}})
		_, err := nsgs.BeginCreateOrUpdate(hdr, group, name, armnetwork.SecurityGroup{Location: to.Ptr(location)}, nil)
		return wantError(err, 412, "PreconditionFailed")
	})
}
