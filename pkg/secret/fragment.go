package secret

import "strings"

// minFragment is the shortest stretch of a registered secret that Scrub
// hides wherever it appears, on its own: ARM quotes only the start of a
// long value (a tag value over 256 characters is quoted to its 40th, then
// "…"), and a template's result starts with its fixed text. Twelve bytes
// is longer than ordinary words, so text that merely shares a word with a
// secret is left alone, and short enough that a quoted start of a secret
// has nothing left to read.
const minFragment = 12

// Rolling hash over minFragment bytes: gramBase is odd, so the hash of a
// window is a polynomial in its bytes modulo 2^64, and filterBits of its
// top bits index a bit set that rules most positions out at once.
const (
	gramBase   = 0x100000001b3
	filterBits = 16
)

// gramPow is gramBase^(minFragment-1), to drop a window's first byte.
var gramPow = func() uint64 {
	p := uint64(1)
	for i := 0; i < minFragment-1; i++ {
		p *= gramBase
	}
	return p
}()

// gramRef is where a window of minFragment bytes occurs in a secret.
type gramRef struct {
	e   *entry
	off int
}

// fragIndex finds, in one pass over a text, every stretch of minFragment
// or more bytes it shares with one of its secrets.
type fragIndex struct {
	filter []uint64
	grams  map[uint64][]gramRef
}

func newFragIndex(entries []*entry) *fragIndex {
	x := &fragIndex{grams: map[uint64][]gramRef{}}
	for _, e := range entries {
		v := e.v
		if len(v) < minFragment {
			continue
		}
		var h uint64
		for i := 0; i < len(v); i++ {
			if i >= minFragment {
				h -= uint64(v[i-minFragment]) * gramPow
			}
			h = h*gramBase + uint64(v[i])
			if i >= minFragment-1 {
				x.grams[h] = append(x.grams[h], gramRef{e, i - minFragment + 1})
			}
		}
	}
	if len(x.grams) == 0 {
		return nil
	}
	x.filter = make([]uint64, 1<<filterBits/64)
	for h := range x.grams {
		k := h >> (64 - filterBits)
		x.filter[k/64] |= 1 << (k % 64)
	}
	return x
}

// scrub replaces every stretch of s of minFragment bytes or more that is
// also a stretch of a secret with Placeholder. A stretch continues over
// backslashes before a quote, a slash or a backslash, as JSON escapes them.
func (x *fragIndex) scrub(s string) string {
	if x == nil || len(s) < minFragment {
		return s
	}
	type span struct{ from, to int }
	var spans []span
	var h uint64
	for i := 0; i < len(s); i++ {
		if i >= minFragment {
			h -= uint64(s[i-minFragment]) * gramPow
		}
		h = h*gramBase + uint64(s[i])
		if i < minFragment-1 {
			continue
		}
		k := h >> (64 - filterBits)
		if x.filter[k/64]&(1<<(k%64)) == 0 {
			continue
		}
		start := i - minFragment + 1
		if n := len(spans); n > 0 && start < spans[n-1].to {
			continue // inside a stretch already found
		}
		best := span{-1, -1}
		for _, g := range x.grams[h] {
			v := g.e.v
			if s[start:i+1] != v[g.off:g.off+minFragment] {
				continue
			}
			from := extendBack(s, start, v, g.off)
			to := extend(s, i+1, v, g.off+minFragment)
			if best.from < 0 || to-from > best.to-best.from {
				best = span{from, to}
			}
		}
		if best.from < 0 {
			continue
		}
		if best.to = keepLabel(s, best.from, best.to); best.to-best.from < minFragment {
			continue
		}
		if n := len(spans); n > 0 && best.from <= spans[n-1].to {
			if best.to > spans[n-1].to {
				spans[n-1].to = best.to
			}
		} else {
			spans = append(spans, best)
		}
	}
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, sp := range spans {
		b.WriteString(s[last:sp.from])
		b.WriteString(Placeholder)
		last = sp.to
	}
	b.WriteString(s[last:])
	return b.String()
}

// keepLabel returns the end of a stretch s[from:to] without the ;name=
// (or &name=, ?name=) it ends with (";AccountKey=" of a connection
// string template): the text after it is not this secret, and the ARM
// client's own redaction finds another credential by that name. A
// base64 value ending in "=" has no ";", "&" or "?", so it is never cut.
func keepLabel(s string, from, to int) int {
	if s[to-1] != '=' {
		return to
	}
	i := to - 1
	for i > from && (s[i-1] >= 'a' && s[i-1] <= 'z' || s[i-1] >= 'A' && s[i-1] <= 'Z' || s[i-1] == '_') {
		i--
	}
	if i == to-1 || i == from || (s[i-1] != ';' && s[i-1] != '&' && s[i-1] != '?') {
		return to
	}
	return i
}

// extend returns how far s (from p) goes on agreeing with v (from j).
func extend(s string, p int, v string, j int) int {
	if j > 0 && v[j-1] == '\\' {
		for p < len(s) && s[p] == '\\' {
			p++
		}
	}
	for p < len(s) && j < len(v) {
		c := v[j]
		switch {
		case c == '\\' && s[p] == '\\':
			for p < len(s) && s[p] == '\\' {
				p++
			}
			j++
		case (c == '"' || c == '/') && s[p] == '\\':
			q := p
			for q < len(s) && s[q] == '\\' {
				q++
			}
			if q == len(s) || s[q] != c {
				return p
			}
			p, j = q+1, j+1
		case s[p] == c:
			p, j = p+1, j+1
		default:
			return p
		}
	}
	return p
}

// extendBack returns where, going back from p, s stops agreeing with v
// before j, over the same escapes as extend.
func extendBack(s string, p int, v string, j int) int {
	if c := v[j]; c == '"' || c == '/' || c == '\\' {
		for p > 0 && s[p-1] == '\\' {
			p--
		}
	}
	for p > 0 && j > 0 && s[p-1] == v[j-1] {
		c := v[j-1]
		p, j = p-1, j-1
		if c == '"' || c == '/' || c == '\\' {
			for p > 0 && s[p-1] == '\\' {
				p--
			}
		}
	}
	return p
}
