package diff

import (
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// cmpMode says which side owns the keys being compared.
type cmpMode uint8

const (
	// modeOwner compares an owner-side body x (D, or B for drift) with live
	// y: only x's keys and array items are owned; y's extras are ignored.
	modeOwner cmpMode = iota
	// modeSym compares D (x) with L (y): both are user-side, so keys and
	// items present on either side are owned, and a side missing one is an
	// add or a removal.
	modeSym
)

// envelope fields are ARM's, never the user's.
var envelope = map[string]bool{"id": true, "name": true, "type": true, "etag": true, "systemData": true}

// entry is one difference found by a comparison.
type entry struct {
	path   bodypath.Path
	sp     string
	kind   plan.ChangeKind
	x, y   any // x: desired/owner side, y: other side
	secret bool
}

type equalAt struct {
	path string
	rule string
}

type comparer struct {
	f       *facts
	mode    cmpMode
	key     []byte
	explain bool
	// raw skips the secret and normalizer steps: set on the nested
	// comparison those steps run themselves, which would otherwise recurse.
	raw bool
	// strict disables the heuristics that exist only to keep a state-less
	// comparison quiet (zero means unset, server-added scalars): used when
	// confirming a change the user made on purpose.
	strict bool
	folded bool // under a member matched by case-insensitive name
	// projected marks the drift comparison: the owner side is a projection
	// of an earlier live body, so its array items are a subset of live's,
	// possibly matched by other identifiers than the schema's.
	projected bool
	path      bodypath.Path
	// secrets are resolved valueFrom paths: values there are secret.
	secrets []bodypath.Path

	out          []entry
	equal        []equalAt
	unverifiable []bodypath.Path
	ignored      []string // readonly paths found on the owner side
}

func (c *comparer) push(s bodypath.Seg) {
	if c.path == nil {
		c.path = make(bodypath.Path, 0, 16)
	}
	c.path = append(c.path, s)
}
func (c *comparer) pop() { c.path = c.path[:len(c.path)-1] }

func (c *comparer) emit(sp string, kind plan.ChangeKind, x, y any, secret bool) {
	c.out = append(c.out, entry{path: c.path.Clone(), sp: sp, kind: kind, x: x, y: y, secret: secret})
}

func (c *comparer) eq(rule string) {
	if rule == RuleExact && c.folded {
		rule = RuleKeyCase
	}
	if c.explain {
		c.equal = append(c.equal, equalAt{path: c.path.Display(), rule: rule})
	}
}

// compareRoot compares two whole bodies.
func (c *comparer) compareRoot(x, y map[string]any) {
	c.compareObject("", x, y, y != nil, true)
}

// compareObject compares object members. root marks the body root, where
// envelope fields are skipped.
func (c *comparer) compareObject(sp string, x, y map[string]any, hy, root bool) {
	isMap := c.f.isMap(sp)
	for k, xv := range x {
		if root && envelope[k] {
			continue
		}
		csp := childSchemaPath(sp, k, isMap)
		yv, ok := y[k]
		folded := false
		if !ok && hy && (!isMap || sp == "tags" || looksARMID(k)) {
			// ARM binds property names case-insensitively and answers in
			// its own casing ("Name" is echoed as "name"); tag names and
			// map keys that are ARM IDs (userAssignedIdentities) too.
			yv, ok = lookupFold(y, k)
			folded = ok
		}
		c.push(bodypath.Field(k))
		prev := c.folded
		c.folded = c.folded || folded
		c.compare(csp, k, xv, yv, true, ok && hy)
		c.folded = prev
		c.pop()
	}
	if c.mode == modeSym {
		for k, yv := range y {
			if root && envelope[k] {
				continue
			}
			if _, ok := x[k]; ok {
				continue
			}
			if !isMap || sp == "tags" || looksARMID(k) {
				if _, ok := lookupFold(x, k); ok {
					continue
				}
			}
			csp := childSchemaPath(sp, k, isMap)
			c.push(bodypath.Field(k))
			c.compare(csp, k, nil, yv, false, true)
			c.pop()
		}
	}
}

func lookupFold(m map[string]any, k string) (any, bool) {
	for mk, v := range m {
		if strings.EqualFold(mk, k) {
			return v, true
		}
	}
	return nil, false
}

// compare compares the values at the current path. hx/hy say whether each
// side holds the path at all (absent differs from null).
func (c *comparer) compare(sp, key string, x, y any, hx, hy bool) {
	if c.f.isReadOnly(sp) {
		if hx && c.mode == modeOwner {
			c.ignored = append(c.ignored, c.path.Display())
		}
		return
	}
	if !hx && !hy {
		return
	}
	if !hx {
		// Only in modeSym: in L, not in D: the user removed it.
		if ya, ok := y.([]any); ok && c.f.children[sp] {
			// Dropping a child collection from the manifest releases the
			// items it listed, one by one; children owned elsewhere stay.
			c.compareArray(sp, key, []any{}, ya)
			return
		}
		if y == nil {
			c.eq(RuleNullAbsent)
			return
		}
		c.emit(sp, plan.KindRemove, nil, y, c.secretAt(sp, key, y))
		return
	}
	if !hy {
		c.absent(sp, key, x)
		return
	}
	if x == nil && c.mode == modeOwner && !c.strict && c.f.on(RuleNullAbsent) {
		// A null in a PUT body means "not specified": the server keeps or
		// defaults the value, so whatever live holds is not a difference.
		c.eq(RuleNullAbsent)
		return
	}
	if !c.strict && c.unsetValue(sp, x) {
		if c.mode == modeOwner {
			c.eq(RuleUnsetValue)
			return
		}
	}
	// Secrets: L holds a salted hash; live never shows the value.
	if ys, ok := y.(string); ok && strings.HasPrefix(ys, secret.HashPrefix) {
		if c.mode == modeSym {
			if secret.Matches(c.key, sp, x, ys) {
				c.eq(RuleSecretHash)
				return
			}
			c.emit(sp, plan.KindChange, x, y, true)
			return
		}
	}
	// A baseline hashed like L (HashSecrets): live matches when its value
	// hashes the same; otherwise the difference cannot be told from a
	// masked or re-encoded answer, so it is unverifiable, never drift.
	if xs, ok := x.(string); ok && c.mode == modeOwner && secret.IsHash(xs) && isScalar(y) {
		if c.key != nil && secret.Matches(c.key, sp, y, xs) {
			c.eq(RuleSecretHash)
			return
		}
		c.unverifiable = append(c.unverifiable, c.path.Clone())
		return
	}
	// (Members inside a credential container that GET does return are
	// compared like any value; Result marks them sensitive for display.)
	if !c.raw && isScalar(x) && (c.f.isSecret(sp) || secret.Name(key, x) || underAny(c.path, c.secrets)) {
		if ok, rule := c.deepEqual(sp, key, x, y); ok {
			c.eq(rule)
			return
		}
		if c.mode == modeOwner {
			// GET masks or omits secrets: a difference proves nothing.
			c.unverifiable = append(c.unverifiable, c.path.Clone())
			return
		}
		c.emit(sp, plan.KindChange, x, y, true)
		return
	}
	if ys, ok := y.(string); ok && c.mode == modeOwner && isScalar(x) && (masked(ys) || ys == "" && x != "" && c.blankedSetting()) {
		// GET masks the value ("*****"), or blanks the entries of a map of
		// protected settings (answered as ""): it cannot be compared.
		c.unverifiable = append(c.unverifiable, c.path.Clone())
		return
	}
	if n := c.f.normalizers[sp]; n != nil && !c.raw {
		nx, ny := n(x), n(y)
		if ok, _ := c.deepEqual(sp, key, nx, ny); ok {
			c.eq(RuleNormalizer)
			return
		}
	}
	switch xv := x.(type) {
	case map[string]any:
		if yv, ok := y.(map[string]any); ok {
			if len(xv) == 0 && c.mode == modeOwner && c.f.on(RuleServerAdded) {
				// {} owns nothing inside: live's members are server-added.
				c.eq(RuleServerAdded)
				return
			}
			c.compareObject(sp, xv, yv, true, false)
			return
		}
		if y == nil && isEmpty(x) && c.f.on(RuleEmptyAbsent) {
			c.eq(RuleEmptyAbsent)
			return
		}
		if y == nil && c.mode == modeOwner && !c.strict {
			c.unverifiable = append(c.unverifiable, c.path.Clone())
			return
		}
		c.emit(sp, plan.KindChange, x, y, false)
	case []any:
		if yv, ok := y.([]any); ok {
			c.compareArray(sp, key, xv, yv)
			return
		}
		if y == nil && len(xv) == 0 && c.f.on(RuleEmptyAbsent) {
			c.eq(RuleEmptyAbsent)
			return
		}
		if y == nil && c.mode == modeOwner && !c.strict {
			c.unverifiable = append(c.unverifiable, c.path.Clone())
			return
		}
		c.emit(sp, plan.KindChange, x, y, false)
	default:
		if _, ok := y.(map[string]any); ok {
			if x == nil && c.mode == modeOwner && !c.strict {
				c.eq(RuleNullAbsent)
				return
			}
			c.emit(sp, plan.KindChange, x, y, false)
			return
		}
		if _, ok := y.([]any); ok {
			c.emit(sp, plan.KindChange, x, y, false)
			return
		}
		if ok, rule := c.scalarEqual(sp, key, x, y); ok {
			c.eq(rule)
			return
		}
		if c.mode == modeOwner && !c.strict && zeroValue(x) && y != nil && c.f.on(RuleZeroUnset) {
			// SDK-built bodies send "" and 0 for "not set"; the server then
			// picks the value (AKS kubernetesVersion "", osDiskSizeGB 0).
			c.eq(RuleZeroUnset)
			return
		}
		if x == nil && c.mode == modeOwner {
			// Desired null: "unset"; ARM keeps or defaults the value.
			if isEmpty(y) {
				c.eq(RuleNullAbsent)
				return
			}
		}
		if xs, ok := x.(string); ok && xs == "" && y == nil && c.f.on(RuleEmptyAbsent) {
			c.eq(RuleEmptyAbsent)
			return
		}
		if ok, rule := c.defaultEqual(sp, key, x, y); ok {
			c.eq(rule)
			return
		}
		if y == nil && c.mode == modeOwner && !c.strict {
			// GET answers null for values it withholds (webhook URLs, app
			// settings): the write cannot be verified, which is not a change.
			c.unverifiable = append(c.unverifiable, c.path.Clone())
			return
		}
		c.emit(sp, plan.KindChange, x, y, false)
	}
}

// scalarEqual is facts.scalarEqual made exact for numbers: two numbers
// that differ as decimals are different even where float64 cannot tell
// them apart (9007199254740993, 12345678901234567890).
func (c *comparer) scalarEqual(sp, key string, x, y any) (bool, string) {
	if numbersDiffer(x, y) {
		return false, ""
	}
	return c.f.scalarEqual(sp, key, x, y)
}

// numbersDiffer reports whether x and y are both JSON numbers with
// different exact values.
func numbersDiffer(x, y any) bool {
	rx, ok := exactNumber(x)
	if !ok {
		return false
	}
	ry, ok := exactNumber(y)
	return ok && rx.Cmp(ry) != 0
}

func exactNumber(v any) (*big.Rat, bool) {
	var s string
	switch t := v.(type) {
	case json.Number:
		s = t.String()
	case float64:
		return new(big.Rat).SetFloat64(t), !math.IsInf(t, 0) && !math.IsNaN(t)
	case int:
		return new(big.Rat).SetInt64(int64(t)), true
	case int64:
		return new(big.Rat).SetInt64(t), true
	default:
		return nil, false
	}
	r, ok := new(big.Rat).SetString(s)
	return r, ok
}

// unsetValue reports whether x is a value the plugin says means "let the
// server decide" at sp (AKS sends osDiskSizeGB: 0 for "default size").
func (c *comparer) unsetValue(sp string, x any) bool {
	vals, ok := c.f.unset[sp]
	if !ok {
		return false
	}
	for _, v := range vals {
		if eq, _ := c.f.scalarEqual(sp, "", x, v); eq && isScalar(x) {
			return true
		}
	}
	return false
}

// defaultEqual treats live null as "unset" and so equal to the default.
func (c *comparer) defaultEqual(sp, key string, x, y any) (bool, string) {
	if y != nil {
		return false, ""
	}
	if d, rule, ok := c.f.defaultFor(sp); ok {
		if eq, _ := c.deepEqual(sp, key, x, d); eq {
			return true, rule
		}
	}
	return false, ""
}

// absent handles a desired value whose path live does not hold.
func (c *comparer) absent(sp, key string, x any) {
	if c.mode == modeSym {
		if x == nil {
			c.eq(RuleNullAbsent)
			return
		}
		c.emit(sp, plan.KindAdd, x, nil, c.secretAt(sp, key, x))
		return
	}
	if x == nil {
		c.eq(RuleNullAbsent)
		return
	}
	if isEmpty(x) && c.f.on(RuleEmptyAbsent) {
		c.eq(RuleEmptyAbsent)
		return
	}
	if sp == "identity.type" && !c.strict && c.f.on(RuleIdentityNone) {
		if xs, ok := x.(string); ok && strings.EqualFold(xs, "None") {
			// No managed identity: ARM omits the identity block.
			c.eq(RuleIdentityNone)
			return
		}
	}
	if len(c.path) == 1 && key == "location" && !c.strict && c.f.on(RuleLocationNotKept) {
		// Proxy and extension resources accept a location and do not keep
		// it; a tracked resource always returns its location.
		c.eq(RuleLocationNotKept)
		return
	}
	if d, rule, ok := c.f.defaultFor(sp); ok && c.f.on(rule) {
		if eq, _ := c.deepEqual(sp, key, x, d); eq {
			c.eq(rule)
			return
		}
	} else if !c.strict && (zeroValue(x) || x == false) && c.f.on(RuleZeroUnset) {
		// ARM omits unset flags and counters: false, 0 and "" with no
		// declared default read as "not set".
		c.eq(RuleZeroUnset)
		return
	}
	_, isObj := x.(map[string]any)
	if c.f.isWriteOnly(sp) || secret.Name(key, x) || (isScalar(x) && (c.underSecret() || underAny(c.path, c.secrets))) || (!isObj && !c.strict && c.undeclared(sp)) {
		c.unverifiable = append(c.unverifiable, c.path.Clone())
		return
	}
	if isObj && !c.strict && len(c.path) > 1 && !c.f.isMap(sp) && c.f.on(RuleNotReturned) {
		// A nested object GET leaves out altogether is an input the
		// service does not return (connection details, restore
		// parameters, creation options, contact info): it cannot be
		// verified, which is not a change. Members of an object live does
		// return are still compared one by one.
		c.unverifiable = append(c.unverifiable, c.path.Clone())
		return
	}
	if xm, ok := x.(map[string]any); ok {
		// Descend so defaults, empties and write-only members inside a
		// missing object still cancel out; report what is left leaf by leaf.
		isMap := c.f.isMap(sp)
		for k, v := range xm {
			c.push(bodypath.Field(k))
			csp := childSchemaPath(sp, k, isMap)
			if !c.f.isReadOnly(csp) {
				c.absent(csp, k, v)
			}
			c.pop()
		}
		return
	}
	if c.mode == modeOwner && !c.strict && !c.tag() && c.f.on(RuleNotReturned) {
		// A first plan: live does not return this value. Whether the
		// service withholds it (write-only inputs, creation options) or
		// never had it set cannot be told from one GET, so it is planned
		// as unverifiable and written once (Result.addUnverifiable); the
		// baseline read back after that write decides from then on.
		c.unverifiable = append(c.unverifiable, c.path.Clone())
		return
	}
	c.emit(sp, plan.KindAdd, x, nil, false)
}

// blankedSetting reports whether the current path is an entry of a map
// inside a credential container (Kubernetes configuration's
// configurationProtectedSettings), whose values GET answers as "".
func (c *comparer) blankedSetting() bool {
	n := len(c.path)
	if n < 2 || c.path[n-1].Kind != bodypath.Member || !c.f.isMap(schemaPathOf(c.path[:n-1], c.f.isMap)) {
		return false
	}
	return c.underSecret()
}

// tag reports whether the current path is a tag: ARM returns the tag set
// whole, so a tag missing from live is a real addition.
func (c *comparer) tag() bool {
	return len(c.path) == 2 && c.path[0].Kind == bodypath.Member && c.path[0].Name == "tags"
}

func (c *comparer) secretAt(sp, key string, v any) bool {
	if c.f.isSecret(sp) {
		return true
	}
	if secret.IsHash(v) || underAny(c.path, c.secrets) {
		return true
	}
	return secret.Name(key, v)
}

// undeclared reports whether the spec has no readable property at sp (or
// no spec is known): GET's model does not promise to return it, so its
// absence from live proves nothing (preview-only inputs such as cosmos
// createMode against a stable spec).
func (c *comparer) undeclared(sp string) bool {
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

// masked reports whether s is a server-side mask of a withheld value.
func masked(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '*' {
			return false
		}
	}
	return true
}

func zeroValue(v any) bool {
	switch t := v.(type) {
	case string:
		return t == ""
	case float64:
		return t == 0
	}
	if f, ok := toFloat(v); ok {
		return f == 0
	}
	return false
}

// secretContainer reports whether a member holds credentials as a whole:
// secret.Container (extension protectedSettings, Container Apps secrets),
// an object under a credential name, as deployment parameters wrap values
// ({"adminPassword": {"value": ...}}), or any *ProtectedSettings member
// (Kubernetes configuration's configurationProtectedSettings).
func secretContainer(name string) bool {
	return secret.Container(name) || secret.CredentialName(name) ||
		strings.Contains(strings.ToLower(name), "protectedsettings")
}

func allScalar(a []any) bool {
	for _, v := range a {
		if !isScalar(v) {
			return false
		}
	}
	return true
}

func isScalar(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return false
	}
	return true
}

