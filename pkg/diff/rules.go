package diff

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// Rule names: shown by --explain for every owned path judged equal.
const (
	RuleExact           = "exact"
	RuleNumeric         = "numeric-equivalence"     // 1 = 1.0, "1" = 1
	RuleBoolString      = "boolean-string"          // "true" = true
	RuleLocation        = "location-name"           // "West US 2" = westus2
	RuleARMID           = "arm-id-case-insensitive" // ARM IDs compare case-insensitively
	RuleName            = "resource-name-case-insensitive"
	RuleARMIDName       = "arm-id-by-name"               // "plan1" given, ".../serverfarms/plan1" answered
	RuleEnum            = "enum-case-insensitive"        // enum values compare case-insensitively
	RuleToken           = "token-case-insensitive"       // enum-like token, spec gives no enum
	RuleNullAbsent      = "null-equals-absent"           // desired null, live absent
	RuleEmptyAbsent     = "empty-equals-absent"          // desired {} / [] / "", live absent or null
	RuleSchemaDefault   = "schema-default"               // desired = spec default, live absent
	RulePluginDefault   = "plugin-default"               // desired = undeclared server default, live absent
	RuleScalarSet       = "scalar-array-as-set"          // same elements, other order
	RuleServerAdded     = "server-added-items-not-owned" // live has extra array items / keys
	RuleNormalizer      = "plugin-normalizer"
	RuleSecretHash      = "secret-hash"          // desired's HMAC equals last-applied's
	RuleLiveMatches     = "live-already-matches" // manifest changed, but live already holds it
	RuleAlreadyAbsent   = "already-absent"       // removed from manifest, already absent live
	RuleTimeEquivalence = "datetime-equivalence" // same instant, other spelling
	RuleUnsetValue      = "plugin-unset-value"   // desired value means "server decides"
	RuleKeyCase         = "property-name-case-insensitive"
	RuleZeroUnset       = "zero-value-means-unset" // desired "" or 0: the server chooses
	RuleUnkeyedMatch    = "unkeyed-items-matched"  // same items, other order, no identifiers
	RuleIdentityType    = "identity-type-list"     // "SystemAssigned, UserAssigned" spacing
	RuleLocationNotKept = "location-not-stored"    // proxy resources drop the location they are sent
	RuleIdentityNone    = "identity-none-equals-absent"
	RuleURLSlash        = "url-trailing-slash"

	// General rule families that hold across providers (each has a table
	// test in rules_test.go and is measured on both halves of the corpus).
	RuleGUID          = "guid-case-insensitive"               // principal and application IDs re-cased
	RuleBoolCase      = "boolean-string-case"                 // "True" answered as "true"
	RuleIDScope       = "arm-id-tenant-vs-subscription-scope" // /providers/… answered as /subscriptions/S/providers/…
	RuleIDRelative    = "arm-id-relative-vs-absolute"         // "resourceGroups/rg/…" or "subscriptions/…" without the leading slash
	RuleLeadingSlash  = "path-leading-slash"                  // "/health" answered as "health" or the reverse
	RuleSurroundSpace = "surrounding-whitespace"              // " value " answered trimmed

	// Families of issue 32: values services re-format or re-spell, and
	// leaves GET does not return. Evidence for each in docs/plugins.md.
	RuleJSONDocument = "json-document-canonical" // a JSON document in a string, re-indented or re-ordered
	RuleXMLDocument  = "xml-document-canonical"  // an XML document in a string, re-indented, attributes re-ordered
	RuleLineEndings  = "line-endings"            // CRLF answered as LF or the reverse
	RuleDuration     = "duration-equivalence"    // PT1H = 01:00:00, PT2H0M = PT2H, PT7D = P7D
	RuleVersionV     = "version-v-prefix"        // "1.24.9" answered as "v1.24.9"
	RuleEnumOrdinal  = "enum-ordinal"            // an enum member answered as its position in the spec's list
	RuleBase64       = "base64-encoding"         // same bytes: padding, line breaks, URL-safe alphabet
	// RuleNotReturned names the first-plan treatment of an owned value
	// live does not return: planned as unverifiable and written once
	// (cause "unverifiable"), never claimed as a difference.
	RuleNotReturned = "unverifiable-not-returned"
)

