package armid

import "strings"

// PathKind is what an ARM request path addresses: an ID names one
// resource, a request path may also name a collection or one of ARM's
// generic lists.
type PathKind int

const (
	PathInvalid               PathKind = iota
	PathSubscriptions                  // /subscriptions
	PathSubscription                   // /subscriptions/{sub}
	PathResourceGroups                 // /subscriptions/{sub}/resourceGroups
	PathResourceGroup                  // /subscriptions/{sub}/resourceGroups/{rg}
	PathGroupResources                 // /subscriptions/{sub}/resourceGroups/{rg}/resources
	PathSubscriptionResources          // /subscriptions/{sub}/resources
	PathResource                       // .../providers/{ns}/{type}/{name}[/{type}/{name}...]
	PathCollection                     // .../providers/{ns}/{type}[/{name}/{type}...]  (ends on a type)
)

// Path is a parsed ARM request path (what a server routes on). ARM paths
// are case-insensitive; the original casing is kept for echoing back in id
// fields. Unlike Parse, ParsePath does not validate names: a server must
// route a request with a bad name to the check that refuses it with ARM's
// code.
type Path struct {
	Kind          PathKind
	Raw           string // cleaned path, original casing, no trailing slash
	Subscription  string // "" for tenant-level paths
	ResourceGroup string // "" when not under one

	// For PathResource and PathCollection: the last provider block.
	Scope    string   // ID the block hangs under ("" = tenant, else subscription/group/resource ID)
	Provider string   // e.g. Microsoft.Network
	Types    []string // e.g. [virtualNetworks subnets]
	Names    []string // len(Names) == len(Types), or one less for a collection
}

// Type returns the full resource type, e.g. Microsoft.Network/virtualNetworks/subnets.
// Resource groups answer Microsoft.Resources/resourceGroups.
func (p Path) Type() string {
	switch p.Kind {
	case PathResourceGroup, PathResourceGroups:
		return ResourceGroupType
	case PathSubscription, PathSubscriptions:
		return SubscriptionType
	}
	return p.Provider + "/" + strings.Join(p.Types, "/")
}

// Name is the last name segment.
func (p Path) Name() string {
	switch p.Kind {
	case PathResourceGroup:
		return p.ResourceGroup
	case PathSubscription:
		return p.Subscription
	}
	if len(p.Names) == 0 {
		return ""
	}
	return p.Names[len(p.Names)-1]
}

// ParentID is the ID of the resource (or group, or subscription) this one
// needs to exist. Empty for tenant-level top resources and subscriptions.
func (p Path) ParentID() string {
	switch p.Kind {
	case PathResourceGroup:
		return "/subscriptions/" + p.Subscription
	case PathResource:
		if len(p.Names) > 1 {
			i := strings.LastIndex(p.Raw, "/")
			i = strings.LastIndex(p.Raw[:i], "/")
			return p.Raw[:i]
		}
		return p.Scope
	case PathCollection:
		if len(p.Names) > 0 {
			return p.Raw[:strings.LastIndex(p.Raw, "/")]
		}
		return p.Scope
	}
	return ""
}

// pathLevels is the fixed prefix of ARM paths, outermost first. Each level
// addresses its collection (the keyword alone), one item (keyword and
// name), or that item's generic resource list (".../resources").
var pathLevels = []struct {
	keyword                     string
	collection, item, resources PathKind
	set                         func(p *Path, name string)
}{
	{"subscriptions", PathSubscriptions, PathSubscription, PathSubscriptionResources, func(p *Path, n string) { p.Subscription = n }},
	{"resourceGroups", PathResourceGroups, PathResourceGroup, PathGroupResources, func(p *Path, n string) { p.ResourceGroup = n }},
}

// parseLevels reads the levels segs starts with into p. done is true when
// the path ends within them (p.Kind is then set); otherwise i is where
// the provider blocks start.
func (p *Path) parseLevels(segs []string) (i int, done bool) {
	for _, l := range pathLevels {
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

// ParsePath parses an ARM URL path. ok is false for paths ARM would not
// route (odd segments, empty names).
func ParsePath(raw string) (Path, bool) {
	raw = "/" + strings.Trim(raw, "/")
	segs := strings.Split(strings.TrimPrefix(raw, "/"), "/")
	p := Path{Raw: raw}
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
		p.Provider, p.Types, p.Names = ns, types, names
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
	if p.Provider == "" {
		return p, false
	}
	if len(p.Names) == len(p.Types) {
		p.Kind = PathResource
	} else {
		p.Kind = PathCollection
	}
	return p, true
}
