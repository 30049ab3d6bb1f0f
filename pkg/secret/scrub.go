package secret

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf16"
)

// minScrubLen is the shortest value Scrub replaces wherever it occurs.
// A shorter secret (a "1", "ab") would shred ordinary text if replaced
// everywhere, so it is replaced only where it is a whole quoted value:
// "ab", \"ab\" or 'ab' (ARM quotes request bodies as JSON and names
// values in single quotes).
const minScrubLen = 4

// Registry remembers secret values so they can be removed from any text.
// Safe for concurrent use.
//
// A registry belongs to one run: whoever starts a run (a CLI command, the
// controller for a reconcile) makes one with NewRegistry and passes it to
// the loader, the engine, the ARM client, the state store and the printers,
// so one run's values never outlive it or reach another run. A nil
// *Registry is safe to call and holds nothing: Register drops the value and
// Scrub returns the text unchanged. So the loader, the engine, the ARM
// client, the state store and the controller make a fresh one when given
// none, and the CLI gives every one of them, and its printers, the run's.
type Registry struct {
	mu     sync.RWMutex
	values map[string]bool
	// Built lazily from values, longest first: the values scrubbed
	// wherever they occur, and the short ones scrubbed only as whole
	// quoted values.
	long, short []*entry
	built       bool
	// frag finds stretches of the long values (see minFragment); union
	// caches the index over this registry's and its others' values,
	// rebuilt when any of them changes.
	frag  *fragIndex
	union struct {
		of  []*entry
		idx *fragIndex
	}
	// parents are registries whose values this one also scrubs and
	// recognises (fixed at NewRegistry); included are those attached for
	// a while with Include. Neither receives this registry's values.
	parents  []*Registry
	included []*Registry
}

// NewRegistry returns an empty registry that also scrubs and recognises the
// values of parents, including values registered with them later: a
// reconcile's registry over its manifest set's, so the reconcile's own
// values go when it ends while the set's stay with the set.
func NewRegistry(parents ...*Registry) *Registry {
	r := &Registry{}
	for _, p := range parents {
		if p != nil {
			r.parents = append(r.parents, p)
		}
	}
	return r
}

// Include makes r scrub and recognise o's values until release is called:
// a long-lived client (the controller's ARM client, its state store) sees
// the registries of the runs in flight, and forgets each when it ends.
func (r *Registry) Include(o *Registry) (release func()) {
	if r == nil || o == nil || o == r {
		return func() {}
	}
	r.mu.Lock()
	r.included = append(r.included, o)
	r.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			r.mu.Lock()
			defer r.mu.Unlock()
			for i, x := range r.included {
				if x == o {
					r.included = append(r.included[:i:i], r.included[i+1:]...)
					return
				}
			}
		})
	}
}

// entry is one registered value with what finds it in escaped text.
type entry struct {
	v string
	// anchor is the value's longest run of ASCII letters and digits, which
	// no JSON encoder escapes: text without it cannot hold the value in
	// any spelling, so the expression need not run.
	anchor string
	once   sync.Once
	re     *regexp.Regexp
	quoted bool
}

// expr compiles, once, the expression matching every JSON spelling of the
// value (for a short value: as a whole quoted value, quotes in groups 1
// and 2).
func (e *entry) expr() *regexp.Regexp {
	e.once.Do(func() {
		if e.quoted {
			const q = `((?:\\*")|')`
			e.re = regexp.MustCompile(q + escapedPattern(e.v) + q)
		} else {
			e.re = regexp.MustCompile(escapedPattern(e.v))
		}
	})
	return e.re
}

func newEntry(v string, quoted bool) *entry {
	e := &entry{v: v, quoted: quoted}
	for i := 0; i < len(v); {
		j := i
		for j < len(v) && isAlnum(v[j]) {
			j++
		}
		if j-i > len(e.anchor) {
			e.anchor = v[i:j]
		}
		i = j + 1
	}
	return e
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// Register adds secret values to r. The empty string is ignored. Values
// shorter than four bytes are only scrubbed as whole quoted values (see
// minScrubLen).
func (r *Registry) Register(values ...string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.values == nil {
		r.values = map[string]bool{}
	}
	for _, v := range values {
		if v == "" || r.values[v] {
			continue
		}
		r.values[v] = true
		r.built = false
	}
}

// Scrub replaces every registered secret value in s (r's, its parents'
// and those included) with Placeholder, whether it appears as is or
// JSON-escaped (once or more).
func (r *Registry) Scrub(s string) string {
	if r == nil || s == "" {
		return s
	}
	long, short, frag := r.entries()
	if len(long)+len(short) == 0 {
		return s
	}
	return frag.scrub(scrubWhole(s, long, short))
}

// scrubWhole replaces whole values: long ones wherever they occur, short
// ones where they are whole quoted values.
func scrubWhole(s string, long, short []*entry) string {
	escaped := strings.Contains(s, `\`)
	for _, e := range long {
		if !escaped {
			// No escape in the text: plain replacement is enough.
			if strings.Contains(s, e.v) {
				s = strings.ReplaceAll(s, e.v, Placeholder)
			}
			continue
		}
		// Plain occurrences first: the expression (slow on long text) runs
		// only when the value may still be there, escaped.
		s = strings.ReplaceAll(s, e.v, Placeholder)
		if e.anchor != "" && !strings.Contains(s, e.anchor) {
			continue
		}
		s = e.expr().ReplaceAllLiteralString(s, Placeholder)
	}
	for _, e := range short {
		if !escaped {
			for _, q := range []string{`"`, `'`} {
				if w := q + e.v + q; strings.Contains(s, w) {
					s = strings.ReplaceAll(s, w, q+Placeholder+q)
				}
			}
			continue
		}
		if e.anchor != "" && !strings.Contains(s, e.anchor) {
			continue
		}
		s = e.expr().ReplaceAllString(s, "${1}"+Placeholder+"${2}")
	}
	return s
}

