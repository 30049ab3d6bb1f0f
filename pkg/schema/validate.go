package schema

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/big"
	"slices"
	"strings"
)

// Severity ranks a validation finding.
type Severity int

const (
	// Error: the body cannot be right (wrong JSON type, a value outside a
	// closed enum). pkg/manifest fails the run before any write.
	Error Severity = iota
	// Warning: the spec does not know this (unknown property, value
	// outside an open enum); the service may still accept it.
	Warning
	// Ignored: a readonly property the user set (often pasted from the
	// portal's JSON view). It is reported once and never owned, so it is
	// neither sent nor diffed. --strict turns it into an error.
	Ignored
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	case Ignored:
		return "ignored"
	}
	return fmt.Sprintf("Severity(%d)", int(s))
}

// MarshalText makes severities readable in JSON output.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// IssueKind says what a finding is about, so callers can act on it
// without matching message text.
type IssueKind string

const (
	// KindUnknown: the schema does not declare the property (or not for
	// the body selected by kind or by the resource name).
	KindUnknown IssueKind = "unknown-property"
	// KindType: a value ARM cannot convert to the declared type.
	KindType IssueKind = "wrong-type"
	// KindCoerced: a value of another JSON type that ARM converts
	// ("1073741824" for an integer, "true" for a boolean).
	KindCoerced IssueKind = "coerced"
	// KindEnum: a value outside the declared values.
	KindEnum IssueKind = "enum"
	// KindRequired: a property the create request must carry is missing.
	KindRequired IssueKind = "required"
	// KindReadOnly: a property the service sets.
	KindReadOnly IssueKind = "readonly"
	// KindLimit: a length or range the spec states is exceeded.
	KindLimit IssueKind = "limit"
	// KindName: the resource's own name (metadata.name, not a body
	// path) is not one the type allows; Issue.Path is "".
	KindName IssueKind = "name"
)

// Issue is one validation finding. Path is concrete and dotted
// ("properties.subnets[0].name").
type Issue struct {
	Path     string    `json:"path"`
	Severity Severity  `json:"severity"`
	Kind     IssueKind `json:"kind"`
	Message  string    `json:"message"`
	// Suggestions are the declared names or values closest to an unknown
	// one ("did you mean").
	Suggestions []string `json:"suggestions,omitempty"`
}

func (i Issue) String() string { return i.Path + ": " + i.Severity.String() + ": " + i.Message }

// ValidateOptions carries what validation needs beyond the body.
type ValidateOptions struct {
	// Name is the resource's own name (the last segment of its ID). Types
	// whose body depends on the name (Microsoft.Web/sites/config:
	// appsettings, connectionstrings, web...) are checked against the
	// body that name selects; empty means any of them.
	Name string
	// Create says the resource does not exist yet, so required
	// properties must be present.
	Create bool
}

// Validate checks a request body with no resource name and not as a
// create; see ValidateWith.
func (t *Type) Validate(body map[string]any) []Issue {
	return t.ValidateWith(body, ValidateOptions{})
}

// ValidateWith checks a request body against the type.
//
// The policy is that a body ARM would accept is never an Error. Errors
// are reported only for what is certain on the exact api-version's
// schema: a value ARM cannot convert (an object where a string goes,
// "abc" for an integer), a missing required property on create, a value
// outside a closed enum. Values ARM converts (quoted numbers and
// booleans) are accepted with a Warning; unknown properties (Errors for
// a provider that refuses them, RefusesUnknownMembers), open-enum values
// and limits are Warnings with "did you mean" suggestions; and on a
// type Lookup answered with another api-version (Fallback) every finding
// is at most a Warning. Readonly properties are Ignored.
//
// Findings come in body order (object keys sorted), at most one per
// path; nothing below a readonly, unknown or mistyped value is examined.
// A nil Type has no findings: unknown types are handled elsewhere.
func (t *Type) ValidateWith(body map[string]any, opts ValidateOptions) []Issue {
	if t == nil {
		return nil
	}
	v := &validator{t: t, opts: opts, certain: !t.fallback}
	v.name()
	v.object(body, nil, "", "")
	v.tags(body)
	return v.issues
}

