package schema

import (
	"slices"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/bodypath"
)

// Concrete paths name one value in a body in the syntax of pkg/bodypath
// (the form the plan prints): dotted members, quoted when they hold dots
// (tags."a.b"), array items as "[index]" or "[key]", e.g.
// "properties.subnets[2].name", "properties.subnets[default].name".
// Schema paths name a property of the type: array items are "[]" and map
// values "*", members joined as declared: "properties.subnets[].name",
// "tags.*".

// SplitPath splits a concrete (or schema) path into segments: members by
// name (unquoted), array items as their own bracketed segment:
// "properties.subnets[2].name" -> ["properties" "subnets" "[2]" "name"],
// `tags."a.b"` -> ["tags" "a.b"]. A path that does not parse is one
// segment, which names no property.
func SplitPath(p string) []string {
	segs, err := bodypath.Parse(p)
	if err != nil {
		return []string{p}
	}
	out := make([]string, len(segs))
	for i, s := range segs {
		if s.Kind == bodypath.Member {
			out[i] = s.Name
		} else {
			out[i] = bodypath.Path{s}.String()
		}
	}
	return out
}

// IsItem reports whether a segment is an array item ("[3]", "[name]", "[]").
func IsItem(seg string) bool {
	return strings.HasPrefix(seg, "[") && strings.HasSuffix(seg, "]")
}

// JoinPath is the inverse of SplitPath: members are quoted where the
// concrete syntax needs it (tags."a.b").
func JoinPath(segs []string) string {
	var b strings.Builder
	for _, s := range segs {
		switch {
		case IsItem(s):
			b.WriteString(s)
		case b.Len() > 0:
			b.WriteByte('.')
			fallthrough
		default:
			b.WriteString(memberText(s))
		}
	}
	return b.String()
}

// memberText quotes a member for a concrete path; "*" stays the wildcard.
func memberText(s string) string {
	if s == "*" {
		return s
	}
	return bodypath.Quote(s)
}

// Path is a schema path: it names a property of a type, not a value in a
// body. Members are joined by ".", array items are "[]" and map values
// "*": "properties.subnets[].name", "tags.*". The root is "". Its methods
// and PathOf are the one way to build one; string literals in rule tables
// convert to it implicitly.
type Path string

// Member extends p by a declared member.
func (p Path) Member(name string) Path {
	if p == "" {
		return Path(name)
	}
	return p + "." + Path(name)
}

// MapValue extends p by the values of a map (additionalProperties): "*".
func (p Path) MapValue() Path { return p.Member("*") }

// Item extends p by the items of an array: "[]".
func (p Path) Item() Path { return p + "[]" }

// Child extends p by one object member: the map values when p is a map,
// the member itself otherwise.
func (p Path) Child(name string, parentIsMap bool) Path {
	if parentIsMap {
		return p.MapValue()
	}
	return p.Member(name)
}

// Split splits off the last segment: "a.b[]" -> "a.b", "[]"; "a.b" ->
// "a", "b"; "a" -> "", "a".
func (p Path) Split() (parent Path, name string) {
	s := string(p)
	if strings.HasSuffix(s, "[]") {
		return p[:len(p)-2], "[]"
	}
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		return p[:i], s[i+1:]
	}
	return "", s
}

// Within reports whether p is q or lies below it (a member or the items
// of q).
func (p Path) Within(q Path) bool {
	if len(p) <= len(q) || p[:len(q)] != q {
		return p == q
	}
	rest := p[len(q):]
	return rest[0] == '.' || strings.HasPrefix(string(rest), "[]")
}

// PathOf maps a body path to its schema path: items become "[]", and a
// member of an object isMap reports as a map becomes "*" (isMap may be
// nil: no maps). It builds the path in one buffer, as the diff calls it
// for every change.
func PathOf(p bodypath.Path, isMap func(Path) bool) Path {
	var b strings.Builder
	for _, s := range p {
		if s.Kind != bodypath.Member {
			b.WriteString("[]")
			continue
		}
		name := s.Name
		if isMap != nil && isMap(Path(b.String())) {
			name = "*"
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(name)
	}
	return Path(b.String())
}

// SchemaPath turns concrete segments into a schema path by replacing item
// segments with "[]". It cannot tell a map key from a member name without
// the type, so "tags.env" stays "tags.env": use Type.Resolve when the body
// may contain maps.
func SchemaPath(concrete []string) Path {
	var out Path
	for _, s := range concrete {
		if IsItem(s) {
			out = out.Item()
			continue
		}
		out = out.Member(s)
	}
	return out
}

// Resolve maps a concrete path to the type's schema path and the facts
// there, treating a segment as a map key ("*") when the parent declares
// no such member but has map values. A member match is case-sensitive
// first, then case-insensitive (ARM echoes some names with other casing).
// It returns the schema path as far as it could be mapped and nil when the
// spec does not describe the path.
func (t *Type) Resolve(concrete []string) (Path, *Property) {
	if t == nil {
		return SchemaPath(concrete), nil
	}
	var cur Path
	for i, seg := range concrete {
		var next Path
		var p *Property
		if IsItem(seg) {
			next = cur.Item()
			p = t.Properties[string(next)]
		} else {
			next, p = t.member(cur, seg)
		}
		if p == nil {
			rest := SchemaPath(concrete[i:])
			if cur != "" && !strings.HasPrefix(string(rest), "[") {
				rest = "." + rest
			}
			return cur + rest, nil
		}
		cur = next
	}
	return cur, t.Properties[string(cur)]
}

// member finds the property of the body member name of the object at
// parent: the declared member, else one whose name differs only in case,
// else the parent's map values. The property is nil when none applies.
func (t *Type) member(parent Path, name string) (Path, *Property) {
	sp := parent.Member(name)
	if p := t.Properties[string(sp)]; p != nil {
		return sp, p
	}
	if alt := t.memberFold(parent, name); alt != "" {
		return alt, t.Properties[string(alt)]
	}
	if m := t.Properties[string(parent.MapValue())]; m != nil {
		return parent.MapValue(), m
	}
	return sp, nil
}

// memberFold finds a member of parent whose name equals seg ignoring case.
func (t *Type) memberFold(parent Path, seg string) Path {
	for _, c := range t.children(parent) {
		if strings.EqualFold(c, seg) {
			return parent.Member(c)
		}
	}
	return ""
}

// Children lists the member names declared directly under a schema path
// ("" for the body root), sorted; "*" stands for map values and "[]" for
// array items.
func (t *Type) Children(sp Path) []string {
	if t == nil {
		return nil
	}
	return slices.Clone(t.children(sp))
}

// ArrayKeys says how to match the items of the array at schemaPath
// between two bodies:
//   - the spec's x-ms-identifiers when present (keys may be dotted paths
//     inside the item, e.g. "properties.name");
//   - x-ms-identifiers: [] means positional: order matters, match by index;
//   - when the spec is silent (the usual case in older specs): "name" if
//     the items declare a name member, else "id" if they declare an id,
//     else nil and not positional (the caller compares scalars as a set
//     and objects by index).
//
// fromSpec is false when the fallback was used.
func (t *Type) ArrayKeys(sp Path) (keys []string, positional, fromSpec bool) {
	if p := t.Prop(string(sp)); p != nil && p.Identifiers != nil {
		return p.Identifiers, p.Positional || len(p.Identifiers) == 0, true
	}
	for _, k := range []string{"name", "id"} {
		if t.Prop(string(sp.Item().Member(k))) != nil {
			return []string{k}, false, false
		}
	}
	return nil, false, false
}
