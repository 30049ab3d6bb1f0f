// Package armid is the one ARM resource-ID type of the project: parsing,
// validation of names and segments, comparison keys, parents and
// containment. It has no dependencies beyond the standard library so every
// package (the emulator included) can share it.
//
//	/subscriptions/S/resourceGroups/RG/providers/NS/t1/n1/t2/n2
//	/subscriptions/S/resourceGroups/RG/providers/NS/t/n/providers/NS2/t3/n3   (extension resource)
package armid

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ResourceGroupType and SubscriptionType are the two ARM types whose IDs
// carry no /providers/ section.
const (
	ResourceGroupType = "Microsoft.Resources/resourceGroups"
	SubscriptionType  = "Microsoft.Resources/subscriptions"
)

// ID is a parsed ARM resource ID.
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

// Parse parses an ARM resource ID. It accepts subscription IDs, resource
// group IDs, resources at subscription, group and tenant level, child
// resources, and extension resources at any scope. Percent-encoded
// segments are decoded first (IDs copied from portal URLs carry them); every
// segment must then pass ValidateSegment, so an ID that ARM would read as a
// different path is refused rather than sent.
func Parse(id string) (ID, error) {
	out, reason := parse(id)
	if reason != "" {
		return ID{}, &Error{ID: id, Reason: reason}
	}
	return out, nil
}

// Error is why a string is not a valid ARM ID.
type Error struct {
	ID     string
	Reason string // what is wrong, without the ID
}

func (e *Error) Error() string {
	return fmt.Sprintf("%q is not a valid ARM ID: %s", Printable(e.ID), e.Reason)
}

