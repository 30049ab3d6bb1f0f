package diff

import (
	"strings"
	"sync"

	"github.com/kubectl-azure/kubectl-azure/pkg/schema"
)

// facts merges what the schema and a plugin know about one type into
// lookup sets keyed by schema path. Building them costs a few allocations,
// so they are cached by (schema, rules) pointer: both are immutable
// registry values in practice.
type facts struct {
	s           *schema.Type
	r           *Rules
	maps        map[schema.Path]bool // schema paths whose values are maps ("*")
	readOnly    map[schema.Path]bool
	ordered     map[schema.Path]bool
	writeOnly   map[schema.Path]bool
	createOnly  map[schema.Path]bool
	children    map[schema.Path]bool
	mergeColl   map[schema.Path]bool
	defaults    map[schema.Path]any
	unset       map[schema.Path][]any
	normalizers map[schema.Path]Normalizer
	idents      map[schema.Path][]string
	// off names rule families switched off (Input.DisableRules), so the
	// corpus tests can measure what each family buys. nil in normal use.
	off map[string]bool
}

// on reports whether a rule family applies.
func (f *facts) on(rule string) bool { return !f.off[rule] }

// without returns a copy of f with the named rule families switched off;
// the cached facts are never modified.
func (f *facts) without(rules []string) *facts {
	if len(rules) == 0 {
		return f
	}
	cp := *f
	cp.off = set(rules)
	return &cp
}

type factsKey struct {
	s *schema.Type
	r *Rules
}

var (
	factsCache   sync.Map
	factsCount   int
	factsCountMu sync.Mutex
)

// maxCachedFacts bounds the cache in case a caller builds schemas or rules
// on the fly; beyond it facts are rebuilt per call (correct, just slower).
const maxCachedFacts = 8192

func factsFor(s *schema.Type, p Plugin) *facts {
	var r *Rules
	if p != nil {
		r = p.Rules()
	}
	k := factsKey{s, r}
	if v, ok := factsCache.Load(k); ok {
		return v.(*facts)
	}
	f := buildFacts(s, r)
	factsCountMu.Lock()
	if factsCount < maxCachedFacts {
		factsCount++
		factsCache.Store(k, f)
	}
	factsCountMu.Unlock()
	return f
}

func set[K ~string](paths []K) map[K]bool {
	if len(paths) == 0 {
		return nil
	}
	m := make(map[K]bool, len(paths))
	for _, p := range paths {
		m[p] = true
	}
	return m
}

func buildFacts(s *schema.Type, r *Rules) *facts {
	f := &facts{s: s, r: r, maps: map[schema.Path]bool{"tags": true}}
	if s != nil {
		for p := range s.Properties {
			markMaps(f.maps, schema.Path(p))
		}
	}
	if r != nil {
		f.readOnly = set(r.ReadOnly)
		f.ordered = set(r.Ordered)
		f.writeOnly = set(r.WriteOnly)
		f.createOnly = set(r.CreateOnly)
		f.children = set(r.ChildCollections)
		f.mergeColl = set(r.MergeCollections)
		f.defaults = r.Defaults
		f.unset = r.Unset
		f.normalizers = r.Normalizers
		f.idents = r.Identifiers
		for _, l := range [][]schema.Path{r.ReadOnly, r.Ordered, r.WriteOnly, r.CreateOnly, r.ChildCollections, r.MergeCollections} {
			for _, p := range l {
				markMaps(f.maps, p)
			}
		}
		for p := range r.Defaults {
			markMaps(f.maps, schema.Path(p))
		}
		for p := range r.Normalizers {
			markMaps(f.maps, schema.Path(p))
		}
	}
	return f
}

// MapPaths lists the schema paths whose members are map entries (tags,
// every prefix followed by a "*" in the schema or the plugin's rules): the
// one answer the diff and the state-record builder share.
func MapPaths(s *schema.Type, p Plugin) map[schema.Path]bool {
	f := factsFor(s, p)
	out := make(map[schema.Path]bool, len(f.maps))
	for k, v := range f.maps {
		out[k] = v
	}
	return out
}

// markMaps records every prefix of p that is followed by a "*" segment
// ("properties.foo.*.bar" marks "properties.foo").
func markMaps(m map[schema.Path]bool, p schema.Path) {
	start := 0
	for i := 0; i <= len(p); i++ {
		if i < len(p) && p[i] != '.' {
			continue
		}
		part := p[start:i]
		if part == "*" || strings.HasPrefix(string(part), "*[") {
			if start == 0 {
				m[""] = true
			} else {
				m[p[:start-1]] = true
			}
		}
		start = i + 1
	}
}

func (f *facts) isMap(sp schema.Path) bool { return f.maps[sp] }

func (f *facts) prop(sp schema.Path) *schema.Property {
	if f.s == nil {
		return nil
	}
	return f.s.Properties[string(sp)]
}

func (f *facts) isReadOnly(sp schema.Path) bool {
	if f.readOnly[sp] {
		return true
	}
	if etagName(sp) {
		return true
	}
	if p := f.prop(sp); p != nil && p.ReadOnly {
		return true
	}
	return false
}

func (f *facts) isSecret(sp schema.Path) bool {
	p := f.prop(sp)
	return p != nil && p.Secret
}

func (f *facts) isWriteOnly(sp schema.Path) bool {
	if f.writeOnly[sp] {
		return true
	}
	p := f.prop(sp)
	return p != nil && (p.WriteOnly || p.Secret)
}

func (f *facts) isCreateOnly(sp schema.Path) bool {
	if f.createOnly[sp] {
		return true
	}
	p := f.prop(sp)
	return p != nil && p.CreateOnly
}

func (f *facts) defaultFor(sp schema.Path) (any, string, bool) {
	if v, ok := f.defaults[sp]; ok {
		return v, RulePluginDefault, true
	}
	if p := f.prop(sp); p != nil && p.Default != nil {
		return p.Default, RuleSchemaDefault, true
	}
	return nil, "", false
}

// etagName reports whether the last member of sp is an entity tag
// ("etag", "panEtag"): always server-computed, never the user's.
func etagName(sp schema.Path) bool {
	_, n := sp.Split()
	if len(n) >= 4 && strings.EqualFold(n[len(n)-4:], "etag") {
		return true
	}
	for _, ro := range serverComputed {
		if len(n) == len(ro) && strings.EqualFold(n, ro) {
			return true
		}
	}
	return false
}

// serverComputed are member names every provider computes: provisioning
// state and bookkeeping timestamps, which read-modify-write clients and
// portal JSON carry back into PUT bodies.
var serverComputed = []string{
	"provisioningState",
	"lastModifiedTime", "lastModifiedAt", "lastModifiedDate", "lastModifiedUtc", "lastUpdatedTime",
	"createdAt", "createdTime", "creationTime", "createdDate", "createdUtc", "updated", "created",
}