// locationKey reports whether a field holds an Azure region name.
func locationKey(k string) bool {
	l := strings.ToLower(k)
	// location, dataCenterLocation, failoverLocation, region, locationName
	return strings.HasSuffix(l, "location") || strings.HasSuffix(l, "region") || l == "locationname"
}

// normLocation canonicalises a region: ARM answers "westus2" to a request
// that said "West US 2", in any case.
func normLocation(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		// Display names carry spaces and parentheses ("North Central US
		// (Stage)" is northcentralusstage): keep letters and digits only.
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// looksARMID reports whether s is an ARM resource ID (or a provider-scoped
// one). ARM treats every segment case-insensitively and often re-cases
// resource-group and provider segments in responses.
func looksARMID(s string) bool {
	return len(s) > 11 && s[0] == '/' && (hasPrefixFold(s, "/subscriptions/") || hasPrefixFold(s, "/providers/"))
}

func hasPrefixFold(s, p string) bool {
	return len(s) >= len(p) && strings.EqualFold(s[:len(p)], p)
}

// nameKey reports whether a field holds an ARM resource name, which ARM
// compares case-insensitively.
func nameKey(k string) bool {
	return k == "name"
}

// Number returns v as a float64 when it is a JSON number in any Go form;
// the diff's "1 = 1.0" rule and import's default check both use it.
func Number(v any) (float64, bool) { return toFloat(v) }

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case int32:
		return float64(n), true
	case uint64:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

func numStringEqual(s string, f float64) bool {
	g, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return err == nil && (g == f || math.Abs(g-f) < 1e-12*math.Max(1, math.Abs(f)))
}

// scalarEqual compares two non-container values under the normalisation
// rules and names the rule that made them equal. key is the field name
// holding the values, sp its schema path. A rule family switched off
// (Input.DisableRules) makes no value equal.
func (f *facts) scalarEqual(sp schema.Path, key string, x, y any) (bool, string) {
	ok, rule := f.scalarRules(sp, key, x, y)
	if ok && f.off[rule] {
		return false, ""
	}
	return ok, rule
}

func (f *facts) scalarRules(sp schema.Path, key string, x, y any) (bool, string) {
	switch xv := x.(type) {
	case string:
		switch yv := y.(type) {
		case string:
			return f.stringEqual(sp, key, xv, yv)
		case bool:
			if strings.EqualFold(xv, strconv.FormatBool(yv)) {
				return true, RuleBoolString
			}
			return false, ""
		default:
			if fy, ok := toFloat(y); ok && numStringEqual(xv, fy) {
				return true, RuleNumeric
			}
			if f.enumOrdinal(sp, xv, y) {
				return true, RuleEnumOrdinal
			}
			return false, ""
		}
	case bool:
		switch yv := y.(type) {
		case bool:
			return xv == yv, RuleExact
		case string:
			if strings.EqualFold(yv, strconv.FormatBool(xv)) {
				return true, RuleBoolString
			}
		}
		return false, ""
	case nil:
		return y == nil, RuleExact
	}
	if fx, ok := toFloat(x); ok {
		if fy, ok := toFloat(y); ok {
			if fx == fy {
				if _, same := x.(float64); same {
					if _, same2 := y.(float64); same2 {
						return true, RuleExact
					}
				}
				return true, RuleNumeric
			}
			return false, ""
		}
		if ys, ok := y.(string); ok && numStringEqual(ys, fx) {
			return true, RuleNumeric
		}
		if ys, ok := y.(string); ok && f.enumOrdinal(sp, ys, x) {
			return true, RuleEnumOrdinal
		}
	}
	return false, ""
}

// enumOrdinal reports whether n is the position of member s in the enum
// the spec declares at sp: services written in .NET answer an enum as its
// number when the model lacks a string converter (Cosmos DB Mongo role
// definitions answer "CustomRole" as 1 with the enum [BuiltInRole,
// CustomRole]).
func (f *facts) enumOrdinal(sp schema.Path, s string, n any) bool {
	p := f.prop(sp)
	if p == nil || len(p.Enum) == 0 {
		return false
	}
	num, ok := n.(json.Number)
	if !ok {
		if fl, isF := n.(float64); isF && fl == math.Trunc(fl) {
			num = json.Number(strconv.FormatFloat(fl, 'f', -1, 64))
		} else {
			return false
		}
	}
	i, err := strconv.Atoi(num.String())
	if err != nil || i < 0 || i >= len(p.Enum) {
		return false
	}
	return strings.EqualFold(p.Enum[i], s)
}

func (f *facts) stringEqual(sp schema.Path, key, x, y string) (bool, string) {
	if x == y {
		return true, RuleExact
	}
	if locationKey(key) && normLocation(x) == normLocation(y) {
		return true, RuleLocation
	}
	if sp == "identity.type" && identityTypeEqual(x, y) {
		return true, RuleIdentityType
	}
	// Documents are compared as documents, never by the case rules.
	if jx, jy := jsonDocument(x), jsonDocument(y); jx && jy {
		return jsonDocEqual(x, y), RuleJSONDocument
	}
	if xmlDocument(x) && xmlDocument(y) {
		if eq, ok := xmlDocEqual(x, y); ok {
			return eq, RuleXMLDocument
		}
	}
	if strings.ContainsRune(x, '\r') || strings.ContainsRune(y, '\r') {
		if lf(x) == lf(y) {
			return true, RuleLineEndings
		}
	}
	if !strings.EqualFold(x, y) {
		if ok, rule := canonicalEqual(key, x, y); ok {
			return true, rule
		}
		if ok := sameInstant(x, y); ok {
			return true, RuleTimeEquivalence
		}
		if sameQuantity(x, y) {
			return true, RuleNumeric
		}
		if sameDuration(x, y) {
			return true, RuleDuration
		}
		if versionV(x, y) {
			return true, RuleVersionV
		}
		if sameBase64(x, y) {
			return true, RuleBase64
		}
		if isURL(x) && isURL(y) && strings.TrimSuffix(x, "/") == strings.TrimSuffix(y, "/") {
			return true, RuleURLSlash
		}
		if looksARMID(x) && looksARMID(y) && strings.EqualFold(strings.TrimRight(x, "/"), strings.TrimRight(y, "/")) {
			return true, RuleARMID
		}
		if looksARMID(y) && x != "" && !strings.Contains(x, "/") && idKey(sp, key, f) && strings.EqualFold(lastSegment(y), x) {
			// A reference given by name where the API accepts either and
			// answers with the full ID (Web sites' serverFarmId).
			return true, RuleARMIDName
		}
		return false, ""
	}
	// Same letters, other case: equal only where ARM itself ignores case.
	if armid.IsGUID(x) {
		return true, RuleGUID
	}
	if lx := strings.ToLower(x); lx == "true" || lx == "false" {
		return true, RuleBoolCase
	}
	inEnum := false
	if p := f.prop(sp); p != nil {
		if p.ARMID {
			return true, RuleARMID
		}
		for _, e := range p.Enum {
			if strings.EqualFold(e, x) {
				return true, RuleEnum
			}
		}
		inEnum = len(p.Enum) > 0
	}
	_ = inEnum
	if looksARMID(x) {
		return true, RuleARMID
	}
	if nameKey(key) {
		return true, RuleName
	}
	// (An enum that holds neither spelling is a polymorphic or stale spec
	// list: the token rule applies too.)
	if p := f.prop(sp); p == nil || p.Type == "" || p.Type == "string" {
		// The spec gives no enum: a value that reads like an enum member
		// (one identifier-like token) is compared case-insensitively, as
		// ARM answers "Basic" to "BASIC" across providers. Free text (tags,
		// descriptions, setting values) keeps its case.
		if enumLike(x) && !freeTextKey(sp, key) {
			return true, RuleToken
		}
	}
	return false, ""
}

// canonicalEqual applies the general rules for values a service rewrites
// to a canonical form: ARM IDs written tenant-scoped or relative, a path
// with or without its leading slash, surrounding white space. x and y
// differ by more than case.
func canonicalEqual(key, x, y string) (bool, string) {
	if strings.TrimSpace(x) != x || strings.TrimSpace(y) != y {
		tx, ty := strings.TrimSpace(x), strings.TrimSpace(y)
		if tx == ty && tx != "" {
			return true, RuleSurroundSpace
		}
	}
	if looksARMID(x) || looksARMID(y) {
		if sameScopedID(x, y) {
			return true, RuleIDScope
		}
		if sameRelativeID(x, y) {
			return true, RuleIDRelative
		}
		return false, ""
	}
	if pathKey(key) && strings.TrimPrefix(x, "/") == strings.TrimPrefix(y, "/") && x != "" && y != "" {
		return true, RuleLeadingSlash
	}
	return false, ""
}

// sameScopedID reports whether one ID is the tenant-level form
// (/providers/NS/…) of the other's subscription-scoped form
// (/subscriptions/S/providers/NS/…), as role-definition IDs are answered.
func sameScopedID(x, y string) bool {
	tenant, scoped := x, y
	if !hasPrefixFold(tenant, "/providers/") {
		tenant, scoped = y, x
	}
	if !hasPrefixFold(tenant, "/providers/") || !hasPrefixFold(scoped, "/subscriptions/") {
		return false
	}
	rest := scoped[len("/subscriptions/"):]
	i := strings.IndexByte(rest, '/')
	if i < 0 {
		return false
	}
	return strings.EqualFold(strings.TrimRight(rest[i:], "/"), strings.TrimRight(tenant, "/"))
}

// sameRelativeID reports whether one side is the other's ID written
// without the leading slash or relative to its subscription
// ("resourceGroups/rg/providers/…"), as scope-like inputs accept.
func sameRelativeID(x, y string) bool {
	abs, rel := x, y
	if !looksARMID(abs) {
		abs, rel = y, x
	}
	if !looksARMID(abs) || looksARMID(rel) || rel == "" {
		return false
	}
	if !hasPrefixFold(rel, "subscriptions/") && !hasPrefixFold(rel, "resourceGroups/") && !hasPrefixFold(rel, "providers/") {
		return false
	}
	a := strings.ToLower(strings.TrimRight(abs, "/"))
	r := "/" + strings.ToLower(strings.TrimRight(rel, "/"))
	return strings.HasSuffix(a, r) && (len(a) == len(r) || hasPrefixFold(a, "/subscriptions/"))
}

// pathKey reports whether a field holds a URL path or file path
// (healthCheckPath, path, basePath, probePath).
func pathKey(k string) bool {
	l := strings.ToLower(k)
	return l == "path" || strings.HasSuffix(l, "path")
}

// identityTypeEqual compares managed-identity type lists, which ARM
// re-spaces and re-cases ("SystemAssigned,UserAssigned").
func identityTypeEqual(x, y string) bool {
	norm := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, " ", "")) }
	return norm(x) == norm(y)
}

