package diff

import (
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
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
	sp     schema.Path
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
	// sent is L, hashed, on the drift comparison: where B's hash equals
	// L's, the service answered the very secret it was sent.
	sent map[string]any
	path bodypath.Path
	// secrets are resolved valueFrom paths: values there are secret.
	secrets []bodypath.Path

	out          []entry
	equal        []equalAt
	unverifiable []bodypath.Path
	ignored      []string // readonly paths found on the owner side

	// scratch is the comparer nested yes/no comparisons reuse (child).
	scratch *comparer
}

// child returns c's scratch comparer set up as proto, for a nested
// comparison whose findings are only counted: the rules take the comparer
// by pointer, so each nested comparer would otherwise be allocated. The
// caller must be done with it before asking c for it again.
func (c *comparer) child(proto comparer) *comparer {
	s := c.scratch
	if s == nil {
		s = new(comparer)
		c.scratch = s
	}
	proto.scratch = s.scratch
	proto.out, proto.unverifiable, proto.ignored = s.out[:0], s.unverifiable[:0], s.ignored[:0]
	if proto.path == nil {
		proto.path = s.path[:0]
	}
	*s = proto
	return s
}

func (c *comparer) push(s bodypath.Seg) {
	if c.path == nil {
		c.path = make(bodypath.Path, 0, 16)
	}
	c.path = append(c.path, s)
}
func (c *comparer) pop() { c.path = c.path[:len(c.path)-1] }

func (c *comparer) emit(sp schema.Path, kind plan.ChangeKind, x, y any, secret bool) {
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
func (c *comparer) compareObject(sp schema.Path, x, y map[string]any, hy, root bool) {
	isMap := c.f.isMap(sp)
	for k, xv := range x {
		if root && envelope[k] {
			continue
		}
		csp := sp.Child(k, isMap)
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
			csp := sp.Child(k, isMap)
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

// compare compares the values at the current path by the rules of
// compare_rules.go. hx/hy say whether each side holds the path at all
// (absent differs from null).
func (c *comparer) compare(sp schema.Path, key string, x, y any, hx, hy bool) {
	c.run(compareRules, pair{sp: sp, key: key, x: x, y: y, xk: kindOf(x, hx), yk: kindOf(y, hy)})
}

// absent handles a desired value whose path live does not hold, by
// absentRules.
func (c *comparer) absent(sp schema.Path, key string, x any) {
	c.run(absentRules, pair{sp: sp, key: key, x: x, xk: kindOf(x, true), yk: kAbsent})
}

// scalarEqual is facts.scalarEqual made exact for numbers: two numbers
// that differ as decimals are different even where float64 cannot tell
// them apart (9007199254740993, 12345678901234567890).
func (c *comparer) scalarEqual(sp schema.Path, key string, x, y any) (bool, string) {
	if numbersDiffer(x, y) {
		return false, ""
	}
	return c.f.scalarEqual(sp, key, x, y)
}

// deepEqual compares two values with the normalisation rules, reporting
// nothing; it is used where a yes/no is enough (defaults, sets, secrets).
func (c *comparer) deepEqual(sp schema.Path, key string, x, y any) (bool, string) {
	sub := c.child(comparer{f: c.f, mode: modeSym, key: c.key, raw: true})
	sub.compare(sp, key, x, y, true, true)
	if len(sub.out) == 0 {
		return true, RuleExact
	}
	return false, ""
}
