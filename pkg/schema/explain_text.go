package schema

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// flags names the facts of a property for display, the array matching
// rule included.
func flags(t *Type, sp Path, p *Property) []string {
	var f []string
	if p == nil {
		return nil
	}
	if p.Required && !p.ReadOnly {
		f = append(f, "REQUIRED")
	}
	if p.ReadOnly {
		f = append(f, "READONLY")
	}
	if p.CreateOnly {
		f = append(f, "CREATE-ONLY")
	}
	if p.WriteOnly {
		f = append(f, "WRITE-ONLY")
	}
	if p.Secret {
		f = append(f, "SECRET")
	}
	if p.ARMID {
		f = append(f, "arm-id")
	}
	if len(p.Variants) > 0 {
		f = append(f, "only for "+strings.Join(p.Variants, ", "))
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
	if p == nil {
		return ""
	}
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
	if l := limitsText(p); l != "" {
		parts = append(parts, l)
	}
	if p.FromNearestSwagger {
		parts = append(parts, "some facts from the nearest Swagger version")
	}
	return strings.Join(parts, "; ")
}

func limitsText(p *Property) string {
	var parts []string
	if p.MinLength != nil {
		parts = append(parts, fmt.Sprintf("min length %d", *p.MinLength))
	}
	if p.MaxLength != nil {
		parts = append(parts, fmt.Sprintf("max length %d", *p.MaxLength))
	}
	if p.MinValue != nil {
		parts = append(parts, fmt.Sprintf("min %d", *p.MinValue))
	}
	if p.MaxValue != nil {
		parts = append(parts, fmt.Sprintf("max %d", *p.MaxValue))
	}
	if p.Pattern != "" {
		parts = append(parts, "pattern "+p.Pattern)
	}
	return strings.Join(parts, ", ")
}

// factsSource says where the Swagger-only facts of a version come from.
// The generator takes them only from a Swagger of the same resource
// (internal/specgen swaggerFor): Insights 2016-09-01 describes
// diagnosticSettings/service alone and lends nothing to the settings the
// user names. From another api-version it names only what was really
// taken: ETag, long-running and status codes always; PATCH when that
// version has one; field facts only where its paths match, each marked.
func factsSource(t *Type) string {
	switch t.FactsFrom {
	case t.APIVersion:
		return "Swagger " + t.FactsFrom
	case "":
		return "no Swagger spec of this resource: array identifiers, create-only, PATCH and defaults are unknown"
	}
	var took, not []string
	if t.PatchSupported {
		took = append(took, "PATCH")
	} else {
		not = append(not, "PATCH")
	}
	if borrowsFieldFacts(t) {
		took = append(took, `field facts (marked "from the nearest Swagger version")`)
	} else {
		not = append(not, "array identifiers", "create-only", "defaults")
	}
	took = append(took, "ETag, long-running and status codes")
	s := fmt.Sprintf("%s from Swagger %s (the nearest version that has a Swagger spec)", joinWord(took, "and"), t.FactsFrom)
	if len(not) > 0 {
		s += "; no " + joinWord(not, "or") + " taken from it"
	}
	return s
}

func borrowsFieldFacts(t *Type) bool {
	for _, p := range t.Properties {
		if p.FromNearestSwagger {
			return true
		}
	}
	return false
}

// joinWord joins "a", "b" and "c" as "a, b and c" (word "and").
func joinWord(items []string, word string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + word + " " + items[len(items)-1]
}

func explainText(w io.Writer, r *Registry, t *Type, res Resolution, sp Path, p *Property, fields []field) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "TYPE:\t%s\n", t.Name)
	fmt.Fprintf(tw, "VERSION:\t%s\n", t.APIVersion)
	if vs := r.Versions(t.Name); len(vs) > 1 {
		fmt.Fprintf(tw, "VERSIONS:\t%s\n", strings.Join(vs, ", "))
	}
	if res.Warning != "" {
		fmt.Fprintf(tw, "WARNING:\t%s\n", res.Warning)
	}
	fmt.Fprintf(tw, "FACTS:\t%s\n", factsSource(t))
	if t.Discriminator == "name" {
		fmt.Fprintf(tw, "BODY:\tdepends on the resource name (one body per name)\n")
	} else if t.Discriminator != "" {
		fmt.Fprintf(tw, "BODY:\tdepends on %s\n", t.Discriminator)
	}
	fmt.Fprintf(tw, "PATCH:\t%s\n", patchSummary(t))
	fmt.Fprintf(tw, "ETAG:\t%s\n", yesNo(t.HasEtag))
	fmt.Fprintf(tw, "LONG-RUNNING:\tPUT %s, DELETE %s\n", yesNo(t.PutLRO), yesNo(t.DeleteLRO))
	if len(t.PutStatus) > 0 || len(t.DeleteStatus) > 0 {
		fmt.Fprintf(tw, "STATUS CODES:\tPUT %s, DELETE %s\n", codes(t.PutStatus), codes(t.DeleteStatus))
	}
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
	if p != nil {
		if d := t.Description(sp); d != "" {
			fmt.Fprintf(w, "DESCRIPTION:\n%s\n", indent(d, "  "))
		}
	}
	if len(fields) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nFIELDS:")
	// kubectl explain's layout: the field line, its description indented
	// below it.
	for _, f := range fields {
		name := f.Name
		if sp != "" || strings.ContainsAny(string(f.Path), ".[") {
			name = strings.TrimPrefix(strings.TrimPrefix(string(f.Path), string(sp)), ".")
		}
		line := "  " + name + "\t" + typeLabel(f.Property)
		if m := strings.Join(f.Flags, ", "); m != "" {
			line += "\t" + m
		}
		if d := describe(f.Property); d != "" {
			line += "\t" + d
		}
		fmt.Fprintln(w, strings.ReplaceAll(line, "\t", "  "))
		if f.Description != "" {
			fmt.Fprintln(w, indent(f.Description, "      "))
		}
	}
	return nil
}

