package diff

import (
	"math/bits"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// The comparison of one pair of values is a list of named rules tried in
// order (compareRules; absentRules for a desired value live does not
// hold). A rule applies where its conditions hold (the comparison's mode,
// the kinds of both values, a rule family the input has not switched off);
// its judge then either decides the pair (records it equal, unverifiable or
// a change, or descends into it) and reports true, or passes it on to the
// next rule. Adding a rule is adding an entry at the right place.
//
// A rule's name says what it does; where it records the pair equal, the
// rule name --explain prints (the Rule constants) is the one it passes to
// comparer.eq, which is also its name here.

// pair is the pair of values being compared at the comparer's path.
type pair struct {
	sp     schema.Path // schema path of the values
	key    string      // the member name holding the values
	x, y   any         // x: desired/owner side, y: other side
	xk, yk kinds       // the kind of each side
}

// kinds is a set of value kinds.
type kinds uint8

const (
	kAbsent kinds = 1 << iota // the side does not hold the path
	kNull                     // JSON null
	kScalar                   // string, number or boolean
	kObject
	kArray
	kindCount = iota

	kValue     = kNull | kScalar // what isScalar calls a scalar
	kContainer = kObject | kArray
)

// kindOf is the kind of a value; held says whether the side holds it.
func kindOf(v any, held bool) kinds {
	if !held {
		return kAbsent
	}
	switch v.(type) {
	case nil:
		return kNull
	case map[string]any:
		return kObject
	case []any:
		return kArray
	}
	return kScalar
}

// scope is a set of conditions on the comparison a rule needs.
type scope uint8

const (
	owner   scope = 1 << iota // owner-side body against live (modeOwner)
	sym                       // D against L (modeSym)
	lenient                   // not when confirming a change made on purpose (strict)
	cooked                    // not in the raw nested comparison secret and normalizer rules run
)

// inScope is the scope a comparer is in.
func (c *comparer) inScope() scope {
	s := lenient | cooked
	if c.mode == modeOwner {
		s |= owner
	} else {
		s |= sym
	}
	if c.strict {
		s &^= lenient
	}
	if c.raw {
		s &^= cooked
	}
	return s
}

// cmpRule is one rule of the comparison.
type cmpRule struct {
	name string
	// in: the scope the rule needs; x, y: the kinds it applies to (zero:
	// any); family: a rule family that switches it off (Input.DisableRules).
	in     scope
	x, y   kinds
	family string
	judge  func(c *comparer, v pair) bool
}

// ruleSet is an ordered list of rules with, for each scope and pair of
// kinds, the rules whose conditions hold in that order: run then tests
// nothing but rule families, which an input may switch off.
type ruleSet struct {
	sel [16][kindCount][kindCount][]*cmpRule
}

func newRuleSet(rules []cmpRule) *ruleSet {
	rs := &ruleSet{}
	for in := scope(0); in < 16; in++ {
		for xi := 0; xi < kindCount; xi++ {
			for yi := 0; yi < kindCount; yi++ {
				xk, yk := kinds(1)<<xi, kinds(1)<<yi
				for i := range rules {
					r := &rules[i]
					if r.in&^in != 0 || r.x != 0 && r.x&xk == 0 || r.y != 0 && r.y&yk == 0 {
						continue
					}
					rs.sel[in][xi][yi] = append(rs.sel[in][xi][yi], r)
				}
			}
		}
	}
	return rs
}

// run tries the rules that apply, in order, until one decides the pair.
func (c *comparer) run(rs *ruleSet, v pair) {
	for _, r := range rs.sel[c.inScope()][bits.TrailingZeros8(uint8(v.xk))][bits.TrailingZeros8(uint8(v.yk))] {
		if r.family != "" && !c.f.on(r.family) {
			continue
		}
		if r.judge(c, v) {
			return
		}
	}
}

// compareRules decide a pair of values at one path; absentRules a desired
// value whose path live does not hold. Both are set once by init, because
// rules descend into values by calling compare again; they never change.
var compareRules, absentRules *ruleSet

func init() {
	compareRules = newRuleSet([]cmpRule{
		// Presence.
		{name: "readonly-not-owned", judge: readOnlyNotOwned},
		{name: "absent-on-both-sides", x: kAbsent, y: kAbsent, judge: decided},
		{name: "child-collection-dropped", x: kAbsent, y: kArray, judge: childCollectionDropped},
		{name: RuleNullAbsent, x: kAbsent, y: kNull, judge: equal(RuleNullAbsent)},
		{name: "removed", x: kAbsent, judge: removed},
		{name: "not-in-live", y: kAbsent, judge: notInLive},

		// Values that mean "not set".
		{name: RuleNullAbsent, in: owner | lenient, x: kNull, family: RuleNullAbsent, judge: equal(RuleNullAbsent)},
		{name: RuleUnsetValue, in: owner | lenient, judge: unsetValue},

		// Secrets and values GET withholds.
		{name: RuleSecretHash + " (L)", in: sym, y: kScalar, judge: hashedInL},
		{name: RuleSecretHash + " (B)", in: owner, x: kScalar, y: kValue, judge: hashedInB},
		{name: "secret-value", in: cooked, x: kValue, judge: secretValue},
		{name: "masked-by-get", in: owner, x: kValue, y: kScalar, judge: maskedByGET},
		{name: RuleNormalizer, in: cooked, judge: normalized},

		// Objects and arrays.
		{name: RuleServerAdded, in: owner, x: kObject, y: kObject, family: RuleServerAdded, judge: emptyObjectOwnsNothing},
		{name: "members", x: kObject, y: kObject, judge: members},
		{name: "items", x: kArray, y: kArray, judge: items},
		{name: RuleEmptyAbsent, x: kContainer, y: kNull, family: RuleEmptyAbsent, judge: emptyEqualsAbsent},
		// Live answers null for a container: withheld, as value-withheld.
		{name: "container-withheld", in: owner | lenient, x: kContainer, y: kNull, judge: unverifiable},
		{name: "container-changed", x: kContainer, judge: changed},

		// Scalars and null.
		{name: RuleNullAbsent + " (object)", in: owner | lenient, x: kNull, y: kObject, judge: equal(RuleNullAbsent)},
		{name: "kind-changed", y: kContainer, judge: changed},
		{name: "scalar-rules", judge: scalarRules},
		{name: RuleZeroUnset, in: owner | lenient, y: kScalar, family: RuleZeroUnset, judge: zeroMeansUnset},
		{name: RuleNullAbsent + " (empty)", in: owner, x: kNull, judge: nullAgainstEmpty},
		{name: RuleEmptyAbsent + " (string)", x: kScalar, y: kNull, family: RuleEmptyAbsent, judge: emptyStringAbsent},
		{name: "default", y: kNull, judge: liveNullIsDefault},
		// GET answers null for values it withholds (webhook URLs, app
		// settings): the write cannot be verified, which is not a change.
		{name: "value-withheld", in: owner | lenient, y: kNull, judge: unverifiable},
		{name: "changed", judge: changed},
	})

	absentRules = newRuleSet([]cmpRule{
		{name: RuleNullAbsent, in: sym, x: kNull, judge: equal(RuleNullAbsent)},
		{name: "added", in: sym, judge: added},

		// From here on the owner side against live (modeOwner).
		{name: RuleNullAbsent, x: kNull, judge: equal(RuleNullAbsent)},
		{name: RuleEmptyAbsent, family: RuleEmptyAbsent, judge: emptyEqualsAbsent},
		{name: RuleIdentityNone, in: lenient, family: RuleIdentityNone, judge: identityNone},
		{name: RuleLocationNotKept, in: lenient, family: RuleLocationNotKept, judge: locationNotKept},
		{name: "declared-default", judge: declaredDefault},
		{name: RuleZeroUnset, in: lenient, family: RuleZeroUnset, judge: zeroNotReturned},
		{name: "withheld-by-get", judge: withheldByGET},
		{name: RuleNotReturned + " (object)", in: lenient, x: kObject, family: RuleNotReturned, judge: nestedObjectNotReturned},
		{name: "members-not-in-live", x: kObject, judge: membersNotInLive},
		{name: RuleNotReturned, in: owner | lenient, family: RuleNotReturned, judge: firstPlanNotReturned},
		{name: "added", judge: addedUnsecret},
	})
}

// decided ends the comparison with nothing to record.
func decided(*comparer, pair) bool { return true }

// equal records the pair equal by rule.
func equal(rule string) func(*comparer, pair) bool {
	return func(c *comparer, _ pair) bool {
		c.eq(rule)
		return true
	}
}

// unverifiable records that the pair cannot be compared: not a change.
func unverifiable(c *comparer, _ pair) bool {
	c.unverifiable = append(c.unverifiable, c.path.Clone())
	return true
}

func changed(c *comparer, v pair) bool {
	c.emit(v.sp, plan.KindChange, v.x, v.y, false)
	return true
}

func readOnlyNotOwned(c *comparer, v pair) bool {
	if !c.f.isReadOnly(v.sp) {
		return false
	}
	if v.xk != kAbsent && c.mode == modeOwner {
		c.ignored = append(c.ignored, c.path.Display())
	}
	return true
}

// childCollectionDropped: dropping a child collection from the manifest
// releases the items it listed, one by one; children owned elsewhere stay.
func childCollectionDropped(c *comparer, v pair) bool {
	if !c.f.children[v.sp] {
		return false
	}
	c.compareArray(v.sp, v.key, []any{}, v.y.([]any))
	return true
}

// removed: in L, not in D (modeSym only): the user removed it.
func removed(c *comparer, v pair) bool {
	c.emit(v.sp, plan.KindRemove, nil, v.y, c.secretAt(v.sp, v.key, v.y))
	return true
}

func notInLive(c *comparer, v pair) bool {
	c.absent(v.sp, v.key, v.x)
	return true
}

// unsetValue: a value the plugin says means "let the server decide" at sp
// (AKS sends osDiskSizeGB: 0 for "default size").
func unsetValue(c *comparer, v pair) bool {
	vals, ok := c.f.unset[v.sp]
	if !ok || !isScalar(v.x) {
		return false
	}
	for _, u := range vals {
		if eq, _ := c.f.scalarEqual(v.sp, "", v.x, u); eq {
			c.eq(RuleUnsetValue)
			return true
		}
	}
	return false
}

// hashedInL: L holds a salted hash; live never shows the value.
func hashedInL(c *comparer, v pair) bool {
	ys, ok := v.y.(string)
	if !ok || !strings.HasPrefix(ys, secret.HashPrefix) {
		return false
	}
	if c.hashMatches(v.sp, v.x, ys) {
		c.eq(RuleSecretHash)
		return true
	}
	c.emit(v.sp, plan.KindChange, v.x, v.y, true)
	return true
}

// hashMatches reports whether value hashes to hashed at the current path,
// as pkg/record hashes it (map keys kept, schema.HashPathOf), or under the
// schema path alone, as records written before did.
func (c *comparer) hashMatches(sp schema.Path, value any, hashed string) bool {
	hp := schema.HashPathOf(c.path, c.f.isMap)
	return secret.Matches(c.key, hp, value, hashed) || hp != string(sp) && secret.Matches(c.key, string(sp), value, hashed)
}

// hashedInB: a baseline hashed like L (pkg/record): live matches when its
// value hashes the same; otherwise the difference cannot be told from a
// masked or re-encoded answer, so it is unverifiable, never drift.
func hashedInB(c *comparer, v pair) bool {
	xs, ok := v.x.(string)
	if !ok || !secret.IsHash(xs) {
		return false
	}
	if ys, ok := v.y.(string); ok && ys == xs || c.key != nil && c.hashMatches(v.sp, v.y, xs) {
		// (The same hash on both sides: a body already hashed, as a
		// record compared with itself.)
		c.eq(RuleSecretHash)
		return true
	}
	if sent, ok := get(c.sent, c.path); ok && sent == xs && c.projected && c.key != nil {
		// B hashes what the read right after the last write showed, and
		// it equals L's hash: the service answers this secret as it was
		// sent (a tag, an app setting). Another value now was set
		// outside: drift, not a silence. Where the service masks or
		// transforms it (B differs from L) a difference proves nothing.
		c.emit(v.sp, plan.KindChange, v.x, v.y, true)
		return true
	}
	return unverifiable(c, v)
}

// secretValue compares a secret in clear. (Members inside a credential
// container that GET does return are compared like any value; Result
// marks them sensitive for display.)
func secretValue(c *comparer, v pair) bool {
	if !c.secretValueAt(v.sp, v.key, v.x) {
		return false
	}
	if ok, rule := c.deepEqual(v.sp, v.key, v.x, v.y); ok {
		c.eq(rule)
		return true
	}
	if c.mode == modeOwner {
		// GET masks or omits secrets: a difference proves nothing.
		return unverifiable(c, v)
	}
	c.emit(v.sp, plan.KindChange, v.x, v.y, true)
	return true
}

// maskedByGET: GET masks the value ("*****"), or blanks the entries of a
// map of protected settings (answered as ""): it cannot be compared.
func maskedByGET(c *comparer, v pair) bool {
	ys, ok := v.y.(string)
	if !ok || !(secret.Masked(ys) || ys == "" && v.x != "" && c.blankedSetting()) {
		return false
	}
	if xs, ok := v.x.(string); ok && xs == ys {
		return false // the very value: nothing is hidden
	}
	if ys != "" && len(ys) < 3 && !c.secretValueAt(v.sp, v.key, v.x) && !c.underSecret() {
		// "*" or "**" where no secret lives is a wildcard (a security
		// rule's any address or port, a CORS origin): a value to compare,
		// and a change to it is drift, not something hidden.
		return false
	}
	return unverifiable(c, v)
}

func normalized(c *comparer, v pair) bool {
	n := c.f.normalizers[v.sp]
	if n == nil {
		return false
	}
	if ok, _ := c.deepEqual(v.sp, v.key, n(v.x), n(v.y)); ok {
		c.eq(RuleNormalizer)
		return true
	}
	return false
}

// emptyObjectOwnsNothing: {} owns nothing inside: live's members are
// server-added.
func emptyObjectOwnsNothing(c *comparer, v pair) bool {
	if len(v.x.(map[string]any)) != 0 {
		return false
	}
	c.eq(RuleServerAdded)
	return true
}

func members(c *comparer, v pair) bool {
	c.compareObject(v.sp, v.x.(map[string]any), v.y.(map[string]any), true, false)
	return true
}

func items(c *comparer, v pair) bool {
	c.compareArray(v.sp, v.key, v.x.([]any), v.y.([]any))
	return true
}

func emptyEqualsAbsent(c *comparer, v pair) bool {
	if !isEmpty(v.x) {
		return false
	}
	c.eq(RuleEmptyAbsent)
	return true
}

func scalarRules(c *comparer, v pair) bool {
	ok, rule := c.scalarEqual(v.sp, v.key, v.x, v.y)
	if ok {
		c.eq(rule)
	}
	return ok
}

// zeroMeansUnset: SDK-built bodies send "" and 0 for "not set"; the server
// then picks the value (AKS kubernetesVersion "", osDiskSizeGB 0).
func zeroMeansUnset(c *comparer, v pair) bool {
	if !zeroValue(v.x) {
		return false
	}
	c.eq(RuleZeroUnset)
	return true
}

// nullAgainstEmpty: desired null means "unset"; ARM keeps or defaults the
// value.
func nullAgainstEmpty(c *comparer, v pair) bool {
	if !isEmpty(v.y) {
		return false
	}
	c.eq(RuleNullAbsent)
	return true
}

func emptyStringAbsent(c *comparer, v pair) bool {
	if xs, ok := v.x.(string); !ok || xs != "" {
		return false
	}
	c.eq(RuleEmptyAbsent)
	return true
}

// liveNullIsDefault treats live null as "unset" and so equal to the
// default.
func liveNullIsDefault(c *comparer, v pair) bool {
	d, rule, ok := c.f.defaultFor(v.sp)
	if !ok {
		return false
	}
	if eq, _ := c.deepEqual(v.sp, v.key, v.x, d); !eq {
		return false
	}
	c.eq(rule)
	return true
}

func added(c *comparer, v pair) bool {
	c.emit(v.sp, plan.KindAdd, v.x, nil, c.secretAt(v.sp, v.key, v.x))
	return true
}

// addedUnsecret: live returns the rest of the body but not this value,
// which the user set: an addition.
func addedUnsecret(c *comparer, v pair) bool {
	c.emit(v.sp, plan.KindAdd, v.x, nil, false)
	return true
}

// identityNone: no managed identity; ARM omits the identity block.
func identityNone(c *comparer, v pair) bool {
	if v.sp != "identity.type" {
		return false
	}
	if xs, ok := v.x.(string); !ok || !strings.EqualFold(xs, "None") {
		return false
	}
	c.eq(RuleIdentityNone)
	return true
}

// locationNotKept: proxy and extension resources accept a location and do
// not keep it; a tracked resource always returns its location.
func locationNotKept(c *comparer, v pair) bool {
	if len(c.path) != 1 || v.key != "location" {
		return false
	}
	c.eq(RuleLocationNotKept)
	return true
}

// declaredDefault: the desired value is the default the spec or plugin
// declares, which live leaves out.
func declaredDefault(c *comparer, v pair) bool {
	d, rule, ok := c.f.defaultFor(v.sp)
	if !ok || !c.f.on(rule) {
		return false
	}
	if eq, _ := c.deepEqual(v.sp, v.key, v.x, d); !eq {
		return false
	}
	c.eq(rule)
	return true
}

// zeroNotReturned: ARM omits unset flags and counters: false, 0 and ""
// with no declared default read as "not set".
func zeroNotReturned(c *comparer, v pair) bool {
	if _, rule, ok := c.f.defaultFor(v.sp); ok && c.f.on(rule) {
		return false // a declared default decides (declaredDefault)
	}
	if !zeroValue(v.x) && v.x != false {
		return false
	}
	c.eq(RuleZeroUnset)
	return true
}

// withheldByGET: write-only inputs, credentials, and values the spec does
// not declare readable: GET does not promise to return them.
func withheldByGET(c *comparer, v pair) bool {
	if c.f.isWriteOnly(v.sp) || c.namedSecret(v.sp, v.key, v.x) ||
		(v.xk&kValue != 0 && (c.underSecret() || underAny(c.path, c.secrets))) ||
		(v.xk != kObject && !c.strict && c.undeclared(v.sp)) {
		return unverifiable(c, v)
	}
	return false
}

// nestedObjectNotReturned: a nested object GET leaves out altogether is
// an input the service does not return (connection details, restore
// parameters, creation options, contact info): it cannot be verified,
// which is not a change. Members of an object live does return are still
// compared one by one.
func nestedObjectNotReturned(c *comparer, v pair) bool {
	if len(c.path) <= 1 || c.f.isMap(v.sp) {
		return false
	}
	return unverifiable(c, v)
}

// membersNotInLive descends so defaults, empties and write-only members
// inside a missing object still cancel out; what is left is reported leaf
// by leaf.
func membersNotInLive(c *comparer, v pair) bool {
	isMap := c.f.isMap(v.sp)
	for k, m := range v.x.(map[string]any) {
		c.push(bodypath.Field(k))
		csp := v.sp.Child(k, isMap)
		if !c.f.isReadOnly(csp) {
			c.absent(csp, k, m)
		}
		c.pop()
	}
	return true
}

// firstPlanNotReturned: live does not return this value. Whether the
// service withholds it (write-only inputs, creation options) or never had
// it set cannot be told from one GET, so it is planned as unverifiable and
// written once (Result.addUnverifiable); the baseline read back after that
// write decides from then on. A tag is different: ARM returns the tag set
// whole, so a tag missing from live is a real addition.
func firstPlanNotReturned(c *comparer, v pair) bool {
	if c.tag() {
		return false
	}
	return unverifiable(c, v)
}

// blankedSetting reports whether the current path is an entry of a map
// inside a credential container (Kubernetes configuration's
// configurationProtectedSettings), whose values GET answers as "".
func (c *comparer) blankedSetting() bool {
	n := len(c.path)
	if n < 2 || c.path[n-1].Kind != bodypath.Member || !c.f.isMap(schema.PathOf(c.path[:n-1], c.f.isMap)) {
		return false
	}
	return c.underSecret()
}

// tag reports whether the current path is a tag.
func (c *comparer) tag() bool {
	return len(c.path) == 2 && c.path[0].Kind == bodypath.Member && c.path[0].Name == "tags"
}

// secretAt reports whether a change the comparer emits hides its value:
// a secret value (secretValueAt) or a hash from state.
func (c *comparer) secretAt(sp schema.Path, key string, v any) bool {
	return secret.IsHash(v) || c.secretValueAt(sp, key, v)
}

// secretValueAt is the comparers' one question whether the value v under
// member key at the current path is a secret in itself, which decides
// that it is compared by hash or in clear and never as a mask: the schema
// marks it, its name is a credential's, or it is at or below a valueFrom
// path or a secret path of its type. Where it sits (a credential
// container) is asked apart, by the rules that care.
func (c *comparer) secretValueAt(sp schema.Path, key string, v any) bool {
	return c.f.isSecret(sp) || c.namedSecret(sp, key, v) || underAny(c.path, c.secrets)
}

// namedSecret is the rule's verdict by name (secret.Rule.Declared): a
// string under a credential name, unless the schema knows the property to
// be plain (an enum or a boolean).
func (c *comparer) namedSecret(sp schema.Path, key string, v any) bool {
	return secret.Name(key, v) && !plainProp(c.f.prop(sp))
}

// undeclared reports whether the spec has no readable property at sp (or
// no spec is known): GET's model does not promise to return it, so its
// absence from live proves nothing (preview-only inputs such as cosmos
// createMode against a stable spec).
func (c *comparer) undeclared(sp schema.Path) bool {
	return c.f.prop(sp) == nil
}

// underSecret reports whether an ancestor of the current path is a
// credential container: GET never returns what is inside one.
func (c *comparer) underSecret() bool { return underSecretPath(c.path) }

// underSecretPath reports whether a leaf path lies inside a credential
// container; identifiers of secret entries (name, id, type) do not count.
func underSecretPath(p bodypath.Path) bool {
	return secret.UnderContainer(p) // the one rule (pkg/secret)
}
