package cli

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/manifest"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/printer"
	"github.com/kubectl-azure/kubectl-azure/pkg/state"
)

// A ref is how a user names a resource on the command line, the kubectl
// way, in any form the tool itself prints: a full ARM ID; TYPE/NAME as the
// plan prints it (Microsoft.Network/virtualNetworks/vnet/subnets/app), or
// any trailing part of that (subnets/app); the full type with the resource
// name or with the parent/child names state list shows
// (Microsoft.Network/virtualNetworks/subnets/app,
// Microsoft.Network/virtualNetworks/subnets/vnet/app), or a trailing part;
// state list's NAME column (vnet/app); the manifest's metadata.name; or a
// bare resource name (st1).
type candidate struct {
	id, typ, name string
}

// How strongly a ref names a candidate. A bare resource name is weaker than
// every other form, so a manifest name, a TYPE/NAME or an ID that names one
// resource is never made ambiguous by another resource's Azure name.
const (
	noMatch = iota
	weakMatch
	strongMatch
)

// match grades how ref names c. Types and names compare without case, as
// ARM does; a ref without a slash is a manifest name or, weakly, the
// resource's own name, never a type or a part of one.
func (c candidate) match(ref string) int {
	if strings.HasPrefix(ref, "/") {
		if armid.Equal(ref, c.id) {
			return strongMatch
		}
		return noMatch
	}
	if c.name != "" && ref == c.name {
		return strongMatch
	}
	r := strings.ToLower(strings.Trim(ref, "/"))
	if r == "" {
		return noMatch
	}
	forms := []string{printer.DisplayName(c.id, c.typ)}
	names := []string{lastName(c.id)}
	if id, err := armid.Parse(c.id); err == nil && len(id.Names) > 0 {
		names = id.Names
		typ := c.typ
		if typ == "" {
			typ = id.Type()
		}
		forms = append(forms, typ+"/"+id.Name(), typ+"/"+strings.Join(names, "/"))
	}
	joined := strings.ToLower(strings.Join(names, "/"))
	if !strings.Contains(r, "/") {
		if r == strings.ToLower(names[len(names)-1]) {
			return weakMatch
		}
		return noMatch
	}
	if r == joined {
		return strongMatch
	}
	for _, f := range forms {
		f = strings.ToLower(f)
		if f == r || strings.HasSuffix(f, "/"+r) {
			return strongMatch
		}
	}
	return noMatch
}

// resolveRef returns the index of the one candidate ref names; none or
// several are errors that list what the user can choose from.
func resolveRef(ref string, cs []candidate) (int, error) {
	var strong, weak []int
	manifestNames := false
	for i, c := range cs {
		switch c.match(ref) {
		case strongMatch:
			strong = append(strong, i)
		case weakMatch:
			weak = append(weak, i)
		}
		manifestNames = manifestNames || c.name != ""
	}
	hits := strong
	if len(hits) == 0 {
		hits = weak
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		// Records carry no manifest names: suggest one only when the
		// candidates come from manifests.
		forms := "TYPE/NAME (e.g. Microsoft.Storage/storageAccounts/st1), NAME or a full ARM ID"
		if manifestNames {
			forms = "TYPE/NAME (e.g. Microsoft.Storage/storageAccounts/st1), a manifest name or a full ARM ID"
		}
		return -1, withCode(ExitValidation, fmt.Errorf("%s names no resource here; give %s ('kubectl azure state list' shows what is recorded)", armid.Printable(ref), forms))
	}
	var ids []string
	for _, i := range hits {
		ids = append(ids, cs[i].id)
	}
	sort.Strings(ids)
	return -1, withCode(ExitValidation, fmt.Errorf("%s is ambiguous; it names %d resources: %s; give the full ARM ID", armid.Printable(ref), len(ids), strings.Join(ids, ", ")))
}

// selectRefs narrows a manifest set to the resources refs name.
func selectRefs(set *manifest.Set, refs []string) (*manifest.Set, error) {
	cs := make([]candidate, len(set.Resources))
	for i, r := range set.Resources {
		cs[i] = candidate{id: r.ID, typ: r.Type, name: r.Symbol}
	}
	keep := map[int]bool{}
	for _, ref := range refs {
		i, err := resolveRef(ref, cs)
		if err != nil {
			return nil, err
		}
		keep[i] = true
	}
	out := *set
	out.Resources = nil
	for i, r := range set.Resources {
		if keep[i] {
			out.Resources = append(out.Resources, r)
		}
	}
	return &out, nil
}

// recordCandidates lists state records as refs can name them; the record's
// last-applied metadata name is not kept, so the resource name stands in.
func recordCandidates(recs []*state.Record) []candidate {
	cs := make([]candidate, len(recs))
	for i, r := range recs {
		cs[i] = candidate{id: r.ID, typ: r.Type}
	}
	return cs
}

// recordedSet builds the resources delete plans from the state records refs
// name, when no manifest is given: what was last applied is what to delete.
func recordedSet(ctx context.Context, st state.Store, refs []string) (*manifest.Set, error) {
	recs, err := st.List(ctx)
	if err != nil {
		return nil, withCode(ExitError, err)
	}
	cs := recordCandidates(recs)
	set := &manifest.Set{}
	seen := map[int]bool{}
	for _, ref := range refs {
		i, err := resolveRef(ref, cs)
		if err != nil {
			return nil, err
		}
		if seen[i] {
			continue
		}
		seen[i] = true
		r := recs[i]
		id, perr := armid.Parse(r.ID)
		name := r.ID
		if perr == nil {
			name = id.Name()
		}
		set.Resources = append(set.Resources, &manifest.Resource{
			Origin: manifest.FromState, Name: name,
			Type: r.Type, APIVersion: r.APIVersion, ID: r.ID, Body: r.LastApplied,
		})
	}
	// A resource depends on the named resources that contain it, as in a
	// manifest set, so delete removes children first.
	for _, r := range set.Resources {
		for _, o := range set.Resources {
			if o != r && armid.Contains(o.ID, r.ID) {
				r.DependsOn = append(r.DependsOn, o.ID)
			}
		}
		slices.Sort(r.DependsOn)
	}
	return set, nil
}

// planSubscriptions lists the subscriptions a plan's resources live in,
// sorted and lower-cased.
func planSubscriptions(p *plan.Plan) []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		s = strings.ToLower(s)
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, r := range p.Resources {
		if r.Subscription != "" {
			add(r.Subscription)
		} else {
			add(armid.SubscriptionOf(r.ID))
		}
	}
	if len(out) == 0 {
		add(p.Subscription)
	}
	sort.Strings(out)
	return out
}
