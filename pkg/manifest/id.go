package manifest

import (
	"fmt"
	"regexp"
	"strings"
)

// ID is a parsed ARM resource ID.
//
//	/subscriptions/S/resourceGroups/RG/providers/NS/t1/n1/t2/n2
//	/subscriptions/S/resourceGroups/RG/providers/NS/t/n/providers/NS2/t3/n3   (extension resource)
//
// Subscription and ResourceGroup always describe the outermost container, so
// an extension resource scoped to a storage account still reports the
// account's subscription and group.
type ID struct {
	Subscription  string
	ResourceGroup string
	// Provider is the resource provider namespace of the innermost resource
	// ("Microsoft.Network"); "Microsoft.Resources" for subscriptions and groups.
	Provider string
	// Types and Names are the type/name pairs after Provider, outermost first:
	// Types=[virtualNetworks subnets], Names=[vnet-demo snet-app].
	Types []string
	Names []string
	// Scope is everything before the innermost "/providers/": the resource
	// group or subscription ID for ordinary resources, the parent resource's
	// ID for extension resources, "" for subscriptions and tenant-level resources.
	Scope string
}

var guidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// IsGUID reports whether s looks like a GUID (subscription and tenant IDs,
// role assignment names).
func IsGUID(s string) bool { return guidRE.MatchString(s) }

// ParseID parses an ARM resource ID. It accepts subscription IDs, resource
// group IDs, resources at subscription, group and tenant level, child
// resources, and extension resources at any scope.
func ParseID(id string) (ID, error) {
	out, reason := parseID(id)
	if reason != "" {
		return ID{}, fmt.Errorf("%q is not a valid ARM ID: %s", id, reason)
	}
	return out, nil
}

// parseID returns the parsed ID or why id is not one.
func parseID(id string) (ID, string) {
	var out ID
	if !strings.HasPrefix(id, "/") {
		return out, "must start with /subscriptions/ or /providers/"
	}
	segs := strings.Split(strings.TrimSuffix(id[1:], "/"), "/")
	for _, s := range segs {
		if s == "" {
			return out, "it has an empty segment (look for a doubled or leading/trailing slash)"
		}
		if strings.ContainsAny(s, "\t\n?#") {
			return out, fmt.Sprintf("segment %q", s)
		}
	}
	i := 0
	if strings.EqualFold(segs[0], "subscriptions") {
		if len(segs) < 2 {
			return out, "names no subscription"
		}
		out.Subscription = segs[1]
		i = 2
		if i < len(segs) && strings.EqualFold(segs[i], "resourceGroups") {
			if i+1 >= len(segs) {
				return out, "names no resource group after resourceGroups/"
			}
			out.ResourceGroup = segs[i+1]
			i += 2
		}
	} else if !strings.EqualFold(segs[0], "providers") {
		return out, "must start with /subscriptions/ or /providers/"
	}
	if i == len(segs) {
		out.Provider = "Microsoft.Resources"
		if out.ResourceGroup != "" {
			out.Types = []string{"resourceGroups"}
			out.Names = []string{out.ResourceGroup}
			out.Scope = "/subscriptions/" + out.Subscription
		} else {
			out.Types = []string{"subscriptions"}
			out.Names = []string{out.Subscription}
		}
		return out, ""
	}
	// The innermost provider section is the last "providers" segment that is
	// followed by a namespace and whole type/name pairs.
	p := -1
	for k := len(segs) - 4; k >= i; k-- {
		if strings.EqualFold(segs[k], "providers") && (len(segs)-k-2)%2 == 0 {
			p = k
			break
		}
	}
	if p < 0 {
		return out, "expected .../providers/NAMESPACE/TYPE/NAME[/TYPE/NAME...]"
	}
	if p > i {
		// Extension resource: the part before p must itself be a resource.
		if _, why := parseID("/" + strings.Join(segs[:p], "/")); why != "" {
			return out, "its scope (the part before the last /providers/) is invalid: " + why
		}
	}
	if p > 0 {
		out.Scope = "/" + strings.Join(segs[:p], "/")
	}
	out.Provider = segs[p+1]
	for k := p + 2; k < len(segs); k += 2 {
		out.Types = append(out.Types, segs[k])
		out.Names = append(out.Names, segs[k+1])
	}
	return out, ""
}

// Type returns the full resource type, e.g. "Microsoft.Network/virtualNetworks/subnets".
func (id ID) Type() string {
	return id.Provider + "/" + strings.Join(id.Types, "/")
}

// Name returns the innermost resource name.
func (id ID) Name() string {
	if len(id.Names) == 0 {
		return ""
	}
	return id.Names[len(id.Names)-1]
}

// String renders the ID in ARM's canonical layout.
func (id ID) String() string {
	// Subscriptions and resource groups are the two IDs without a
	// /providers/ section.
	if len(id.Names) < len(id.Types) {
		return "" // not a valid ID: one name per type
	}
	if strings.EqualFold(id.Provider, "Microsoft.Resources") && len(id.Types) == 1 && !strings.Contains(strings.ToLower(id.Scope), "/providers/") {
		switch strings.ToLower(id.Types[0]) {
		case "subscriptions":
			return "/subscriptions/" + id.Names[0]
		case "resourcegroups":
			return "/subscriptions/" + id.Subscription + "/resourceGroups/" + id.Names[0]
		}
	}
	var b strings.Builder
	b.WriteString(id.Scope)
	b.WriteString("/providers/")
	b.WriteString(id.Provider)
	for k := range id.Types {
		b.WriteString("/" + id.Types[k] + "/" + id.Names[k])
	}
	return b.String()
}

// IsResourceGroup reports whether id names a resource group.
func (id ID) IsResourceGroup() bool {
	return strings.EqualFold(id.Type(), ResourceGroupType)
}

// IsSubscription reports whether id names a subscription.
func (id ID) IsSubscription() bool {
	return strings.EqualFold(id.Type(), "Microsoft.Resources/subscriptions")
}

// Parent returns the ID of the resource that contains id: the parent
// resource for a child, the scope for a top-level or extension resource, the
// subscription for a resource group. Subscriptions and tenant-level resources
// have no parent.
func (id ID) Parent() (ID, bool) {
	if id.IsSubscription() || len(id.Types) == 0 {
		return ID{}, false
	}
	if len(id.Types) > 1 {
		p := id
		p.Types = id.Types[: len(id.Types)-1 : len(id.Types)-1]
		p.Names = id.Names[: len(id.Names)-1 : len(id.Names)-1]
		return p, true
	}
	if id.Scope == "" {
		return ID{}, false
	}
	p, err := ParseID(id.Scope)
	if err != nil {
		return ID{}, false
	}
	return p, true
}

// EqualIDs compares two ARM IDs the way ARM does: case-insensitively,
// ignoring a trailing slash.
func EqualIDs(a, b string) bool {
	return strings.EqualFold(strings.TrimSuffix(a, "/"), strings.TrimSuffix(b, "/"))
}

// idKey is the map key under which IDs compare equal.
func idKey(id string) string { return strings.ToLower(strings.TrimSuffix(id, "/")) }

// ResourceGroupType is the ARM type of resource groups.
const ResourceGroupType = "Microsoft.Resources/resourceGroups"
