package arm

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
)

// ProvidersAPIVersion is the Microsoft.Resources api-version of the
// providers API.
const ProvidersAPIVersion = "2021-04-01"

// ListIDs lists a collection (see List) and returns the items' IDs.
func (c *Client) ListIDs(ctx context.Context, collectionPath, apiVersion string) ([]string, error) {
	items, err := c.List(ctx, collectionPath, apiVersion)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(items))
	for _, it := range items {
		if id, ok := it["id"].(string); ok && id != "" {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// ResourceGroupContents returns the IDs of the resources ARM tracks in a
// resource group (its generic /resources collection: top-level resources
// and the child types ARM indexes), for cascade-delete warnings. A
// missing group is an error for which IsNotFound is true.
func (c *Client) ResourceGroupContents(ctx context.Context, resourceGroupID string) ([]string, error) {
	id, err := armid.Parse(resourceGroupID)
	if err != nil {
		return nil, err
	}
	if !id.IsResourceGroup() {
		return nil, fmt.Errorf("%s is not a resource group ID (want /subscriptions/{id}/resourceGroups/{name})", armid.Printable(resourceGroupID))
	}
	return c.ListIDs(ctx, id.String()+"/resources", ListResourceGroupAPIVersion)
}

// ProviderAPIVersions asks ARM which api-versions a resource provider
// serves in a subscription: GET /subscriptions/{id}/providers/{namespace}.
// The map is keyed by the full lower-cased type
// ("microsoft.network/virtualnetworks/subnets"); versions keep ARM's
// order. An unknown namespace is an error for which IsNotFound is true.
func (c *Client) ProviderAPIVersions(ctx context.Context, subscription, namespace string) (map[string][]string, error) {
	if err := armid.ValidateName(subscription); err != nil {
		return nil, fmt.Errorf("subscription %q: %w", armid.Printable(subscription), err)
	}
	if err := armid.ValidateName(namespace); err != nil || strings.Contains(namespace, "/") {
		return nil, fmt.Errorf("invalid provider namespace %q: want e.g. Microsoft.Network", armid.Printable(namespace))
	}
	p := "/subscriptions/" + subscription + "/providers/" + namespace
	ctx, cancel := c.opCtx(ctx)
	defer cancel()
	resp, err := c.send(ctx, http.MethodGet, p, c.url(p, ProvidersAPIVersion), nil, nil)
	if err != nil {
		return nil, err
	}
	ns, _ := resp.Body["namespace"].(string)
	if ns == "" {
		ns = namespace
	}
	out := map[string][]string{}
	rts, _ := resp.Body["resourceTypes"].([]any)
	for _, rt := range rts {
		m, ok := rt.(map[string]any)
		if !ok {
			continue
		}
		t, _ := m["resourceType"].(string)
		if t == "" {
			continue
		}
		key := strings.ToLower(ns + "/" + t)
		vs, _ := m["apiVersions"].([]any)
		for _, v := range vs {
			if s, ok := v.(string); ok {
				out[key] = append(out[key], s)
			}
		}
		if _, ok := out[key]; !ok {
			out[key] = []string{}
		}
	}
	return out, nil
}

// Action invokes a POST action on a resource (listKeys, listSecrets,
// regenerateKey) and returns the response body (nil when empty). It is
// Post with the action name checked as one path segment.
func (c *Client) Action(ctx context.Context, id, action, apiVersion string, body map[string]any) (map[string]any, error) {
	if err := armid.ValidateName(action); err != nil {
		return nil, fmt.Errorf("action %q on %s: %w", armid.Printable(action), armid.Printable(id), err)
	}
	resp, err := c.Post(ctx, strings.TrimRight(id, "/")+"/"+action, apiVersion, body, nil)
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}
