package secret

import (
	"fmt"
	"regexp"
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
type Registry struct {
	mu     sync.RWMutex
	values map[string]bool
	// Built lazily from values, longest first: the values scrubbed
	// wherever they occur, and the short ones scrubbed only as whole
	// quoted values.
	long, short []*entry
	built       bool
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

// Default is the process-wide registry: loaders register every secret they
// resolve, and every writer of human or machine output scrubs with it.
var Default = &Registry{}

// Register adds secret values to r. The empty string is ignored. Values
// shorter than four bytes are only scrubbed as whole quoted values (see
// minScrubLen).
func (r *Registry) Register(values ...string) {
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

// Scrub replaces every registered secret value in s with Placeholder,
// whether it appears as is or JSON-escaped (once or more).
func (r *Registry) Scrub(s string) string {
	r.mu.RLock()
	n := len(r.values)
	built := r.built
	r.mu.RUnlock()
	if n == 0 || s == "" {
		return s
	}
	if !built {
		r.build()
	}
	r.mu.RLock()
	long, short := r.long, r.short
	r.mu.RUnlock()
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
	r.long, r.short = r.long[:0], r.short[:0]
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
	// Longest first, so a secret containing another is replaced whole.
	for _, l := range [][]*entry{r.long, r.short} {
		sort.Slice(l, func(i, j int) bool {
			if len(l[i].v) != len(l[j].v) {
				return len(l[i].v) > len(l[j].v)
			}
			return l[i].v < l[j].v
		})
	}
	r.built = true
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

// Registered reports whether s as a whole is a registered secret value.
func (r *Registry) Registered(s string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.values[s]
}

// Register adds values to the Default registry.
func Register(values ...string) { Default.Register(values...) }

// Scrub removes every value registered with Default from s.
func Scrub(s string) string { return Default.Scrub(s) }

// Registered reports whether s as a whole is a value registered with
// Default.
func Registered(s string) bool { return Default.Registered(s) }