// name checks the resource's own name against a closed list of names:
// singleton children (blobServices is always "default") and the like
// (Key Vault accessPolicies: add, replace, remove). ARM refuses any other
// name. An open list (a hint of common names) is not checked.
func (v *validator) name() {
	n := v.opts.Name
	if i := strings.LastIndexByte(n, '/'); i >= 0 {
		n = n[i+1:] // "st1/default": the resource's own segment
	}
	names := v.t.FixedNames()
	if n == "" || len(names) == 0 || inEnum(names, n) {
		return
	}
	allowed := fmt.Sprintf("%q", names[0])
	if len(names) > 1 {
		allowed = "one of " + strings.Join(names, ", ")
	}
	is := v.add(nil, Error, KindName, "resource name %q is not allowed: a %s %s must be named %s; set metadata.name to that (a name prefix or suffix must not apply to it)", n, v.t.Name, v.t.APIVersion, allowed)
	is.Suggestions = Suggest(n, names)
}

type validator struct {
	t       *Type
	opts    ValidateOptions
	certain bool // judged on the exact api-version: errors are allowed
	issues  []Issue
}

func (v *validator) add(path []string, s Severity, k IssueKind, format string, args ...any) *Issue {
	if s == Error && !v.certain {
		s = Warning
		format += " (judged on api-version %s, the nearest the schema index knows)"
		args = append(args, v.t.APIVersion)
	}
	v.issues = append(v.issues, Issue{Path: JoinPath(path), Severity: s, Kind: k, Message: fmt.Sprintf(format, args...)})
	return &v.issues[len(v.issues)-1]
}

// variantOf returns which body of a polymorphic object applies: the
// discriminator's value (or the resource name) spelled as the schema
// spells it, or "" when the object is not polymorphic here or the value
// is not one the schema knows.
func (v *validator) variantOf(obj map[string]any, sp Path, inherited string) string {
	disc := v.t.Discriminator
	if sp != "" {
		disc = ""
		if p := v.t.Properties[string(sp)]; p != nil {
			disc = p.Discriminator
		}
	}
	if disc == "" {
		return inherited
	}
	var val string
	if disc == "name" && sp == "" {
		val = v.opts.Name
	} else {
		val, _ = obj[disc].(string)
	}
	if val == "" {
		return ""
	}
	return v.t.variants()[strings.ToLower(val)]
}

// inVariant reports whether a property belongs to the active body.
func inVariant(p *Property, active string) bool {
	if len(p.Variants) == 0 || active == "" {
		return true
	}
	for _, x := range p.Variants {
		if x == active {
			return true
		}
	}
	return false
}

func (v *validator) object(obj map[string]any, path []string, sp Path, inherited string) {
	active := v.variantOf(obj, sp, inherited)
	keys := slices.Sorted(maps.Keys(obj))
	for _, k := range keys {
		cp := append(append([]string(nil), path...), k)
		csp, p := v.t.member(sp, k)
		if p != nil && !inVariant(p, active) {
			// Another body's member; in a map-like body (app settings)
			// it is simply a key.
			if m := v.t.Properties[string(sp.MapValue())]; m != nil && inVariant(m, active) {
				csp, p = sp.MapValue(), m
			} else {
				v.unknown(cp, sp, k, active)
				continue
			}
		}
		if p == nil {
			// Only a parent that lists its members makes an extra one
			// suspicious; a free-form object accepts anything.
			if sp == "" || len(v.t.children(sp)) > 0 {
				v.unknown(cp, sp, k, active)
			}
			continue
		}
		n := len(v.issues)
		v.value(obj[k], cp, csp, p, active)
		v.caseMismatch(cp, csp, k, n)
	}
	if v.opts.Create {
		v.required(obj, path, sp, active)
	}
}

