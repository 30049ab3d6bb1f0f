package schema

import (
	"sort"
	"strings"
	"sync"
)

// typeExtra holds what is derived from a Type on demand and shared by
// the copies Lookup hands out.
type typeExtra struct {
	kidsOnce sync.Once
	kids     map[Path][]string // schema path -> sorted member names

	varOnce  sync.Once
	variants map[string]string // lower(value) -> value, every body variant of the type

	descOnce sync.Once
	descs    map[string]string
	loadDesc func() map[string]string

	// siblings returns the type at each api-version the index holds (nil
	// when the type did not come from a registry).
	siblings func() []*Type
}

func (t *Type) extra() *typeExtra {
	if t.x == nil {
		// Types built by hand (tests) have no shared state; give them
		// their own.
		t.x = &typeExtra{}
	}
	return t.x
}

// children returns the member names under a schema path from an index
// built once per type: Children used to scan every path per call.
func (t *Type) children(sp Path) []string {
	x := t.extra()
	x.kidsOnce.Do(func() {
		x.kids = map[Path][]string{}
		for p := range t.Properties {
			parent, name := Path(p).Split()
			if name == "" {
				continue
			}
			x.kids[parent] = append(x.kids[parent], name)
		}
		for _, v := range x.kids {
			sort.Strings(v)
		}
	})
	return x.kids[sp]
}

// Description returns the spec's description of a schema path, "" when
// it has none. Descriptions are decoded on first use, apart from the
// facts Lookup returns.
func (t *Type) Description(sp Path) string {
	if t == nil {
		return ""
	}
	x := t.extra()
	x.descOnce.Do(func() {
		if x.loadDesc != nil {
			x.descs = x.loadDesc()
		}
	})
	return x.descs[string(sp)]
}

// variants returns every discriminator value some path of the type is
// declared for, keyed by its lower-case form.
func (t *Type) variants() map[string]string {
	x := t.extra()
	x.varOnce.Do(func() {
		x.variants = map[string]string{}
		for _, p := range t.Properties {
			for _, v := range p.Variants {
				x.variants[strings.ToLower(v)] = v
			}
		}
	})
	return x.variants
}
