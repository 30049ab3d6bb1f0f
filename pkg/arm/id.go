package arm

import (
	"context"
	"errors"
	"net/http"
	"strings"
)

// ResourceTypeOf returns the ARM resource type of an ID, e.g.
// "Microsoft.Network/virtualNetworks/subnets". For extension resources
// the last provider segment wins (the extension's own type).
func ResourceTypeOf(id string) string {
	segs := splitID(id)
	last := -1
	for i, s := range segs {
		if strings.EqualFold(s, "providers") && i+1 < len(segs) {
			last = i
		}
	}
	if last < 0 {
		switch {
		case len(segs) >= 4 && strings.EqualFold(segs[0], "subscriptions") && strings.EqualFold(segs[2], "resourceGroups"):
			return "Microsoft.Resources/resourceGroups"
		case len(segs) >= 2 && strings.EqualFold(segs[0], "subscriptions"):
			return "Microsoft.Resources/subscriptions"
		}
		return ""
	}
	rest := segs[last+1:]
	t := rest[0]
	// rest = namespace, type1, name1, type2, name2, ...
	for i := 1; i < len(rest); i += 2 {
		t += "/" + rest[i]
	}
	return t
}

func splitID(id string) []string {
	var out []string
	for _, s := range strings.Split(id, "/") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// subscriptionOf finds the subscription in a request path; "" for
// tenant-level calls (they have their own, tenant-wide, buckets).
func subscriptionOf(path string) string {
	segs := splitID(path)
	for i := 0; i+1 < len(segs); i++ {
		if strings.EqualFold(segs[i], "subscriptions") {
			return strings.ToLower(segs[i+1])
		}
	}
	return ""
}

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
