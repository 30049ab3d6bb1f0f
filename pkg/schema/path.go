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

// SchemaPath turns concrete segments into a schema path by replacing item
// segments with "[]". It cannot tell a map key from a member name without
// the type, so "tags.env" stays "tags.env": use Type.Resolve when the body
// may contain maps.
func SchemaPath(concrete []string) string {
	out := ""
	for _, s := range concrete {
		if IsItem(s) {
			out += "[]"
			continue
		}
		out = joinSchema(out, s)
	}
	return out
}

// Resolve maps a concrete path to the type's schema path and the facts
// there, treating a segment as a map key ("*") when the parent declares
// no such member but has map values. A member match is case-sensitive
// first, then case-insensitive (ARM echoes some names with other casing).
// It returns the schema path as far as it could be mapped and nil when the
// spec does not describe the path.
func (t *Type) Resolve(concrete []string) (string, *Property) {
	if t == nil {
		return SchemaPath(concrete), nil
	}
	cur := ""
	for i, seg := range concrete {
		var next string
		switch {
		case IsItem(seg):
			next = cur + "[]"
		default:
			next = joinSchema(cur, seg)
			if _, ok := t.Properties[next]; !ok {
				if alt := t.memberFold(cur, seg); alt != "" {
					next = alt
				} else if _, ok := t.Properties[joinSchema(cur, "*")]; ok {
					next = joinSchema(cur, "*")
				}
			}
		}
		if _, ok := t.Properties[next]; !ok {
			rest := SchemaPath(concrete[i:])
			if cur != "" && !strings.HasPrefix(rest, "[") {
				rest = "." + rest
			}
			return cur + rest, nil
		}
		cur = next
	}
	return cur, t.Properties[cur]
}

func joinSchema(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// memberFold finds a member of parent whose name equals seg ignoring case.
func (t *Type) memberFold(parent, seg string) string {
	for _, c := range t.Children(parent) {
		if strings.EqualFold(c, seg) {
			return joinSchema(parent, c)
		}
	}
	return ""
}

// Children lists the member names declared directly under a schema path
// ("" for the body root), sorted; "*" stands for map values and "[]" for
// array items.
func (t *Type) Children(schemaPath string) []string {
	if t == nil {
		return nil
	}
	return slices.Clone(t.children(schemaPath))
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
func (t *Type) ArrayKeys(schemaPath string) (keys []string, positional, fromSpec bool) {
	if p := t.Prop(schemaPath); p != nil && p.Identifiers != nil {
		return p.Identifiers, p.Positional || len(p.Identifiers) == 0, true
	}
	for _, k := range []string{"name", "id"} {
		if t.Prop(schemaPath+"[]."+k) != nil {
			return []string{k}, false, false
		}
	}
	return nil, false, false
}