// deepEqual compares two values with the normalisation rules, reporting
// nothing; it is used where a yes/no is enough (defaults, sets, secrets).
func (c *comparer) deepEqual(sp, key string, x, y any) (bool, string) {
	sub := comparer{f: c.f, mode: modeSym, key: c.key, raw: true}
	sub.compare(sp, key, x, y, true, true)
	if len(sub.out) == 0 {
		return true, RuleExact
	}
	return false, ""
}

// arrayKind is how the items of an array are matched.
type arrayKind uint8

const (
	arraySet        arrayKind = iota // scalars, order irrelevant
	arrayPositional                  // compared index by index
	arrayKeyed                       // objects matched by identifiers
)

// classify decides how to match array items and, for keyed arrays, by
// which identifier fields.
func (c *comparer) classify(sp string, xs, ys []any) (arrayKind, []string) {
	if ids, ok := c.f.idents[sp]; ok {
		if len(ids) == 0 {
			return arrayPositional, nil
		}
		if allHaveKeys(xs, ids) && c.othersKeyed(ys, ids) {
			return arrayKeyed, ids
		}
	}
	allMaps, allScalars := true, true
	for _, l := range [][]any{xs, ys} {
		for _, v := range l {
			switch v.(type) {
			case map[string]any:
				allScalars = false
			case []any:
				allScalars, allMaps = false, false
			default:
				allMaps = false
			}
		}
	}
	if allScalars {
		if c.f.ordered[sp] {
			return arrayPositional, nil
		}
		if p := c.f.prop(sp); p != nil && p.Positional {
			return arrayPositional, nil
		}
		return arraySet, nil
	}
	if !allMaps {
		return arrayPositional, nil
	}
	if p := c.f.prop(sp); p != nil {
		if p.Positional {
			return arrayPositional, nil
		}
		if len(p.Identifiers) > 0 && allHaveKeys(xs, p.Identifiers) && c.othersKeyed(ys, p.Identifiers) {
			return arrayKeyed, p.Identifiers
		}
	}
	for _, k := range fallbackIdentifiers {
		ids := []string{k}
		if allHaveKeys(xs, ids) && c.othersKeyed(ys, ids) {
			return arrayKeyed, ids
		}
	}
	return arrayPositional, nil
}