func freeTextKey(sp schema.Path, key string) bool {
	if sp.Within("tags") {
		return true
	}
	switch strings.ToLower(key) {
	case "value", "description", "displayname", "text", "message", "content", "comment", "comments", "title":
		return true
	}
	return false
}

func isURL(s string) bool {
	return strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://")
}

func idKey(sp schema.Path, key string, f *facts) bool {
	if p := f.prop(sp); p != nil && p.ARMID {
		return true
	}
	return strings.HasSuffix(key, "Id") || strings.HasSuffix(key, "ID")
}

func lastSegment(id string) string {
	id = strings.TrimRight(id, "/")
	return id[strings.LastIndexByte(id, '/')+1:]
}

// sameQuantity reports whether two strings are the same number with the
// same unit suffix ("1.0Gi" and "1Gi"): ARM re-renders quantities.
func sameQuantity(x, y string) bool {
	nx, ux := splitQuantity(x)
	ny, uy := splitQuantity(y)
	if nx == "" || ny == "" || ux != uy {
		return false
	}
	if ux == "" && strings.Contains(nx, ".") && strings.Contains(ny, ".") {
		// Two bare dotted numbers are versions as often as quantities:
		// "1.10" and "1.1" are different extension handler versions.
		return false
	}
	fx, err1 := strconv.ParseFloat(nx, 64)
	fy, err2 := strconv.ParseFloat(ny, 64)
	return err1 == nil && err2 == nil && fx == fy
}