func (v *validator) unknown(path []string, sp Path, name, active string) {
	var names []string
	for _, c := range v.t.children(sp) {
		if c == "*" || c == "[]" {
			continue
		}
		if p := v.t.Properties[string(sp.Member(c))]; p != nil && !p.ReadOnly && inVariant(p, active) {
			names = append(names, c)
		}
	}
	where := fmt.Sprintf("%s %s does not declare it", v.t.Name, v.t.APIVersion)
	if active != "" {
		where = fmt.Sprintf("the %s body of %s %s does not declare it", active, v.t.Name, v.t.APIVersion)
	}
	sev := Warning
	if other := v.t.declaringVersion(sp, name); other != "" {
		where += fmt.Sprintf(" (api-version %s does)", other)
	} else if v.t.Detailed && RefusesUnknownMember(v.t.Name, JoinPath(path)) {
		// The provider answers 400 InvalidRequestFormat: the apply
		// would fail.
		sev = Error
		where += ", and its provider refuses members it does not know"
	}
	is := v.add(path, sev, KindUnknown, "unknown property: %s", where)
	if is.Suggestions = Suggest(name, names); len(is.Suggestions) > 0 {
		is.Message += "; did you mean " + strings.Join(is.Suggestions, " or ") + "?"
	}
}

// declaringVersion is the oldest other api-version of the type that
// declares the member name under sp, or "". A strict provider parses a request
// with the model its service code has today, which knows every member any
// version declared: public templates that deploy write a public IP's
// sku.tier (2020-07-01 on) with api-version 2019-11-01, and read-only
// back-references a newer version added. Only a member no version knows
// is refused.
// DeclaringVersion is declaringVersion for a concrete dotted path (as
// Undeclared gives it).
func (t *Type) DeclaringVersion(path string) string {
	segs := SplitPath(path)
	if t == nil || len(segs) == 0 {
		return ""
	}
	parent, _ := t.Resolve(segs[:len(segs)-1])
	return t.declaringVersion(parent, segs[len(segs)-1])
}

func (t *Type) declaringVersion(sp Path, name string) string {
	if t.x == nil || t.x.siblings == nil {
		return ""
	}
	for _, o := range t.x.siblings() {
		if o.APIVersion != t.APIVersion {
			if _, p := o.member(sp, name); p != nil {
				return o.APIVersion
			}
		}
	}
	return ""
}

// required reports the required members of a create body's object that
// are missing.
func (v *validator) required(obj map[string]any, path []string, sp Path, active string) {
	for _, c := range v.t.children(sp) {
		if c == "*" || c == "[]" {
			continue
		}
		p := v.t.Properties[string(sp.Member(c))]
		if p == nil || !p.Required || p.ReadOnly || (len(p.Variants) > 0 && (active == "" || !inVariant(p, active))) {
			continue
		}
		if hasKeyFold(obj, c) {
			continue
		}
		cp := append(append([]string(nil), path...), c)
		// A spec's required flag is evidence, not proof: services fill in
		// many "required" members themselves (public templates that
		// deploy today omit an App Insights component's kind). Only a
		// refusal on record makes it an error (RefusesMissing).
		sev := Warning
		if sp == "" && RefusesMissing(v.t.Name, v.t.APIVersion, c) && (c != "location" || v.t.tracked()) {
			sev = Error
		}
		v.add(cp, sev, KindRequired, "required: %s %s needs %s when it is created; add it to the manifest", v.t.Name, v.t.APIVersion, JoinPath(cp))
	}
}

// tracked reports whether ARM treats the type as a tracked resource, one
// whose create needs a location: its newest api-version requires one.
// Old specs modelled proxy children on a base with a required location
// (Microsoft.Web 2015-08-01's sites/config); ARM never asked for one
// there, and later specs dropped it.
func (t *Type) tracked() bool {
	newest := t
	if t.x != nil && t.x.siblings != nil {
		for _, o := range t.x.siblings() {
			if o.APIVersion > newest.APIVersion {
				newest = o
			}
		}
	}
	p := newest.Properties["location"]
	return p != nil && p.Required
}