func indent(text, prefix string) string {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	for i, l := range lines {
		lines[i] = prefix + strings.TrimSpace(l)
	}
	return strings.Join(lines, "\n")
}

func patchSummary(t *Type) string {
	s := patchModel(t)
	if t.PatchSupported && t.FactsFrom != "" && t.FactsFrom != t.APIVersion {
		// Right for about 98 in 100 stable versions measured against their
		// own Swagger; a 405 answer makes apply fall back to GET-modify-PUT.
		s += fmt.Sprintf(" (from Swagger %s, not verified for %s; a 405 answer falls back to GET-modify-PUT)", t.FactsFrom, t.APIVersion)
	}
	return s
}

func patchModel(t *Type) string {
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
	names := slices.Sorted(maps.Keys(top))
	if len(names) == 1 && names[0] == "tags" {
		return "tags only"
	}
	return "yes: " + strings.Join(names, ", ")
}

func codes(cs []int) string {
	if len(cs) == 0 {
		return "unknown"
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = strconv.Itoa(c)
	}
	return strings.Join(parts, " ")
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
	Path           Path       `json:"path,omitempty"`
	Field          *field     `json:"field,omitempty"`
	Fields         []field    `json:"fields"`
	FactsFrom      string     `json:"swaggerFactsFrom,omitempty"`
	Discriminator  string     `json:"discriminator,omitempty"`
	PutStatus      []int      `json:"putStatus,omitempty"`
	DeleteStatus   []int      `json:"deleteStatus,omitempty"`
}

func explainJSON(w io.Writer, r *Registry, t *Type, res Resolution, sp Path, p *Property, fields []field) error {
	doc := explainDoc{
		FactsFrom: t.FactsFrom, Discriminator: t.Discriminator, PutStatus: t.PutStatus, DeleteStatus: t.DeleteStatus,
		Type: t.Name, APIVersion: t.APIVersion, Versions: r.Versions(t.Name), Resolution: res,
		PatchSupported: t.PatchSupported, PatchPaths: t.PatchPaths, HasEtag: t.HasEtag,
		PutLRO: t.PutLRO, DeleteLRO: t.DeleteLRO, Path: sp, Fields: fields,
	}
	if doc.Fields == nil {
		doc.Fields = []field{}
	}
	if p != nil {
		name := string(sp)
		if segs := SplitPath(name); len(segs) > 0 {
			name = segs[len(segs)-1]
		}
		doc.Field = &field{Name: name, Path: sp, Property: p, Flags: flags(t, sp, p), Description: t.Description(sp)}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
