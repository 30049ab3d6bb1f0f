package secret

import (
	"slices"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
)

// Facts is what a schema says about the properties of one type at one
// api-version. The caller adapts its schema (pkg/secret sits below it).
type Facts interface {
	// SecretAt reports whether the schema marks the property at the
	// concrete body path p secret or sensitive (x-ms-secret, format:
	// password, Bicep's sensitive marker).
	SecretAt(p bodypath.Path) bool
}

// Rule answers "is the value at body path P of this resource sensitive?".
// It is the one decision: state records, plans, imports, get, request logs
// and error scrubbing all ask it. A value is sensitive when
//   - its path is one the caller says came from valueFrom (environment,
//     Kubernetes Secret, ARM action) or from a reference to a secret
//     (Rule's extra patterns), or lies below one;
//   - the schema marks its property secret (Facts);
//   - the type keeps secrets under names that say nothing (TypePaths: a
//     Key Vault secret's properties.value, App Service app settings);
//   - it is a string under a credential name (Name);
//   - it lies inside a credential container (UnderContainer).
//
// A nil *Rule knows no type, schema or valueFrom: it still applies names
// and containers.
type Rule struct {
	facts    Facts
	patterns []bodypath.Path
}

// For returns the rule for one resource. typ is its ARM type and name its
// own (last) name: App Service config resources are secret or not by name.
// facts may be nil. extra are body-path patterns (valueFrom paths,
// "properties.*", "a[*].b") whose values, and everything below them, are
// sensitive.
func For(typ, name string, facts Facts, extra ...string) *Rule {
	return ForBody(typ, name, facts, nil, extra...)
}

// ForBody is For for a resource whose body is known: a type's secret
// paths that a sibling flag of the body turns off (an API Management
// named value with secret: false) are then not secret. Without a body
// (nil) they are, so a caller that cannot see the flag never shows one.
func ForBody(typ, name string, facts Facts, body map[string]any, extra ...string) *Rule {
	r := &Rule{facts: facts}
	for _, s := range append(typePaths(typ, name, body), extra...) {
		if p, err := bodypath.Parse(s); err == nil && len(p) > 0 {
			r.patterns = append(r.patterns, p)
		}
	}
	return r
}

// ForID is For with the type and name taken from an ARM ID.
func ForID(id string, facts Facts, extra ...string) *Rule {
	typ, name := typeAndName(id)
	return For(typ, name, facts, extra...)
}

// ForIDBody is ForBody with the type and name taken from an ARM ID.
func ForIDBody(id string, facts Facts, body map[string]any, extra ...string) *Rule {
	typ, name := typeAndName(id)
	return ForBody(typ, name, facts, body, extra...)
}

// At reports whether the value v found at body path p is sensitive. v may
// be nil when the caller does not hold the value yet; it is then judged
// as a string.
func (r *Rule) At(p bodypath.Path, v any) bool {
	if v == nil {
		v = ""
	}
	return r.Declared(p, v) || UnderContainer(p)
}

// Declared reports whether the value v at body path p is secret by what
// it is rather than by where it sits: a caller's pattern or its type's
// secret paths cover it (Covered), the schema marks it, or it is a string
// under a credential name the schema does not call plain. At adds the
// credential containers. A nil v is no string.
func (r *Rule) Declared(p bodypath.Path, v any) bool {
	if len(p) == 0 {
		return false
	}
	if r.Covered(p) || r != nil && r.facts != nil && r.facts.SecretAt(p) {
		return true
	}
	last := p[len(p)-1]
	return last.Kind == bodypath.Member && !r.plain(p) && Name(last.Name, v)
}

// PlainFacts is a Facts that also knows when a property cannot hold a
// credential whatever its name says: an enum or a boolean (Grafana's
// apiKey is "Enabled" or "Disabled").
type PlainFacts interface {
	Facts
	Plain(p bodypath.Path) bool
}

func (r *Rule) plain(p bodypath.Path) bool {
	if r == nil {
		return false
	}
	pf, ok := r.facts.(PlainFacts)
	return ok && pf.Plain(p)
}

// Covered reports whether p is at or below one of the rule's patterns
// (per-type paths and the caller's valueFrom paths). Identifiers of a
// secret entry (name, id, type) below a pattern are not covered.
func (r *Rule) Covered(p bodypath.Path) bool {
	if r == nil {
		return false
	}
	for _, pat := range r.patterns {
		if len(p) < len(pat) || !matchPrefix(pat, p) {
			continue
		}
		if len(p) > len(pat) && identifierLeaf(p) {
			continue
		}
		return true
	}
	return false
}

// Reaches reports whether a value read at p can hold a sensitive value:
// p itself is sensitive, or one of the rule's patterns lies below p (a
// reference to a whole object that contains a secret).
func (r *Rule) Reaches(p bodypath.Path) bool {
	return r.At(p, nil) || r.Holds(p)
}

