package arm_test

import (
	"context"
	"fmt"

	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
	"github.com/kubectl-azure/kubectl-azure/pkg/emulator"
)

// How the apply engine uses the client for one resource: read it, create
// it when absent, otherwise PATCH (or GET-modify-PUT guarded by the etag
// where the type has no PATCH). It runs against the in-process emulator.
func Example() {
	srv, err := emulator.Start(emulator.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	opts := arm.DefaultOptions()
	opts.Endpoint = srv.URL() // a loopback endpoint needs no credential
	c, err := arm.New(opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	const sub = "/subscriptions/00000000-0000-0000-0000-0000000000ee"
	if _, err := c.Put(ctx, sub+"/resourceGroups/rg", "2021-04-01", map[string]any{"location": "westeurope"}, nil); err != nil {
		fmt.Println(err)
		return
	}
	id := sub + "/resourceGroups/rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id1"
	const api = "2023-01-31"

	for range 2 {
		live, err := c.Get(ctx, id, api)
		switch {
		case arm.IsNotFound(err):
			_, err = c.Put(ctx, id, api, map[string]any{"location": "westeurope"}, nil)
			fmt.Println("absent: created", err == nil)
		case err != nil:
			fmt.Println("read failed:", err)
			return
		case c.PatchUnsupported(arm.ResourceTypeOf(id)):
			body := live.Body // minus readonly fields, plus the change
			body["tags"] = map[string]any{"env": "prod"}
			_, err = c.Put(ctx, id, api, body, &arm.RequestOptions{IfMatch: live.ETag})
			fmt.Println("exists: written with PUT", err == nil)
		default:
			patch := map[string]any{"tags": map[string]any{"env": "prod"}}
			_, err = c.Patch(ctx, id, api, patch, &arm.RequestOptions{IfMatch: live.ETag})
			fmt.Println("exists: patched", err == nil)
		}
	}
	live, err := c.Get(ctx, id, api)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("tags:", live.Body["tags"])
	// Output:
	// absent: created true
	// exists: patched true
	// tags: map[env:prod]
}