func hasKeyFold(obj map[string]any, k string) bool {
	if _, ok := obj[k]; ok {
		return true
	}
	for x := range obj {
		if strings.EqualFold(x, k) {
			return true
		}
	}
	return false
}

func (v *validator) value(val any, path []string, sp Path, p *Property, active string) {
	if p.ReadOnly {
		v.add(path, Ignored, KindReadOnly, "readonly: set by the service, ignored in the request and never owned")
		return
	}
	if val == nil {
		return // null removes a value in a merge patch
	}
	got := jsonTypeOf(val)
	// "type: object" with no members is how many specs say "any JSON"
	// (autorest reads it so), and services send arrays and strings there.
	anyObject := p.Type == TypeObject && len(v.t.children(sp)) == 0
	if !anyObject && !typeAccepts(p.Type, got) && !v.bicepNumber(p, got) {
		switch note, ok := converts(p.Type, val); {
		case ok:
			v.add(path, Warning, KindCoerced, "%s: ARM converts it; write it as %s, as Azure will show it", note, p.Type.withArticle())
		case cannotConvert(p.Type, val):
			v.add(path, Error, KindType, "wrong type: want %s, got %s; ARM cannot convert it", p.Type, got)
		default:
			// Services differ in how they read a mismatched structure
			// (some take a single object for a list): not certain.
			v.add(path, Warning, KindType, "wrong type: want %s, got %s; the service may reject it", p.Type, got)
		}
		return
	}
	if s, ok := val.(string); ok && len(p.Enum) > 0 && !inEnum(p.Enum, s) {
		sev, what := Warning, "is not a known value"
		if p.EnumClosed {
			sev, what = Error, "is not one of the allowed values"
		}
		is := v.add(path, sev, KindEnum, "%q %s (%s)", s, what, strings.Join(p.Enum, ", "))
		if sev == Warning {
			is.Message += "; the service may still accept it"
		}
		if is.Suggestions = Suggest(s, p.Enum); len(is.Suggestions) > 0 {
			is.Message += "; did you mean " + strings.Join(is.Suggestions, " or ") + "?"
		}
		return
	}
	v.limits(val, path, p)
	switch x := val.(type) {
	case map[string]any:
		v.object(x, path, sp, active)
	case []any:
		ip := v.t.Properties[string(sp.Item())]
		if ip == nil {
			return
		}
		for i, item := range x {
			v.value(item, append(append([]string(nil), path...), fmt.Sprintf("[%d]", i)), sp.Item(), ip, active)
		}
	}
}

// limits warns about lengths and ranges outside what the spec states:
// specs are often stricter than the service, so these are never errors.
func (v *validator) limits(val any, path []string, p *Property) {
	switch x := val.(type) {
	case string:
		n := int64(len([]rune(x)))
		if p.MinLength != nil && n < *p.MinLength {
			v.add(path, Warning, KindLimit, "shorter than the minimum length %d the spec states", *p.MinLength)
		} else if p.MaxLength != nil && n > *p.MaxLength {
			v.add(path, Warning, KindLimit, "longer than the maximum length %d the spec states", *p.MaxLength)
		}
	case json.Number, float64, int, int64:
		r, ok := new(big.Rat).SetString(fmt.Sprint(x))
		if !ok {
			return
		}
		if p.MinValue != nil && r.Cmp(new(big.Rat).SetInt64(*p.MinValue)) < 0 {
			v.add(path, Warning, KindLimit, "below the minimum %d the spec states", *p.MinValue)
		} else if p.MaxValue != nil && r.Cmp(new(big.Rat).SetInt64(*p.MaxValue)) > 0 {
			v.add(path, Warning, KindLimit, "above the maximum %d the spec states", *p.MaxValue)
		}
	}
}

// bicepNumber reports whether a fraction goes where only the Bicep type
// index says integer: it writes integer for every JSON number, and with no
// Swagger for the type (FactsFrom empty) nothing says the property is not
// a number (the generator takes the Swagger's number where it has one).
func (v *validator) bicepNumber(p *Property, got JSONType) bool {
	return p.Type == TypeInteger && got == TypeNumber && v.t.Detailed && v.t.FactsFrom == ""
}