func splitQuantity(s string) (num, unit string) {
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	return s[:i], s[i:]
}

// sameInstant reports whether two strings are RFC 3339 timestamps of the
// same instant ("…11Z" and "…11.000Z"; ARM re-serialises dates).
func sameInstant(x, y string) bool {
	if len(x) < 19 || len(y) < 19 || x[4] != '-' || y[4] != '-' || (x[10] != 'T' && x[10] != 't') || (y[10] != 'T' && y[10] != 't') {
		return false
	}
	tx, err := parseTime(x)
	if err != nil {
		return false
	}
	ty, err := parseTime(y)
	return err == nil && tx.Equal(ty)
}

func parseTime(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	// ARM also writes zone-less timestamps, meaning UTC.
	return time.Parse("2006-01-02T15:04:05.999999999", s)
}

// enumLike reports whether s reads like an enum member: one token of
// letters, digits, '_' or '-', starting with a letter, no spaces.
func enumLike(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	c := s[0]
	if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// isEmpty reports whether v is the empty value of its JSON type.
func isEmpty(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case map[string]any:
		return len(t) == 0
	case []any:
		return len(t) == 0
	case string:
		return t == ""
	}
	return false
}

// rulesTried names the rule families that apply to a pair of values of
// these kinds at this field and that did not explain the difference: what
// --explain prints beside a reported change on a first plan, so a user can
// tell a real change from a normalisation the tool does not know yet.
func (f *facts) rulesTried(sp schema.Path, key string, x, y any) []string {
	out := []string{RuleExact}
	_, xs := x.(string)
	_, ys := y.(string)
	_, xn := toFloat(x)
	_, yn := toFloat(y)
	_, xb := x.(bool)
	_, yb := y.(bool)
	switch {
	case xs && ys:
		if locationKey(key) {
			out = append(out, RuleLocation)
		}
		out = append(out, RuleGUID, RuleBoolCase, RuleARMID, RuleIDScope, RuleIDRelative, RuleARMIDName,
			RuleTimeEquivalence, RuleNumeric, RuleURLSlash, RuleSurroundSpace,
			RuleJSONDocument, RuleXMLDocument, RuleLineEndings, RuleDuration, RuleVersionV, RuleBase64)
		if pathKey(key) {
			out = append(out, RuleLeadingSlash)
		}
		if p := f.prop(sp); p != nil && len(p.Enum) > 0 {
			out = append(out, RuleEnum)
		} else if !freeTextKey(sp, key) {
			out = append(out, RuleToken)
		}
		if nameKey(key) {
			out = append(out, RuleName)
		}
	case xn || yn:
		out = append(out, RuleNumeric)
		if xs || ys {
			out = append(out, RuleEnumOrdinal)
		}
	case xb || yb:
		out = append(out, RuleBoolString)
	}
	if x == nil || y == nil {
		out = append(out, RuleNullAbsent, RuleEmptyAbsent, RuleSchemaDefault, RuleZeroUnset)
	}
	if f.normalizers[sp] != nil {
		out = append(out, RuleNormalizer)
	}
	return out
}
