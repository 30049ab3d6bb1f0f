package schema

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
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
//
// An empty query lists the providers; a provider namespace alone
// ("Microsoft.Storage") lists its types and their api-versions.
func Explain(w io.Writer, r *Registry, query string, opts ExplainOptions) error {
	if err := r.Err(); err != nil {
		return err
	}
	query = strings.TrimSpace(query)
	if query == "" {
		return ListProviders(w, r, opts)
	}
	if !strings.Contains(query, "/") {
		return ListTypes(w, r, query, opts)
	}
	q, err := ParseQuery(query)
	if err != nil {
		return err
	}
	t, res := r.Lookup(q.Type, q.APIVersion)
	if t == nil {
		return unknownType(r, q.Type)
	}
	sp, p := Path(""), (*Property)(nil)
	if q.Path != "" {
		sp, p = t.Resolve(SplitPath(q.Path))
		if p == nil {
			return unknownPath(t, q.Path)
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
	all := r.Types()
	for _, n := range all {
		ln := strings.ToLower(n)
		if strings.HasSuffix(ln, "/"+last) || (len(lt) > 3 && strings.HasPrefix(ln, lt)) {
			near = append(near, n)
		}
	}
	// Typos: the closest full names.
	for _, n := range Suggest(typ, all) {
		if !slices.Contains(near, n) {
			near = append([]string{n}, near...)
		}
	}
	if len(near) > 8 {
		near = near[:8]
	}
	msg := fmt.Sprintf("resource type %s is not in the schema index", typ)
	if len(near) > 0 {
		msg += "; did you mean " + strings.Join(near, ", ") + "?"
	} else {
		ns, _, _ := strings.Cut(typ, "/")
		msg += fmt.Sprintf("; `kubectl azure explain %s` lists the types the index knows for that provider, and --schema-dir reads a newer azure-rest-api-specs checkout", ns)
	}
	return fmt.Errorf("%s", msg)
}

// unknownPath explains a field that is not there, with the closest names
// at the deepest level that does exist.
func unknownPath(t *Type, path string) error {
	segs := SplitPath(path)
	var parent Path
	for i := range segs {
		sp, p := t.Resolve(segs[:i+1])
		if p == nil {
			var names []string
			for _, c := range t.children(parent) {
				if c != "[]" && c != "*" {
					names = append(names, c)
				}
			}
			msg := fmt.Sprintf("%s@%s has no field %q", t.Name, t.APIVersion, path)
			if sug := Suggest(segs[i], names); len(sug) > 0 {
				for j := range sug {
					sug[j] = string(parent.Member(sug[j]))
				}
				msg += "; did you mean " + strings.Join(sug, " or ") + "?"
			}
			where := "its top-level fields are"
			if parent != "" {
				where = string(parent) + " has"
			}
			return fmt.Errorf("%s; %s: %s", msg, where, strings.Join(names, ", "))
		}
		parent = sp
	}
	return fmt.Errorf("%s@%s has no field %q", t.Name, t.APIVersion, path)
}

// ListProviders writes the provider namespaces with their type counts.
func ListProviders(w io.Writer, r *Registry, opts ExplainOptions) error {
	if err := r.Err(); err != nil {
		return err
	}
	provs := r.Providers()
	counts := map[string]int{}
	for _, typ := range r.Types() {
		ns, _, _ := strings.Cut(typ, "/")
		counts[strings.ToLower(ns)]++
	}
	if opts.Output == "json" {
		type prov struct {
			Namespace string `json:"namespace"`
			Types     int    `json:"types"`
		}
		out := make([]prov, 0, len(provs))
		for _, p := range provs {
			out = append(out, prov{p, counts[strings.ToLower(p)]})
		}
		return writeJSON(w, map[string]any{"providers": out})
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "PROVIDER\tTYPES\n")
	for _, p := range provs {
		fmt.Fprintf(tw, "%s\t%d\n", p, counts[strings.ToLower(p)])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "\nUse `kubectl azure explain NAMESPACE` to list a provider's types and api-versions.")
	return err
}

// ListTypes writes the types of one provider namespace with their
// api-versions.
func ListTypes(w io.Writer, r *Registry, namespace string, opts ExplainOptions) error {
	if err := r.Err(); err != nil {
		return err
	}
	types := r.TypesOf(namespace)
	if len(types) == 0 {
		msg := fmt.Sprintf("provider %s is not in the schema index", namespace)
		if sug := Suggest(namespace, r.Providers()); len(sug) > 0 {
			msg += "; did you mean " + strings.Join(sug, " or ") + "?"
		}
		return fmt.Errorf("%s; `kubectl azure explain` with no argument lists the providers", msg)
	}
	if opts.Output == "json" {
		type typ struct {
			Type     string   `json:"type"`
			Versions []string `json:"versions"`
		}
		out := make([]typ, 0, len(types))
		for _, t := range types {
			out = append(out, typ{t, r.Versions(t)})
		}
		return writeJSON(w, map[string]any{"types": out})
	}
	for _, t := range types {
		vs := r.Versions(t)
		if _, err := fmt.Fprintf(w, "%s\n  %s\n", t, strings.Join(vs, ", ")); err != nil {
			return err
		}
	}
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

type field struct {
	Name        string `json:"name"`
	Path        Path   `json:"path"`
	*Property   `json:"-"`
	Flags       []string `json:"flags,omitempty"`
	Description string   `json:"description,omitempty"`
}

// MarshalJSON spells the facts out; Property's own JSON names are the
// index's terse ones.
func (f field) MarshalJSON() ([]byte, error) {
	type out struct {
		Name        string   `json:"name"`
		Path        Path     `json:"path"`
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
		Required    bool     `json:"required,omitempty"`
		Description string   `json:"description,omitempty"`
		MinLength   *int64   `json:"minLength,omitempty"`
		MaxLength   *int64   `json:"maxLength,omitempty"`
		MinValue    *int64   `json:"minValue,omitempty"`
		MaxValue    *int64   `json:"maxValue,omitempty"`
		Pattern     string   `json:"pattern,omitempty"`
		Variants    []string `json:"variants,omitempty"`
	}
	p := f.Property
	if p == nil {
		p = &Property{}
	}
	return json.Marshal(out{f.Name, f.Path, p.Type, p.ReadOnly, p.CreateOnly, p.Secret, p.WriteOnly,
		p.ARMID, p.Default, p.Enum, p.EnumClosed, p.Identifiers, p.Positional, f.Flags,
		p.Required, f.Description, p.MinLength, p.MaxLength, p.MinValue, p.MaxValue, p.Pattern, p.Variants})
}

func explainFields(t *Type, sp Path, recursive bool) []field {
	var out []field
	var visit func(parent Path)
	visit = func(parent Path) {
		for _, c := range t.Children(parent) {
			cp := parent.Member(c)
			if c == "[]" {
				cp = parent.Item()
			}
			p := t.Properties[string(cp)]
			out = append(out, field{Name: c, Path: cp, Property: p, Flags: flags(t, cp, p), Description: t.Description(cp)})
			if recursive {
				visit(cp)
			}
		}
	}
	visit(sp)
	if !recursive && len(out) == 1 && out[0].Name == "[]" {
		// An array: what matters is its items' members.
		out = nil
		visit(sp.Item())
	}
	return out
}