// converts reports whether ARM turns val into the wanted type (its JSON
// reader converts quoted numbers and booleans, and numbers or booleans
// where a string goes), with a note for the warning.
func converts(want JSONType, val any) (string, bool) {
	got := jsonTypeOf(val)
	switch want {
	case TypeString:
		if got == TypeInteger || got == TypeNumber || got == TypeBoolean {
			return got.withArticle() + " where a string goes", true
		}
	case TypeInteger, TypeNumber:
		switch x := val.(type) {
		case string:
			// Any number, not only whole ones: the Bicep index calls
			// every JSON number an integer (container CPU is 0.5).
			if isNumeric(strings.TrimSpace(x), false) {
				return "a quoted number", true
			}
			if x == "" {
				// The services' JSON readers take an empty string for
				// an optional number as no value (a public template
				// that deploys writes a PostgreSQL sku capacity "").
				return "an empty string where a number goes (read as no value)", true
			}
		case bool:
			return "a boolean where a number goes", true
		}
		if want == TypeInteger && got == TypeNumber {
			return "a fraction where an integer goes", true
		}
	case TypeBoolean:
		switch x := val.(type) {
		case string:
			if strings.EqualFold(x, "true") || strings.EqualFold(x, "false") {
				return "a quoted boolean", true
			}
		}
		if got == TypeInteger {
			return "a number where a boolean goes", true
		}
	}
	return "", false
}

// cannotConvert lists the mismatches no JSON reader turns into the
// wanted type: a structure where a scalar goes, and a string that is
// not a number or boolean where one goes.
func cannotConvert(want JSONType, val any) bool {
	got := jsonTypeOf(val)
	switch want {
	case TypeString, TypeInteger, TypeNumber, TypeBoolean:
		if got == TypeObject || got == TypeArray {
			return true
		}
	}
	if _, ok := val.(string); ok {
		switch want {
		case TypeInteger, TypeNumber, TypeBoolean:
			return true // converts() already accepted the convertible ones
		}
	}
	return false
}

// withArticle is the type's name for a sentence: "an integer", "a string".
func (j JSONType) withArticle() string {
	switch j {
	case TypeInteger, TypeObject, TypeArray:
		return "an " + string(j)
	case TypeUnknown:
		return "any JSON value"
	}
	return "a " + string(j)
}

// isNumeric accepts what a JSON number may be (any size: big integers
// stay exact), and for integers only whole values.
func isNumeric(s string, integer bool) bool {
	if s == "" {
		return false
	}
	if integer {
		_, ok := new(big.Int).SetString(s, 10)
		return ok
	}
	_, ok := new(big.Rat).SetString(s)
	return ok && !strings.ContainsAny(s, "/")
}

// inEnum compares case-insensitively: ARM treats enum values that way and
// the diff normalises them so too.
func inEnum(enum []string, s string) bool {
	for _, e := range enum {
		if strings.EqualFold(e, s) {
			return true
		}
	}
	return false
}

func jsonTypeOf(v any) JSONType {
	switch x := v.(type) {
	case string:
		return TypeString
	case bool:
		return TypeBoolean
	case map[string]any:
		return TypeObject
	case []any:
		return TypeArray
	case float64:
		if x == math.Trunc(x) {
			return TypeInteger
		}
		return TypeNumber
	case float32:
		return jsonTypeOf(float64(x))
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return TypeInteger
		}
		return TypeNumber
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return TypeInteger
	}
	return TypeUnknown
}

// typeAccepts: an integer is a number; a type the spec leaves out (or
// declares as something JSON has no name for, like "file") accepts
// anything.
func typeAccepts(want, got JSONType) bool {
	switch want {
	case TypeString, TypeInteger, TypeNumber, TypeBoolean, TypeObject, TypeArray:
	default:
		return true
	}
	switch {
	case got == TypeUnknown || want == got:
		return true
	case want == TypeNumber && got == TypeInteger:
		return true
	}
	return false
}
