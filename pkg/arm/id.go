package arm

import (
	"context"
	"errors"
	"net/http"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// ResourceTypeOf returns the ARM resource type of an ID, e.g.
// "Microsoft.Network/virtualNetworks/subnets"; for an extension resource
// its own type. "" when the ID does not parse.
func ResourceTypeOf(id string) string { return armid.TypeOf(id) }

// subscriptionOf finds the subscription in a request path; "" for
// tenant-level calls (they have their own, tenant-wide, buckets).
func subscriptionOf(path string) string { return armid.SubscriptionOf(path) }

// Request classes of ARM's throttling buckets.
type class int

const (
	classRead class = iota
	classWrite
	classDelete
)

func (k class) String() string {
	return [...]string{"reads", "writes", "deletes"}[k]
}

func classOf(method string) class {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return classRead
	case http.MethodDelete:
		return classDelete
	}
	return classWrite
}

func isCtxErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