func parse(id string) (ID, string) {
	var out ID
	if !strings.HasPrefix(id, "/") {
		return out, "must start with /subscriptions/ or /providers/"
	}
	// segs are decoded in place; decoded says whether any segment differs
	// from its text in id, so the scope can be a substring of id instead
	// of a new string (IDs are parsed often, in every plan).
	segs := strings.Split(strings.TrimSuffix(id[1:], "/"), "/")
	decoded := false
	for i, s := range segs {
		if strings.Contains(s, "%") {
			d, err := url.PathUnescape(s)
			if err != nil {
				return out, fmt.Sprintf("segment %q has a malformed percent-escape", Printable(s))
			}
			if strings.Contains(d, "/") {
				return out, fmt.Sprintf("segment %q decodes to a value containing '/'", Printable(s))
			}
			s, segs[i], decoded = d, d, decoded || d != s
		}
		if why := segmentProblem(s); why != "" {
			return out, why
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
	if p > 0 {
		out.Scope = scopeOf(id, segs[:p], decoded)
	}
	if p > i {
		// Extension resource: the part before p must itself be a resource.
		if _, why := parse(out.Scope); why != "" {
			return out, "its scope (the part before the last /providers/) is invalid: " + why
		}
	}
	out.Provider = segs[p+1]
	pairs := (len(segs) - p - 2) / 2
	// Types and Names share one backing array: half each, capped so that
	// appending to one never writes into the other.
	tn := make([]string, 2*pairs)
	out.Types, out.Names = tn[:0:pairs], tn[pairs:pairs:2*pairs]
	for k := p + 2; k < len(segs); k += 2 {
		out.Types = append(out.Types, segs[k])
		out.Names = append(out.Names, segs[k+1])
	}
	return out, ""
}

// scopeOf renders the first segments of id as an ID: a prefix of id itself
// when no segment was percent-decoded, else the decoded segments joined.
func scopeOf(id string, segs []string, decoded bool) string {
	if decoded {
		return "/" + strings.Join(segs, "/")
	}
	n := len(segs) // the slashes before each segment
	for _, s := range segs {
		n += len(s)
	}
	return id[:n]
}

// segmentProblem says why s cannot be one segment of an ARM ID, or "".
func segmentProblem(s string) string {
	if s == "" {
		return "it has an empty segment (look for a doubled or leading/trailing slash)"
	}
	if err := ValidateName(s); err != nil {
		return fmt.Sprintf("segment %q: %v", Printable(s), err)
	}
	return ""
}

// ValidateName checks one resource name (or any single ID segment): it
// must not be empty, "." or "..", contain '/', '\\', '?', '#', '%' or
// control characters, bidirectional overrides or other invisible format
// characters, nor end in a dot or space. Each of these either makes ARM
// (or an HTTP client or proxy in between) read a different path than the
// one the user sees, or makes a name print as something it is not.
func ValidateName(s string) error {
	switch s {
	case "":
		return fmt.Errorf("is empty")
	case ".", "..":
		return fmt.Errorf("%q is a relative path segment; ARM would resolve it to another resource", s)
	}
	for _, r := range s {
		switch {
		case r == '/' || r == '\\':
			return fmt.Errorf("contains %q, which separates path segments", r)
		case r == '?' || r == '#':
			return fmt.Errorf("contains %q, which ends the path in a URL", r)
		case r == '%':
			return fmt.Errorf("contains '%%', which would be read as a percent-escape")
		case r == unicode.ReplacementChar:
			return fmt.Errorf("is not valid UTF-8")
		case unicode.IsControl(r):
			return fmt.Errorf("contains the control character %U", r)
		case unicode.Is(unicode.Cf, r):
			// Bidi overrides, zero-width joiners and the like: invisible,
			// and able to make a name print as a different one.
			return fmt.Errorf("contains the invisible format character %U", r)
		}
	}
	if strings.HasSuffix(s, ".") || strings.HasSuffix(s, " ") {
		return fmt.Errorf("ends with %q; ARM trims it and would address another resource", s[len(s)-1:])
	}
	return nil
}

// Printable renders s with control and format characters escaped, for
// error messages and plans that must not let a name move the terminal.
func Printable(s string) string {
	clean := true
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == unicode.ReplacementChar {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == unicode.ReplacementChar {
			fmt.Fprintf(&b, "\\u%04x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
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
	if len(id.Names) < len(id.Types) {
		return "" // not a valid ID: one name per type
	}
	// Subscriptions and resource groups are the two IDs without a
	// /providers/ section.
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

// Key is the canonical comparison key of the ID (see Key).
func (id ID) Key() string { return Key(id.String()) }

// IsResourceGroup reports whether id names a resource group.
func (id ID) IsResourceGroup() bool { return strings.EqualFold(id.Type(), ResourceGroupType) }

// IsSubscription reports whether id names a subscription.
func (id ID) IsSubscription() bool { return strings.EqualFold(id.Type(), SubscriptionType) }

// IsChild reports whether id is a child resource (a type with more than one
// segment, such as virtualNetworks/subnets).
func (id ID) IsChild() bool { return len(id.Types) > 1 }

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
	p, err := Parse(id.Scope)
	if err != nil {
		return ID{}, false
	}
	return p, true
}

// Key is the map key under which ARM IDs compare equal: ARM compares IDs
// case-insensitively and ignores trailing slashes. It does not parse, so it
// is safe on any string.
func Key(id string) string { return strings.ToLower(strings.TrimRight(id, "/")) }

// Equal compares two ARM IDs the way ARM does. IDs are ASCII nearly always,
// and then they compare without the lowered copies Key makes.
func Equal(a, b string) bool {
	a, b = strings.TrimRight(a, "/"), strings.TrimRight(b, "/")
	if eq, ok := asciiEqualFold(a, b); ok {
		return eq
	}
	return Key(a) == Key(b)
}

// asciiEqualFold compares a and b ignoring ASCII case; ok is false when
// either holds a non-ASCII byte before they are known to differ, where
// only Key's Unicode lowering decides.
func asciiEqualFold(a, b string) (eq, ok bool) {
	if len(a) != len(b) {
		// Lowering keeps ASCII lengths; a non-ASCII rune may change its length.
		return false, isASCII(a) && isASCII(b)
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if x|y >= utf8.RuneSelf {
			return false, false
		}
		if lowerASCII(x) != lowerASCII(y) {
			return false, isASCII(a[i:]) && isASCII(b[i:])
		}
	}
	return true, true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Contains reports whether child lies strictly inside parent's path (a
// child resource, an extension resource, or anything in a resource group
// or subscription), compared as ARM compares IDs.
func Contains(parent, child string) bool {
	p, c := strings.TrimRight(parent, "/"), strings.TrimRight(child, "/")
	if isASCII(p) && isASCII(c) {
		return len(c) > len(p) && c[len(p)] == '/' && strings.EqualFold(c[:len(p)], p)
	}
	p, c = Key(parent), Key(child)
	return len(c) > len(p) && strings.HasPrefix(c, p) && c[len(p)] == '/'
}

// ParentKey returns the comparison key of the ID's parent, "" when it has none
// or does not parse.
func ParentKey(id string) string {
	x, err := Parse(id)
	if err != nil {
		return ""
	}
	p, ok := x.Parent()
	if !ok {
		return ""
	}
	return p.Key()
}

// TypeOf returns the resource type of an ID without full validation ("" if
// it does not parse).
func TypeOf(id string) string {
	x, err := Parse(id)
	if err != nil {
		return ""
	}
	return x.Type()
}

// SubscriptionOf returns the subscription an ID or request path lies in,
// lower-cased, or "" for tenant-level paths. It does not require a whole ID.
func SubscriptionOf(path string) string {
	segs := strings.Split(path, "/")
	for i := 0; i+1 < len(segs); i++ {
		if strings.EqualFold(segs[i], "subscriptions") && segs[i+1] != "" {
			return strings.ToLower(segs[i+1])
		}
	}
	return ""
}