// Holds reports whether one of the rule's patterns lies strictly below p:
// the whole value at p has a secret inside it (a note that prints the
// value must withhold it).
func (r *Rule) Holds(p bodypath.Path) bool {
	if r == nil {
		return false
	}
	for _, pat := range r.patterns {
		if len(pat) > len(p) && matchPrefix(pat[:len(p)], p) {
			return true
		}
	}
	return false
}

// MaskIn returns v, the whole value found at body path p (a new object,
// an array printed whole), with every value inside it that the rule calls
// sensitive at its own path replaced by mask: the verdict each would get
// as a change of its own. Places are followed by position, so a pattern
// naming an item by key hides that place in every item it may be. A
// scalar v is returned as is: the caller judges p itself. v is not
// modified; a copy is made only when something is hidden.
func (r *Rule) MaskIn(p bodypath.Path, v any, mask any) any {
	switch v.(type) {
	case map[string]any, []any:
	default:
		return v
	}
	hidden := false
	bodypath.Leaves(v, func(q bodypath.Path, x any) {
		hidden = hidden || x != nil && (IsHash(x) || r.At(append(p[:len(p):len(p)], q...), x))
	})
	if !hidden {
		return v
	}
	return r.mask(v, p.Clone(), mask)
}

// Ref reports whether ${ref:TARGET.PATH} reads a sensitive value: the
// rule of the target (its type's secret paths, credential names and
// containers) says so at path, or the target's own manifest fills path (or
// a value containing it) from valueFrom (targetSecretPaths).
func Ref(targetID, path string, targetSecretPaths ...string) bool {
	p, err := bodypath.Parse(path)
	if err != nil || len(p) == 0 {
		// An unparsable path cannot be judged: judge its last name.
		last := path
		if i := strings.LastIndexAny(last, ".]"); i >= 0 {
			last = last[i+1:]
		}
		return CredentialName(last)
	}
	return ForID(targetID, nil, targetSecretPaths...).Reaches(p)
}

// matchPrefix reports whether pattern matches the first len(pattern)
// segments of p. A pattern member "*" matches any member (and a map member
// a caller wrote as "*"); a pattern item matches the items sameItem says
// it may select.
func matchPrefix(pattern, p bodypath.Path) bool {
	for i, s := range pattern {
		c := p[i]
		if s.Kind == bodypath.Member {
			if c.Kind != bodypath.Member {
				return false
			}
			if s.Name != "*" && !strings.EqualFold(s.Name, c.Name) {
				return false
			}
			continue
		}
		if c.Kind == bodypath.Member || !sameItem(s, c) {
			return false
		}
	}
	return true
}

// sameItem reports whether pattern item s may select the item c: two
// positions or two keys must be equal (keys ignoring case, as ARM names
// do), while a position and a key may name the same item, which cannot
// be known without the body; [*] and [] select any.
func sameItem(s, c bodypath.Seg) bool {
	switch {
	case s.Kind == bodypath.Index && c.Kind == bodypath.Index:
		return s.Index == c.Index
	case s.Kind == bodypath.Keyed && c.Kind == bodypath.Keyed:
		return slices.EqualFunc(s.Values, c.Values, strings.EqualFold)
	}
	return true
}

// identifierLeaf reports whether p ends in a member that identifies an
// entry (name, id, type): never secret, even inside a secret entry.
func identifierLeaf(p bodypath.Path) bool {
	last := p[len(p)-1]
	if last.Kind != bodypath.Member {
		return false
	}
	// Case-insensitively: services answer "Type" as well as "type" (a
	// connection string's {value, type}), as their readers take either.
	switch strings.ToLower(last.Name) {
	case "name", "id", "type":
		return true
	}
	return false
}

// UnderContainer reports whether a leaf path lies inside a credential
// container:
//   - a member named like Container (extension protectedSettings,
//     configurationProtectedSettings, credentials);
//   - an object under a credential name (deployment parameters write
//     {"adminPassword": {"value": ...}}, Data Factory writes
//     {"connectionString": {"type": "SecureString", "value": ...}});
//   - an entry of a "secrets" collection when the entry is an object or a
//     map ({name, value} in Container Apps). A list of plain names under
//     "secrets" (a Key Vault access policy's permissions.secrets) is not
//     secret: it is a list of permission names.
//
// Identifiers of a secret entry (name, id, type) are not inside.
func UnderContainer(p bodypath.Path) bool {
	if len(p) < 2 || identifierLeaf(p) {
		return false
	}
	for i, s := range p[:len(p)-1] {
		if s.Kind != bodypath.Member {
			continue
		}
		if Container(s.Name) || CredentialName(s.Name) || strings.Contains(strings.ToLower(s.Name), "protectedsettings") {
			return true
		}
		if strings.EqualFold(s.Name, "secrets") {
			// secrets.X (a map) or secrets[i].X (an object entry); not
			// secrets[i] itself, a plain list item.
			rest := p[i+1:]
			if rest[0].Kind == bodypath.Member {
				return true
			}
			for _, r := range rest[1:] {
				if r.Kind == bodypath.Member {
					return true
				}
			}
		}
	}
	return false
}

