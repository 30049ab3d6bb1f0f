package arm

import (
	"context"
	"net/http"
)

// acquire is acquireFor without a provider bucket: it waits until the
// subscription's modelled bucket has a token beyond the reserve, and takes it.
func (p *pacer) acquire(ctx context.Context, sub string, k class) (ticket, error) {
	return p.acquireFor(ctx, sub, k, "")
}

// observe is observeFor without a provider bucket; resp is nil when the
// attempt got no response.
func (p *pacer) observe(sub string, k class, t ticket, resp *http.Response) {
	p.observeFor(sub, k, "", t, resp)
}
