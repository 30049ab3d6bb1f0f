package schema

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// ExplainOptions shapes Explain's output.
type ExplainOptions struct {
	// Output is "" (text) or "json".
	Output string
	// Recursive lists every field below the path, not just direct members.
	Recursive bool
}

// Query is a parsed "TYPE[@VERSION][.path]".
type Query struct {
	Type, APIVersion, Path string
}

// ParseQuery splits "Microsoft.Storage/storageAccounts@2023-05-01.properties.encryption".
// The type ends at "@" or at the first "." after its last "/" (segment
// names never contain dots, namespaces do).
func ParseQuery(q string) (Query, error) {
	q = strings.TrimSpace(q)
	slash := strings.LastIndex(q, "/")
	if slash < 0 {
		return Query{}, fmt.Errorf("%q is not a resource type: want NAMESPACE/TYPE[@VERSION][.path], e.g. Microsoft.Storage/storageAccounts@2023-05-01.properties", q)
	}
	var out Query
	rest := q[slash:]
	cut := strings.IndexAny(rest, "@.")
	if cut < 0 {
		out.Type = q
		return out, nil
	}
	out.Type = q[:slash+cut]
	rest = rest[cut:]
	if rest[0] == '@' {
		v, p, _ := strings.Cut(rest[1:], ".")
		out.APIVersion, rest = v, p
	} else {
		rest = rest[1:]
	}
	out.Path = rest
	return out, nil
}

// Explain describes a type, or one property path of it, like kubectl
// explain: the field's type and flags, then its members.
func Explain(w io.Writer, r *Registry, query string, opts ExplainOptions) error {
	q, err := ParseQuery(query)
	if err != nil {
		return err
	}
	if err := r.Err(); err != nil {
		return err
	}
	t, res := r.Lookup(q.Type, q.APIVersion)
	if t == nil {
		return unknownType(r, q.Type)
	}
	sp, p := "", (*Property)(nil)
	if q.Path != "" {
		sp, p = t.Resolve(SplitPath(q.Path))
		if p == nil {
			return fmt.Errorf("%s@%s has no field %q; its top-level fields are: %s",
				t.Name, t.APIVersion, q.Path, strings.Join(t.Children(""), ", "))
		}
	}
	fields := explainFields(t, sp, opts.Recursive)
	if opts.Output == "json" {
		return explainJSON(w, r, t, res, sp, p, fields)
	}
	if opts.Output != "" {
		return fmt.Errorf("unknown output format %q for explain: want json or nothing", opts.Output)
	}
	return explainText(w, r, t, res, sp, p, fields)
}

func unknownType(r *Registry, typ string) error {
	var near []string
	lt := strings.ToLower(typ)
	last := lt[strings.LastIndex(lt, "/")+1:]
	for _, n := range r.Types() {
		ln := strings.ToLower(n)
		if strings.HasSuffix(ln, "/"+last) || (len(lt) > 3 && strings.HasPrefix(ln, lt)) {
			near = append(near, n)
		}
	}
	if len(near) > 8 {
		near = near[:8]
	}
	msg := fmt.Sprintf("resource type %s is not in the schema index", typ)
	if len(near) > 0 {
		msg += "; similar: " + strings.Join(near, ", ")
	} else {
		msg += "; if it is newer than the built-in specs, pass --schema-dir with an azure-rest-api-specs checkout"
	}
	return fmt.Errorf("%s", msg)
}

type field struct {
	Name      string `json:"name"`
	Path      string `json:"path"`
	*Property `json:"-"`
	Flags     []string `json:"flags,omitempty"`
}

// MarshalJSON spells the facts out; Property's own JSON names are the
// index's terse ones.
func (f field) MarshalJSON() ([]byte, error) {
	type out struct {
		Name        string   `json:"name"`
		Path        string   `json:"path"`
		Type        JSONType `json:"type,omitempty"`
		ReadOnly    bool     `json:"readOnly,omitempty"`
		CreateOnly  bool     `json:"createOnly,omitempty"`
		Secret      bool     `json:"secret,omitempty"`
		WriteOnly   bool     `json:"writeOnly,omitempty"`
		ARMID       bool     `json:"armId,omitempty"`
		Default     any      `json:"default,omitempty"`
		Enum        []string `json:"enum,omitempty"`
		EnumClosed  bool     `json:"enumClosed,omitempty"`
		Identifiers []string `json:"identifiers,omitempty"`
		Positional  bool     `json:"positional,omitempty"`
		Flags       []string `json:"flags,omitempty"`
	}
	p := f.Property
	if p == nil {
		p = &Property{}
	}
	return json.Marshal(out{f.Name, f.Path, p.Type, p.ReadOnly, p.CreateOnly, p.Secret, p.WriteOnly,
		p.ARMID, p.Default, p.Enum, p.EnumClosed, p.Identifiers, p.Positional, f.Flags})
}

func explainFields(t *Type, sp string, recursive bool) []field {
	var out []field
	var visit func(parent string)
	visit = func(parent string) {
		for _, c := range t.Children(parent) {
			var cp string
			if c == "[]" {
				cp = parent + "[]"
			} else {
				cp = joinSchema(parent, c)
			}
			p := t.Properties[cp]
			out = append(out, field{Name: c, Path: cp, Property: p, Flags: flags(t, cp, p)})
			if recursive {
				visit(cp)
			}
		}
	}
	visit(sp)
	if !recursive && len(out) == 1 && out[0].Name == "[]" {
		// An array: what matters is its items' members.
		out = nil
		visit(sp + "[]")
	}
	return out
}