// othersKeyed checks the other side's items. User-side pairs (D vs L) must
// both be keyed; live may hold items without the key or with duplicates
// (server-added entries), which simply match nothing we own.
func (c *comparer) othersKeyed(ys []any, ids []string) bool {
	if c.mode == modeSym {
		return allHaveKeys(ys, ids)
	}
	return true
}

var fallbackIdentifiers = []string{"name", "id"}

func allHaveKeys(items []any, ids []string) bool {
	seen := make(map[string]bool, len(items))
	for _, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			return false
		}
		k, ok := itemKey(m, ids)
		if !ok || seen[k] {
			return false
		}
		seen[k] = true
	}
	return true
}

// identValue reads an identifier, which x-ms-identifiers may give as a
// slash path into the item ("properties/name").
func identValue(m map[string]any, id string) (any, bool) {
	if !strings.Contains(id, "/") {
		v, ok := m[id]
		return v, ok
	}
	var cur any = m
	for _, p := range strings.Split(id, "/") {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = mm[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func scalarString(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case bool:
		return strconv.FormatBool(t), true
	case json.Number:
		// Exact: big integers used as keys must not collide.
		return t.String(), true
	case nil, map[string]any, []any:
		return "", false
	}
	if f, ok := toFloat(v); ok {
		return strconv.FormatFloat(f, 'g', -1, 64), true
	}
	return "", false
}

// itemKey is the matching key of an item: identifier values, lowercased
// because names and IDs are case-insensitive in ARM.
func itemKey(m map[string]any, ids []string) (string, bool) {
	if len(ids) == 1 {
		v, ok := identValue(m, ids[0])
		if !ok {
			return "", false
		}
		s, ok := scalarString(v)
		if !ok || s == "" {
			return "", false
		}
		return strings.ToLower(strings.TrimRight(s, "/")), true
	}
	var b strings.Builder
	for i, id := range ids {
		v, ok := identValue(m, id)
		if !ok {
			return "", false
		}
		s, ok := scalarString(v)
		if !ok {
			return "", false
		}
		if i > 0 {
			b.WriteByte(0)
		}
		b.WriteString(strings.ToLower(s))
	}
	return b.String(), true
}

func keyedSeg(m map[string]any, ids []string) bodypath.Seg {
	s := bodypath.ByKeys(ids, make([]string, len(ids)))
	for i, id := range ids {
		v, _ := identValue(m, id)
		s.Values[i], _ = scalarString(v)
	}
	return s
}

func (c *comparer) compareArray(sp, key string, xs, ys []any) {
	isp := sp + "[]"
	kind, ids := c.classify(sp, xs, ys)
	switch kind {
	case arraySet:
		if c.setEqual(isp, key, xs, ys) && (c.f.on(RuleScalarSet) || c.positionalEqual(isp, key, xs, ys)) {
			if len(xs) > 0 {
				c.eq(RuleScalarSet)
			} else {
				c.eq(RuleExact)
			}
			return
		}
		if c.mode == modeOwner && !c.strict && c.f.on(RuleServerAdded) && c.subsetMatch(isp, key, xs, ys, false) {
			// Live holds every desired element plus some the server added
			// (AKS appends its own noProxy entries).
			c.eq(RuleServerAdded)
			return
		}
		c.emit(sp, plan.KindChange, xs, ys, false)
	case arrayPositional:
		// Objects without identifiers may be matched in any order unless
		// the spec or a plugin says order matters; ordered scalars never.
		unordered := !c.f.ordered[sp] && !allScalar(xs) && !(c.f.prop(sp) != nil && c.f.prop(sp).Positional)
		if allScalar(xs) && allScalar(ys) {
			// An ordered list of values is one value.
			if len(xs) == len(ys) {
				same := true
				for i := range xs {
					if ok, _ := c.scalarEqual(isp, key, xs[i], ys[i]); !ok {
						same = false
						break
					}
				}
				if same {
					c.eq(RuleExact)
					return
				}
			}
			c.emit(sp, plan.KindChange, xs, ys, false)
			return
		}
		if len(xs) == len(ys) {
			sub := comparer{f: c.f, mode: c.mode, key: c.key, strict: c.strict, projected: c.projected, path: c.path.Clone()}
			for i := range xs {
				sub.push(bodypath.At(i))
				sub.compare(isp, key, xs[i], ys[i], true, true)
				sub.pop()
			}
			if len(sub.out) == 0 {
				c.mergeSub(&sub)
				return
			}
			if c.mode == modeOwner && (unordered || c.projected) && c.f.on(RuleUnkeyedMatch) && c.subsetMatch(isp, key, xs, ys, true) {
				c.eq(RuleUnkeyedMatch)
				return
			}
			c.mergeSub(&sub)
			return
		}
		if c.mode == modeOwner && ((!c.strict && unordered) || c.projected) && c.f.on(RuleServerAdded) && c.subsetMatch(isp, key, xs, ys, true) {
			// Items without identifiers: each desired item is found in
			// live; live's extra items are server-added.
			c.eq(RuleServerAdded)
			return
		}
		c.emit(sp, plan.KindChange, xs, ys, false)
	case arrayKeyed:
		index := make(map[string]int, len(ys))
		for i, it := range ys {
			m, ok := it.(map[string]any)
			if !ok {
				continue
			}
			if k, ok := itemKey(m, ids); ok {
				if _, dup := index[k]; !dup {
					index[k] = i
				}
			}
		}
		var seen map[string]bool
		if c.mode == modeSym {
			seen = make(map[string]bool, len(xs))
		}
		for _, it := range xs {
			m := it.(map[string]any)
			k, _ := itemKey(m, ids)
			c.push(keyedSeg(m, ids))
			if j, ok := index[k]; ok {
				if seen != nil {
					seen[k] = true
				}
				c.compareObject(isp, m, ys[j].(map[string]any), true, false)
			} else if c.mode == modeSym {
				c.emit(isp, plan.KindAdd, m, nil, false)
			} else {
				// Live returns the identifiers of the items it holds, so an
				// identifier it lacks is a new item: one addition, however
				// write-only its other members are.
				c.emit(isp, plan.KindAdd, m, nil, false)
			}
			c.pop()
		}
		if c.mode == modeSym {
			for _, it := range ys {
				m, _ := it.(map[string]any)
				k, _ := itemKey(m, ids)
				if seen[k] {
					continue
				}
				c.push(keyedSeg(m, ids))
				c.emit(isp, plan.KindRemove, nil, m, false)
				c.pop()
			}
		}
		// modeOwner: live items we do not own are server-added or belong to
		// someone else; they are not compared.
	}
}

func (c *comparer) mergeSub(sub *comparer) {
	c.out = append(c.out, sub.out...)
	c.unverifiable = append(c.unverifiable, sub.unverifiable...)
	if c.explain {
		c.equal = append(c.equal, sub.equal...)
	}
}

// subsetMatch reports whether every item of xs matches a distinct item of
// ys. With owner set, items compare with owner semantics (live items may
// carry extra server-added members).
func (c *comparer) subsetMatch(isp, key string, xs, ys []any, owner bool) bool {
	if len(xs) > len(ys) {
		return false
	}
	used := make([]bool, len(ys))
outer:
	for _, x := range xs {
		for j, y := range ys {
			if used[j] {
				continue
			}
			var ok bool
			if owner {
				sub := comparer{f: c.f, mode: modeOwner, key: c.key, strict: c.strict, projected: c.projected}
				sub.compare(isp, key, x, y, true, true)
				ok = len(sub.out) == 0
			} else {
				ok, _ = c.scalarEqual(isp, key, x, y)
			}
			if ok {
				used[j] = true
				continue outer
			}
		}
		return false
	}
	return true
}

// positionalEqual compares scalar arrays item by item (the scalar-set rule
// switched off for measurement).
func (c *comparer) positionalEqual(isp, key string, xs, ys []any) bool {
	if len(xs) != len(ys) {
		return false
	}
	for i := range xs {
		if ok, _ := c.scalarEqual(isp, key, xs[i], ys[i]); !ok {
			return false
		}
	}
	return true
}

// setEqual compares scalar arrays as multisets under the scalar rules.
func (c *comparer) setEqual(isp, key string, xs, ys []any) bool {
	if len(xs) != len(ys) {
		return false
	}
	used := make([]bool, len(ys))
outer:
	for _, x := range xs {
		for j, y := range ys {
			if used[j] {
				continue
			}
			if ok, _ := c.scalarEqual(isp, key, x, y); ok {
				used[j] = true
				continue outer
			}
		}
		return false
	}
	return true
}
