package reconcile

// Outputs: what a resource's live body says that people and other
// manifests read — its provisioningState and the values ${ref:NAME.PATH}
// expressions of the set read from it (a principalId). They are taken from
// the bodies the loop reads anyway (sweeps, confirmations, the answers of
// its writes), so they cost no request of their own. A secret is never
// kept: a path the secret rule covers, or a value the run registered.

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/apply"
	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/diff"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// Outputs are the values of one resource the status reports.
type Outputs struct {
	ProvisioningState string
	// Values are by the path references read ("properties.principalId").
	Values map[string]any
}

// byKeyOf indexes set's resources, and the existing ones it only reads,
// by key: a sweep of 10,000 reads looks each one up.
func byKeyOf(set *manifest.Set) map[string]*manifest.Resource {
	out := make(map[string]*manifest.Resource, len(set.Resources)+len(set.Existing))
	for _, r := range set.Existing {
		out[armid.Key(r.ID)] = r
	}
	for _, r := range set.Resources {
		out[armid.Key(r.ID)] = r // declared with a body too: the managed one wins
	}
	return out
}

// existingKeys are the keys of the resources set only reads
// (azure.kubectl.io/existing) and does not also declare with a body.
func existingKeys(set *manifest.Set) map[string]bool {
	if len(set.Existing) == 0 {
		return nil
	}
	out := make(map[string]bool, len(set.Existing))
	for _, r := range set.Existing {
		out[armid.Key(r.ID)] = true
	}
	for _, r := range set.Resources {
		delete(out, armid.Key(r.ID))
	}
	return out
}

// ExistingRead is what the loop's last read of a resource the set only
// reads found.
type ExistingRead struct {
	Exists bool
	At     time.Time
}

// ExistingOf is the last read of the existing resource id; false when it
// was not read yet this term.
func (c *Controller) ExistingOf(id string) (ExistingRead, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.existingReads[armid.Key(id)]
	return r, ok
}

// observeExisting notes the answer to a GET of id when the set only reads
// it: found, or absent (the plan then refuses the sweep, and the object's
// status says what to do).
func (c *Controller) observeExisting(id string, err error) {
	k := armid.Key(id)
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.existing[k] || (err != nil && !errors.Is(err, apply.ErrNotFound)) {
		return
	}
	if c.existingReads == nil {
		c.existingReads = map[string]ExistingRead{}
	}
	c.existingReads[k] = ExistingRead{Exists: err == nil, At: c.now()}
}

// refPaths are, by resource key, the body paths the set's expressions
// read from each resource.
func refPaths(set *manifest.Set) map[string][]string {
	out := map[string][]string{}
	add := func(d *manifest.Deferred) {
		if d == nil {
			return
		}
		for _, r := range d.Refs {
			k := armid.Key(r.Target)
			if !containsString(out[k], r.Path) {
				out[k] = append(out[k], r.Path)
			}
		}
	}
	for _, r := range set.Resources {
		for _, d := range r.Deferred {
			add(d)
		}
		add(r.NameDeferred)
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// OutputsOf are the outputs of id as last read; false when none was.
func (c *Controller) OutputsOf(id string) (Outputs, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	o, ok := c.outputs[armid.Key(id)]
	return o, ok
}

// observeBody takes the outputs of the resource id from a body the loop
// read (a whole body: not the generic list's envelope).
func (c *Controller) observeBody(id string, body map[string]any) {
	if body == nil || id == "" {
		return
	}
	k := armid.Key(id)
	c.mu.Lock()
	res, paths, reg := c.byKey[k], c.refs[k], c.Secrets
	c.mu.Unlock()
	if res == nil {
		return
	}
	o := Outputs{ProvisioningState: provisioningOf(body)}
	// The one secret rule, as the plan's: the schema's secrets are never an
	// output, whatever their names.
	var t *schema.Type
	if c.Schemas != nil {
		t, _ = c.Schemas.Lookup(res.Type, res.APIVersion)
	}
	rule := diff.SecretRule(id, t, res.SecretPaths...)
	for _, p := range paths {
		bp, err := bodypath.Parse(p)
		if err != nil {
			continue
		}
		v, ok := bodypath.Get(body, p)
		if !ok || rule.At(bp, v) || registered(reg, v) {
			continue
		}
		if o.Values == nil {
			o.Values = map[string]any{}
		}
		o.Values[p] = v
	}
	c.mu.Lock()
	if c.outputs == nil {
		c.outputs = map[string]Outputs{}
	}
	c.outputs[k] = o
	c.mu.Unlock()
}

// registered: v holds a value the run's registry scrubs.
func registered(reg *secret.Registry, v any) bool {
	if reg == nil {
		return false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return true
	}
	return reg.Scrub(string(b)) != string(b)
}

// provisioningOf reads properties.provisioningState, or the top-level
// one a list with $expand carries.
func provisioningOf(body map[string]any) string {
	if props, ok := body["properties"].(map[string]any); ok {
		if ps, ok := props["provisioningState"].(string); ok {
			return ps
		}
	}
	ps, _ := body["provisioningState"].(string)
	return ps
}

// outputsClient passes every whole body the engine reads or is answered
// with to observeBody.
type outputsClient struct {
	apply.Client
	c *Controller
}

func (o outputsClient) ReadMany(ctx context.Context, reqs []apply.ReadRequest, opt apply.ReadOptions) []apply.ReadResult {
	rs := o.Client.ReadMany(ctx, reqs, opt)
	for i, r := range rs {
		if i < len(reqs) && r.Exists && !r.Envelope {
			o.c.observeBody(reqs[i].ID, r.Body)
		}
	}
	return rs
}

func (o outputsClient) Get(ctx context.Context, id, apiVersion string) (*apply.Response, error) {
	r, err := o.Client.Get(ctx, id, apiVersion)
	if err == nil && r != nil {
		o.c.observeBody(id, r.Body)
	}
	o.c.observeExisting(id, err)
	return r, err
}

func (o outputsClient) Put(ctx context.Context, id, apiVersion string, body map[string]any, wo apply.WriteOptions) (*apply.Response, error) {
	r, err := o.Client.Put(ctx, id, apiVersion, body, wo)
	if err == nil && r != nil && r.ReadBack {
		o.c.observeBody(id, r.Body)
	}
	return r, err
}

func (o outputsClient) Patch(ctx context.Context, id, apiVersion string, body map[string]any, wo apply.WriteOptions) (*apply.Response, error) {
	r, err := o.Client.Patch(ctx, id, apiVersion, body, wo)
	if err == nil && r != nil && r.ReadBack {
		o.c.observeBody(id, r.Body)
	}
	return r, err
}

// List keeps the inner client's collection lists (apply.Lister: the
// cascade check lists a deleted resource's children) visible through the
// wrapper.
func (o outputsClient) List(ctx context.Context, collectionID, apiVersion string) ([]map[string]any, error) {
	return apply.ListThrough(ctx, o.Client, collectionID, apiVersion)
}
