// Package bodypath is the one parser and renderer of paths into ARM request
// and response bodies, and the one deep copy of decoded JSON. It has no
// dependencies beyond the standard library so every package (the emulator
// included) can share it.
//
// A path is a list of segments:
//
//	properties.subnets[default].properties.addressPrefix   display form (plans, messages)
//	properties.subnets[name=default].properties            owned form (state, Need lists)
//	tags."hidden-link:/x"  tags["hidden-link:/x"]          quoted members
//	properties.rules[0]                                    positional item
//	properties.subnets[*]  tags.*                          any item, any member
//	properties.subnets[].name                              schema path: items in general
//
// Members holding dots, brackets, quotes, commas, "=", spaces or nothing at
// all are written as Go-quoted strings so every path reads back as written.
package bodypath

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kind says how a segment steps into a body.
type Kind uint8

const (
	// Member is an object member. The name "*" stands for any member
	// where a path is used as a pattern.
	Member Kind = iota
	// Index is an array item by position: [0].
	Index
	// Keyed is an array item chosen by identifier values: [default] (by
	// value only) or [name=default,kind=x] (with identifier names).
	Keyed
	// AnyItem is every item of an array: [*].
	AnyItem
	// Item is the schema form of an array item, [], as pkg/schema writes
	// property paths: it names the items in general, not one of them.
	Item
)

// Seg is one step of a Path.
type Seg struct {
	Kind Kind
	// Name is the member name (Member).
	Name string
	// Index is the position (Index).
	Index int
	// Keys are the identifier names (Keyed); nil when the item is chosen
	// by value only, e.g. [default].
	Keys []string
	// Values are the identifier values (Keyed), one per key when Keys is set.
	Values []string
}

// Path is a parsed body path.
type Path []Seg

// Field returns a Member segment.
func Field(name string) Seg { return Seg{Kind: Member, Name: name} }

// At returns an Index segment.
func At(i int) Seg { return Seg{Kind: Index, Index: i} }

// ByKeys returns a Keyed segment; keys may be nil for an item chosen by
// value only.
func ByKeys(keys, values []string) Seg { return Seg{Kind: Keyed, Keys: keys, Values: values} }

// Wild reports whether the segment matches anything in its place: the
// member "*" or the item [*].
func (s Seg) Wild() bool {
	return s.Kind == AnyItem || (s.Kind == Member && s.Name == "*")
}

// IsItem reports whether the segment selects array items of any kind.
func (s Seg) IsItem() bool { return s.Kind != Member }

// Clone returns a copy of p that shares no backing array with it, so
// appending to one never changes the other.
func (p Path) Clone() Path {
	out := make(Path, len(p))
	copy(out, p)
	return out
}

// LastMember is the name of the last Member segment, "" when there is none.
func (p Path) LastMember() string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i].Kind == Member {
			return p[i].Name
		}
	}
	return ""
}

// String renders the owned form: keyed items carry their identifier
// names, so Parse(p.String()) gives p back exactly.
func (p Path) String() string { return string(p.appendTo(nil, true)) }

// Display renders the form plans print: keyed items by their values only
// (properties.subnets[default]). Display loses the identifier names, so
// read it back only where matching by name or id is meant.
func (p Path) Display() string { return string(p.appendTo(nil, false)) }

func (p Path) appendTo(b []byte, withKeys bool) []byte {
	for i, s := range p {
		b = s.appendTo(b, i == 0, withKeys)
	}
	return b
}

func (s Seg) appendTo(b []byte, first, withKeys bool) []byte {
	switch s.Kind {
	case Member:
		if !first {
			b = append(b, '.')
		}
		return appendQuoted(b, s.Name)
	case Index:
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(s.Index), 10)
		return append(b, ']')
	case AnyItem:
		return append(b, "[*]"...)
	case Item:
		return append(b, "[]"...)
	}
	b = append(b, '[')
	named := withKeys && len(s.Keys) == len(s.Values)
	for j, v := range s.Values {
		if j > 0 {
			b = append(b, ',')
		}
		if named {
			b = appendQuoted(b, s.Keys[j])
			b = append(b, '=')
		} else if len(s.Values) == 1 && withKeys && (v == "*" || isDigits(v)) {
			// Unquoted, a lone value like these reads back as [*] or an
			// index; the owned form must read back exactly.
			b = strconv.AppendQuote(b, v)
			continue
		}
		b = appendQuoted(b, v)
	}
	return append(b, ']')
}

// NeedsQuote reports whether a member name or identifier value must be
// quoted to read back unchanged: tag keys often hold dots, and spaces or
// control characters would not survive a copy from a terminal.
func NeedsQuote(s string) bool {
	if s == "" || strings.ContainsAny(s, ".[]=,\"\\ ") {
		return true
	}
	for _, r := range s {
		if r == utf8.RuneError || !strconv.IsPrint(r) {
			return true
		}
	}
	return false
}

// Quote returns s as a path writes it: quoted when NeedsQuote says so.
func Quote(s string) string {
	if NeedsQuote(s) {
		return strconv.Quote(s)
	}
	return s
}

func appendQuoted(b []byte, s string) []byte {
	if NeedsQuote(s) {
		return strconv.AppendQuote(b, s)
	}
	return append(b, s...)
}

// JoinMember appends one object member to a rendered path, quoting it when
// needed: JoinMember("tags", "a.b") is tags."a.b".
func JoinMember(base, member string) string {
	if base == "" {
		return Quote(member)
	}
	return base + "." + Quote(member)
}

// JoinIndex appends an array position to a rendered path: a[2].
func JoinIndex(base string, i int) string {
	return base + "[" + strconv.Itoa(i) + "]"
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
