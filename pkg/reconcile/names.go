package reconcile

// Deferred names: a resource named by an expression over live values
// (`${guid:${ref:id.properties.principalId},reader}`) has no ID until
// those values exist. The engine resolves such a name in every plan, but
// the loop matches plans to manifests by ID, so until the name is known
// the resource is neither observed nor reported. As soon as the outputs
// the loop read (outputs.go) make the name computable, the observed set
// holds the resource under its real name and ID.

import (
	"fmt"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
)

// withNames returns c.set with every deferred name it can compute now
// resolved, replacing c.set when any was (the set observed from then on).
func (c *Controller) withNames() *manifest.Set {
	c.mu.Lock()
	defer c.mu.Unlock()
	set := c.set
	if set == nil {
		return nil
	}
	var out *manifest.Set
	for i, r := range set.Resources {
		named := c.resolveName(r)
		if named == nil {
			continue
		}
		if out == nil {
			cp := *set
			cp.Resources = append([]*manifest.Resource(nil), set.Resources...)
			out = &cp
		}
		out.Resources[i] = named
		if c.byKey != nil {
			c.byKey[armid.Key(named.ID)] = named // its outputs, under its real ID
		}
	}
	if out == nil {
		return set
	}
	c.set = out
	return out
}

// resolveName is r under its computed name, nil when r has no deferred
// name or it cannot be computed yet (or computes to no valid name); call
// with c.mu held.
func (c *Controller) resolveName(r *manifest.Resource) *manifest.Resource {
	d := r.NameDeferred
	if d == nil {
		return nil
	}
	name, known, err := d.Resolve(func(ref manifest.ValueRef) (any, bool) {
		v, ok := c.outputs[armid.Key(ref.Target)].Values[ref.Path]
		return v, ok
	})
	if err != nil || !known || manifest.ValidName(fmt.Sprint(name)) != nil {
		return nil
	}
	cp := *r
	cp.Name, cp.ID, cp.NameDeferred = fmt.Sprint(name), r.IDForName(fmt.Sprint(name)), nil
	return &cp
}

// ObservedSet is the set the loop observes: the reflector's, without the
// resources of deleted objects, with the deferred names known so far.
func (c *Controller) ObservedSet() *manifest.Set {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.set
}
