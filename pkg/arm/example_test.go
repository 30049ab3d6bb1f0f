package arm_test

import (
	"context"
	"fmt"

	"github.com/kubectl-azure/kubectl-azure/pkg/arm"
)

// How the apply engine is expected to use the client for one resource.
func Example() {
	opts := arm.DefaultOptions()
	opts.Endpoint = "http://127.0.0.1:8080" // loopback emulator: no credential
	opts.Version = "0.1.0"
	c, err := arm.New(opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	id := "/subscriptions/SUB/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/st1"
	const api = "2023-05-01"

	live, err := c.Get(ctx, id, api)
	switch {
	case arm.IsNotFound(err):
		// create
		_, err = c.Put(ctx, id, api, map[string]any{"location": "westeurope"}, nil)
	case err != nil:
		// report
	default:
		patch := map[string]any{"tags": map[string]any{"env": "prod"}}
		typ := arm.ResourceTypeOf(id)
		if !c.PatchUnsupported(typ) {
			_, err = c.Patch(ctx, id, api, patch, nil)
		}
		if c.PatchUnsupported(typ) {
			// GET-modify-PUT guarded by the etag read above.
			body := live.Body // ... minus readonly fields, plus the change
			_, err = c.Put(ctx, id, api, body, &arm.RequestOptions{IfMatch: live.ETag})
			if arm.IsPreconditionFailed(err) {
				// re-plan once
			}
		}
	}
	_ = err
}
