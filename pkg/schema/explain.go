package schema

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
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

func flags(t *Type, sp string, p *Property) []string {
	var f []string
	if p.ReadOnly {
		f = append(f, "readonly")
	}
	if p.CreateOnly {
		f = append(f, "create-only")
	}
	if p.Secret {
		f = append(f, "secret")
	}
	if p.WriteOnly {
		f = append(f, "write-only")
	}
	if p.ARMID {
		f = append(f, "arm-id")
	}
	if p.Type == TypeArray {
		keys, pos, fromSpec := t.ArrayKeys(sp)
		switch {
		case pos:
			f = append(f, "ordered")
		case len(keys) > 0 && fromSpec:
			f = append(f, "keyed by "+strings.Join(keys, "+"))
		case len(keys) > 0:
			f = append(f, "keyed by "+strings.Join(keys, "+")+" (assumed)")
		}
	}
	return f
}

func typeLabel(p *Property) string {
	if p == nil || p.Type == "" {
		return "<any>"
	}
	return "<" + string(p.Type) + ">"
}

func describe(p *Property) string {
	var parts []string
	if p.Default != nil {
		b, _ := json.Marshal(p.Default)
		parts = append(parts, "default "+string(b))
	}
	if len(p.Enum) > 0 {
		kind := "open"
		if p.EnumClosed {
			kind = "closed"
		}
		parts = append(parts, fmt.Sprintf("enum (%s): %s", kind, strings.Join(p.Enum, ", ")))
	}
	return strings.Join(parts, "; ")
}

func explainText(w io.Writer, r *Registry, t *Type, res Resolution, sp string, p *Property, fields []field) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "TYPE:\t%s\n", t.Name)
	fmt.Fprintf(tw, "VERSION:\t%s\n", t.APIVersion)
	if vs := r.Versions(t.Name); len(vs) > 1 {
		fmt.Fprintf(tw, "VERSIONS:\t%s\n", strings.Join(vs, ", "))
	}
	if res.Warning != "" {
		fmt.Fprintf(tw, "WARNING:\t%s\n", res.Warning)
	}
	fmt.Fprintf(tw, "PATCH:\t%s\n", patchSummary(t))
	fmt.Fprintf(tw, "ETAG:\t%s\n", yesNo(t.HasEtag))
	fmt.Fprintf(tw, "LONG-RUNNING:\tPUT %s, DELETE %s\n", yesNo(t.PutLRO), yesNo(t.DeleteLRO))
	if p != nil {
		fmt.Fprintf(tw, "\nFIELD:\t%s %s\n", sp, typeLabel(p))
		if f := flags(t, sp, p); len(f) > 0 {
			fmt.Fprintf(tw, "FLAGS:\t%s\n", strings.Join(f, ", "))
		}
		if d := describe(p); d != "" {
			fmt.Fprintf(tw, "VALUES:\t%s\n", d)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(fields) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nFIELDS:")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, f := range fields {
		name := f.Name
		if sp != "" || strings.ContainsAny(f.Path, ".[") {
			name = strings.TrimPrefix(strings.TrimPrefix(f.Path, sp), ".")
		}
		extra := strings.Join(f.Flags, ", ")
		if d := describe(f.Property); d != "" {
			if extra != "" {
				extra += "; "
			}
			extra += d
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", name, typeLabel(f.Property), extra)
	}
	return tw.Flush()
}

func patchSummary(t *Type) string {
	switch {
	case !t.PatchSupported:
		return "no (updates use GET-modify-PUT)"
	case len(t.PatchPaths) == 0:
		return "yes (body model unknown)"
	}
	top := map[string]bool{}
	for _, p := range t.PatchPaths {
		top[SplitPath(p)[0]] = true
	}
	names := make([]string, 0, len(top))
	for k := range top {
		names = append(names, k)
	}
	sort.Strings(names)
	if len(names) == 1 && names[0] == "tags" {
		return "tags only"
	}
	return "yes: " + strings.Join(names, ", ")
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

type explainDoc struct {
	Type           string     `json:"type"`
	APIVersion     string     `json:"apiVersion"`
	Versions       []string   `json:"versions"`
	Resolution     Resolution `json:"resolution"`
	PatchSupported bool       `json:"patchSupported"`
	PatchPaths     []string   `json:"patchPaths,omitempty"`
	HasEtag        bool       `json:"hasEtag"`
	PutLRO         bool       `json:"putLongRunning"`
	DeleteLRO      bool       `json:"deleteLongRunning"`
	Path           string     `json:"path,omitempty"`
	Field          *field     `json:"field,omitempty"`
	Fields         []field    `json:"fields"`
}

func explainJSON(w io.Writer, r *Registry, t *Type, res Resolution, sp string, p *Property, fields []field) error {
	doc := explainDoc{
		Type: t.Name, APIVersion: t.APIVersion, Versions: r.Versions(t.Name), Resolution: res,
		PatchSupported: t.PatchSupported, PatchPaths: t.PatchPaths, HasEtag: t.HasEtag,
		PutLRO: t.PutLRO, DeleteLRO: t.DeleteLRO, Path: sp, Fields: fields,
	}
	if doc.Fields == nil {
		doc.Fields = []field{}
	}
	if p != nil {
		name := sp
		if segs := SplitPath(sp); len(segs) > 0 {
			name = segs[len(segs)-1]
		}
		doc.Field = &field{Name: name, Path: sp, Property: p, Flags: flags(t, sp, p)}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
