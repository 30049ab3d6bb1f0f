package emulator

import (
	"strings"
)

// kind is what an ARM request path addresses.
type kind int

const (
	kindInvalid        kind = iota
	kindSubscriptions       // /subscriptions
	kindSubscription        // /subscriptions/{sub}
	kindGroups              // /subscriptions/{sub}/resourceGroups
	kindGroup               // /subscriptions/{sub}/resourceGroups/{rg}
	kindGroupResources      // /subscriptions/{sub}/resourceGroups/{rg}/resources
	kindSubResources        // /subscriptions/{sub}/resources
	kindResource            // .../providers/{ns}/{type}/{name}[/{type}/{name}...]
	kindCollection          // .../providers/{ns}/{type}[/{name}/{type}...]  (ends on a type)
)

// armPath is a parsed ARM request path. ARM paths are case-insensitive;
// the original casing is kept for echoing back in id fields.
type armPath struct {
	Kind  kind
	Raw   string // cleaned path, original casing, no trailing slash
	Sub   string // subscription ID, "" for tenant-level paths
	Group string // resource group name, "" when not under one

	// For kindResource and kindCollection: the last provider block.
	Scope     string   // ID the block hangs under ("" = tenant, else sub/group/resource ID)
	Namespace string   // e.g. Microsoft.Network
	Types     []string // e.g. [virtualNetworks subnets]
	Names     []string // len(Names) == len(Types), or one less for a collection
}

// Type returns the full resource type, e.g. Microsoft.Network/virtualNetworks/subnets.
// Resource groups answer Microsoft.Resources/resourceGroups.
func (p armPath) Type() string {
	switch p.Kind {
	case kindGroup, kindGroups:
		return "Microsoft.Resources/resourceGroups"
	case kindSubscription, kindSubscriptions:
		return "Microsoft.Resources/subscriptions"
	}
	return p.Namespace + "/" + strings.Join(p.Types, "/")
}

// Name is the last name segment.
func (p armPath) Name() string {
	switch p.Kind {
	case kindGroup:
		return p.Group
	case kindSubscription:
		return p.Sub
	}
	if len(p.Names) == 0 {
		return ""
	}
	return p.Names[len(p.Names)-1]
}

// ParentID is the ID of the resource (or group, or subscription) this one
// needs to exist. Empty for tenant-level top resources and subscriptions.
func (p armPath) ParentID() string {
	switch p.Kind {
	case kindGroup:
		return "/subscriptions/" + p.Sub
	case kindResource:
		if len(p.Names) > 1 {
			i := strings.LastIndex(p.Raw, "/")
			i = strings.LastIndex(p.Raw[:i], "/")
			return p.Raw[:i]
		}
		return p.Scope
	case kindCollection:
		if len(p.Names) > 0 {
			return p.Raw[:strings.LastIndex(p.Raw, "/")]
		}
		return p.Scope
	}
	return ""
}

// levels is the fixed prefix of ARM paths, outermost first. Each level
// addresses its collection (the keyword alone), one item (keyword and
// name), or that item's generic resource list (".../resources").
var levels = []struct {
	keyword                     string
	collection, item, resources kind
	set                         func(p *armPath, name string)
}{
	{"subscriptions", kindSubscriptions, kindSubscription, kindSubResources, func(p *armPath, n string) { p.Sub = n }},
	{"resourceGroups", kindGroups, kindGroup, kindGroupResources, func(p *armPath, n string) { p.Group = n }},
}

// parseLevels reads the levels segs starts with into p. done is true when
// the path ends within them (p.Kind is then set); otherwise i is where
// the provider blocks start.
func (p *armPath) parseLevels(segs []string) (i int, done bool) {
	for _, l := range levels {
		if i >= len(segs) || !strings.EqualFold(segs[i], l.keyword) {
			break
		}
		if i+1 == len(segs) {
			p.Kind = l.collection
			return i, true
		}
		l.set(p, segs[i+1])
		i += 2
		switch {
		case i == len(segs):
			p.Kind = l.item
			return i, true
		case i+1 == len(segs) && strings.EqualFold(segs[i], "resources"):
			p.Kind = l.resources
			return i, true
		}
	}
	return i, false
}

// parsePath parses an ARM URL path. ok is false for paths ARM would not
// route (odd segments, empty names).
func parsePath(raw string) (armPath, bool) {
	raw = "/" + strings.Trim(raw, "/")
	segs := strings.Split(strings.TrimPrefix(raw, "/"), "/")
	p := armPath{Raw: raw}
	for _, s := range segs {
		if s == "" {
			return p, false
		}
	}
	i, done := p.parseLevels(segs)
	if done {
		return p, true
	}
	// One or more provider blocks: providers/{ns}/{type}/{name}/...
	// Each block but the last must end on a name (it is the scope of the next).
	for i < len(segs) {
		if !strings.EqualFold(segs[i], "providers") || i+2 >= len(segs) {
			return p, false
		}
		start, ns := i, segs[i+1]
		var types, names []string
		j := i + 2
		for j < len(segs) && !strings.EqualFold(segs[j], "providers") {
			types = append(types, segs[j])
			if j+1 < len(segs) && strings.EqualFold(segs[j+1], "providers") {
				return p, false // a type with no name cannot scope another block
			}
			if j+1 < len(segs) {
				names = append(names, segs[j+1])
			}
			j += 2
		}
		p.Scope = ""
		if start > 0 {
			p.Scope = "/" + strings.Join(segs[:start], "/")
		}
		p.Namespace, p.Types, p.Names = ns, types, names
		if j >= len(segs) {
			break
		}
		// Another provider block follows: this one is its scope and must
		// end on a name.
		if len(names) != len(types) {
			return p, false
		}
		i = j
	}
	if p.Namespace == "" {
		return p, false
	}
	if len(p.Names) == len(p.Types) {
		p.Kind = kindResource
	} else {
		p.Kind = kindCollection
	}
	return p, true
}

func equalFold(a, b string) bool { return strings.EqualFold(a, b) }