// entries returns the entries to scrub with, longest first: r's own, or,
// when r has parents or included registries, the union of all of theirs,
// so a secret containing another is still replaced whole whichever
// registry holds it.
func (r *Registry) entries() (long, short []*entry, frag *fragIndex) {
	long, short = r.own()
	r.mu.RLock()
	others := append(r.parents[:len(r.parents):len(r.parents)], r.included...)
	frag = r.frag
	r.mu.RUnlock()
	if len(others) == 0 {
		return long, short, frag
	}
	seen := map[string]bool{}
	var ls, ss []*entry
	var add func(x *Registry, depth int)
	add = func(x *Registry, depth int) {
		if depth > 8 { // registries are layered a level or two; never loop
			return
		}
		l, s := x.own()
		for _, e := range l {
			if !seen[e.v] {
				seen[e.v] = true
				ls = append(ls, e)
			}
		}
		for _, e := range s {
			if !seen[e.v] {
				seen[e.v] = true
				ss = append(ss, e)
			}
		}
		x.mu.RLock()
		more := append(x.parents[:len(x.parents):len(x.parents)], x.included...)
		x.mu.RUnlock()
		for _, p := range more {
			add(p, depth+1)
		}
	}
	add(r, 0)
	sortEntries(ls)
	sortEntries(ss)
	return ls, ss, r.unionIndex(ls)
}

// unionIndex returns the fragment index over long, reusing the last one
// while the values are the same.
func (r *Registry) unionIndex(long []*entry) *fragIndex {
	r.mu.RLock()
	of, idx := r.union.of, r.union.idx
	r.mu.RUnlock()
	if slices.Equal(of, long) {
		return idx
	}
	idx = newFragIndex(long)
	r.mu.Lock()
	r.union.of, r.union.idx = long, idx
	r.mu.Unlock()
	return idx
}

// own returns r's own entries, building them after a Register.
func (r *Registry) own() (long, short []*entry) {
	r.mu.RLock()
	n, built := len(r.values), r.built
	r.mu.RUnlock()
	if n == 0 {
		return nil, nil
	}
	if !built {
		r.build()
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.long, r.short
}

func (r *Registry) build() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.built {
		return
	}
	old := map[string]*entry{}
	for _, e := range append(r.long, r.short...) {
		old[e.v] = e // keep compiled expressions
	}
	// New slices: a Scrub running now still holds the old ones.
	r.long, r.short = nil, nil
	for v := range r.values {
		e := old[v]
		if e == nil {
			e = newEntry(v, len(v) < minScrubLen)
		}
		if e.quoted {
			r.short = append(r.short, e)
		} else {
			r.long = append(r.long, e)
		}
	}
	sortEntries(r.long)
	sortEntries(r.short)
	r.frag = newFragIndex(r.long)
	r.built = true
}

// sortEntries puts the longest first, so a secret containing another is
// replaced whole.
func sortEntries(l []*entry) {
	sort.Slice(l, func(i, j int) bool {
		if len(l[i].v) != len(l[j].v) {
			return len(l[i].v) > len(l[j].v)
		}
		return l[i].v < l[j].v
	})
}

// escapedPattern matches v written plainly or with any of its characters
// JSON-escaped, at any depth of escaping: "\u00c9" or "\u00C9" for É,
// "\"" or "\\\"" for a quote, "\u003C" for <, "\/" for /.
func escapedPattern(v string) string {
	var b strings.Builder
	for _, c := range v {
		b.WriteString("(?:")
		b.WriteString(regexp.QuoteMeta(string(c)))
		b.WriteString("|")
		b.WriteString(unicodeEscape(c))
		if e, ok := shortEscape[c]; ok {
			b.WriteString(`|\\+`)
			b.WriteString(regexp.QuoteMeta(e))
		}
		b.WriteString(")")
	}
	return b.String()
}

// shortEscape are JSON's two-character escapes, by character.
var shortEscape = map[rune]string{
	'"': `"`, '\\': `\`, '/': `/`, '\b': "b", '\f': "f", '\n': "n", '\r': "r", '\t': "t",
}

// unicodeEscape matches \uXXXX (any number of backslashes, either case of
// hex digits) for c, as a surrogate pair outside the basic plane.
func unicodeEscape(c rune) string {
	one := func(u rune) string { return fmt.Sprintf(`\\+u(?i:%04x)`, u) }
	if c >= 0x10000 {
		hi, lo := utf16.EncodeRune(c)
		return one(hi) + one(lo)
	}
	return one(c)
}

// Registered reports whether s as a whole is a secret value registered
// with r, its parents or a registry it includes.
func (r *Registry) Registered(s string) bool {
	return r.registered(s, 0)
}

func (r *Registry) registered(s string, depth int) bool {
	if r == nil || depth > 8 {
		return false
	}
	r.mu.RLock()
	if r.values[s] {
		r.mu.RUnlock()
		return true
	}
	others := append(r.parents[:len(r.parents):len(r.parents)], r.included...)
	r.mu.RUnlock()
	for _, o := range others {
		if o.registered(s, depth+1) {
			return true
		}
	}
	return false
}