// typeAndName returns the ARM type and the last name of an ID, or "" when
// it is not a resource ID.
func typeAndName(id string) (string, string) {
	pid, err := armid.Parse(id)
	if err != nil {
		return "", ""
	}
	return pid.Type(), pid.Name()
}

// typeRule names the secret paths of one type; names, when set, limits it
// to resources of those names (sites/config/appsettings); offWhenFalse,
// when set, is the body path of a boolean flag that makes the paths plain
// when it is false.
type typeRule struct {
	names        []string
	paths        []string
	offWhenFalse string
}

// typeSecrets are the types whose secrets sit under names that say nothing
// ("value", arbitrary app-setting keys) and that their schemas do not mark,
// from each type's REST API reference: a Key Vault secret's value; API
// Management named values; App Service app settings, connection strings,
// auth settings, publishing credentials and storage mounts (sites and
// slots), whose properties are a free-form map of the user's settings; and
// the same settings written inline in a site's siteConfig.
var typeSecrets = map[string][]typeRule{
	"microsoft.keyvault/vaults/secrets":      {{paths: []string{"properties.value"}}},
	"microsoft.keyvault/managedhsms/secrets": {{paths: []string{"properties.value"}}},
	// "Named Value - Create Or Update": secret "Determines whether the
	// value is a secret and should be encrypted or not"; with false the
	// value is plain configuration and GET returns it.
	"microsoft.apimanagement/service/namedvalues": {{paths: []string{"properties.value"}, offWhenFalse: "properties.secret"}},
	"microsoft.web/sites/config":                  {{names: webSecretConfigs, paths: []string{"properties.*"}}},
	"microsoft.web/sites/slots/config":            {{names: webSecretConfigs, paths: []string{"properties.*"}}},
	"microsoft.web/sites":                         {{paths: webInlineSecrets}},
	"microsoft.web/sites/slots":                   {{paths: webInlineSecrets}},
}

var webInlineSecrets = []string{"properties.siteConfig.appSettings[*].value", "properties.siteConfig.connectionStrings[*].connectionString"}

var webSecretConfigs = []string{"appsettings", "connectionstrings", "authsettings", "authsettingsv2", "publishingcredentials", "azurestorageaccounts"}

// TypePaths returns the body-path patterns where resources of type typ
// named name keep secrets under neutral names. name may be "" when unknown
// (a rule limited to some names then does not apply).
func TypePaths(typ, name string) []string {
	return typePaths(typ, name, nil)
}

// typePaths is TypePaths for a resource whose body may say a rule is off.
func typePaths(typ, name string, body map[string]any) []string {
	var out []string
	for _, r := range typeSecrets[strings.ToLower(typ)] {
		if len(r.names) > 0 && !containsFold(r.names, name) {
			continue
		}
		if r.offWhenFalse != "" && flagFalse(body, r.offWhenFalse) {
			continue
		}
		out = append(out, r.paths...)
	}
	return out
}

// flagFalse reports whether the body holds false (or "false") at path.
func flagFalse(body map[string]any, path string) bool {
	if body == nil {
		return false
	}
	p, err := bodypath.Parse(path)
	if err != nil {
		return false
	}
	v, ok := p.Get(body)
	if !ok {
		return false
	}
	switch x := v.(type) {
	case bool:
		return !x
	case string:
		return strings.EqualFold(x, "false")
	}
	return false
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// TypePathsOf is TypePaths for the resource an ARM ID names.
func TypePathsOf(id string) []string {
	return TypePaths(typeAndName(id))
}

// Mask returns a deep copy of a body with every scalar the rule calls
// sensitive replaced by mask (Placeholder for people, a log's marker).
func (r *Rule) Mask(v any, mask any) any { return r.mask(v, nil, mask) }

func (r *Rule) mask(v any, p bodypath.Path, mask any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = r.mask(x, append(p[:len(p):len(p)], bodypath.Field(k)), mask)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = r.mask(x, append(p[:len(p):len(p)], bodypath.At(i)), mask)
		}
		return out
	case nil:
		return nil
	}
	if IsHash(v) || r.At(p, v) {
		return mask
	}
	return v
}

// HashedPaths lists the body paths where a body from state (L or B) holds
// a hashed secret: whatever made it secret then, the live value there is
// secret now.
func HashedPaths(body any) []string {
	var out []string
	bodypath.Leaves(body, func(p bodypath.Path, v any) {
		if IsHash(v) && len(p) > 0 {
			out = append(out, p.String())
		}
	})
	return out
}
