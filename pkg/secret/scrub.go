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
	// Built lazily from values: the plain forms, longest first, and one
	// expression each for long and short values that also matches every
	// JSON-escaped spelling (\", \u003C, \u00c9, escaped again).
	plain        []string
	short        []string
	long, quoted *regexp.Regexp
	built        bool
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
	plain, short, long, quoted := r.plain, r.short, r.long, r.quoted
	r.mu.RUnlock()
	if !strings.Contains(s, `\`) {
		// No escape in the text: plain replacement is enough and cheap.
		for _, v := range plain {
			if strings.Contains(s, v) {
				s = strings.ReplaceAll(s, v, Placeholder)
			}
		}
		for _, v := range short {
			for _, q := range []string{`"`, `'`} {
				if w := q + v + q; strings.Contains(s, w) {
					s = strings.ReplaceAll(s, w, q+Placeholder+q)
				}
			}
		}
		return s
	}
	if long != nil {
		s = long.ReplaceAllLiteralString(s, Placeholder)
	}
	if quoted != nil {
		s = quoted.ReplaceAllString(s, "${1}"+Placeholder+"${2}")
	}
	return s
}

func (r *Registry) build() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.built {
		return
	}
	r.plain, r.short = r.plain[:0], r.short[:0]
	for v := range r.values {
		if len(v) >= minScrubLen {
			r.plain = append(r.plain, v)
		} else {
			r.short = append(r.short, v)
		}
	}
	// Longest first, so a secret containing another is replaced whole.
	for _, l := range [][]string{r.plain, r.short} {
		sort.Slice(l, func(i, j int) bool {
			if len(l[i]) != len(l[j]) {
				return len(l[i]) > len(l[j])
			}
			return l[i] < l[j]
		})
	}
	r.long, r.quoted = nil, nil
	if len(r.plain) > 0 {
		r.long = regexp.MustCompile(alternatives(r.plain))
	}
	if len(r.short) > 0 {
		// A quote, possibly escaped, on both sides.
		q := `((?:\\*")|')`
		r.quoted = regexp.MustCompile(q + alternatives(r.short) + `((?:\\*")|')`)
	}
	r.built = true
}

// alternatives is an expression matching any of values in any JSON
// spelling, longest first.
func alternatives(values []string) string {
	var b strings.Builder
	b.WriteString("(?:")
	for i, v := range values {
		if i > 0 {
			b.WriteByte('|')
		}
		b.WriteString(escapedPattern(v))
	}
	b.WriteByte(')')
	return b.String()
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

// Len reports how many values r holds.
func (r *Registry) Len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.values)
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
