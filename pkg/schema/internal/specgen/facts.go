package specgen

import (
	"fmt"
	"strings"
)

// fact is what one model says about one property path.
type fact struct {
	typ      string
	ro       bool
	mut      []string
	hasMut   bool
	secret   bool
	armID    bool
	def      any
	hasDef   bool
	enum     []string
	closed   bool
	ids      []string
	hasIDs   bool
	children bool // the model declares members below this path
	// createOnly: x-ms-mutability without "update", on this path or an
	// ancestor (mutability applies to the whole subtree).
	createOnly bool
}

// inherited is what a path passes down to its members: a readonly or
// create-only object makes everything inside it so.
type inherited struct{ ro, co bool }

func (f *fact) mutable(op string) bool {
	for _, m := range f.mut {
		if m == op {
			return true
		}
	}
	return false
}

// altFacts merges what several models say about one path (sub-types
// sharing a member name). Only what they agree on is kept: a path that is
// a number in one sub-type and a string in another has no single type,
// and a value allowed by any of them is valid.
func (w *walker) altFacts(alts []node) *fact {
	var out *fact
	for _, a := range alts {
		f := factOf(a.m)
		if f.typ == "" {
			f.typ = w.collect([]node{a}).typ
		}
		if out == nil {
			out = f
			continue
		}
		if f.typ != out.typ {
			out.typ = ""
		}
		out.ro = out.ro && f.ro
		out.createOnly = out.createOnly && f.createOnly
		if !f.hasMut {
			out.hasMut, out.mut = false, nil
		}
		out.secret = out.secret || f.secret
		out.armID = out.armID || f.armID
		if !f.hasDef || fmt.Sprint(f.def) != fmt.Sprint(out.def) {
			out.def, out.hasDef = nil, false
		}
		if len(f.enum) == 0 || len(out.enum) == 0 {
			out.enum, out.closed = nil, false
		} else {
			for _, e := range f.enum {
				if !contains(out.enum, e) {
					out.enum = append(out.enum, e)
				}
			}
			out.closed = out.closed && f.closed
		}
		if !out.hasIDs && f.hasIDs {
			out.ids, out.hasIDs = f.ids, true
		}
	}
	return out
}

func factOf(m map[string]any) *fact {
	f := &fact{}
	f.typ, _ = m["type"].(string)
	f.ro, _ = m["readOnly"].(bool)
	if mut, ok := m["x-ms-mutability"].([]any); ok {
		f.hasMut = true
		for _, v := range mut {
			if s, ok := v.(string); ok {
				f.mut = append(f.mut, s)
			}
		}
	}
	f.createOnly = f.hasMut && f.mutable("create") && !f.mutable("update")
	sec, _ := m["x-ms-secret"].(bool)
	format, _ := m["format"].(string)
	f.secret = sec || format == "password"
	_, details := m["x-ms-arm-id-details"]
	f.armID = format == "arm-id" || details
	if d, ok := m["default"]; ok && d != nil {
		f.def, f.hasDef = d, true
	}
	if e, ok := m["enum"].([]any); ok {
		for _, v := range e {
			if s, ok := v.(string); ok {
				f.enum = append(f.enum, s)
			} else {
				f.enum = append(f.enum, fmt.Sprint(v))
			}
		}
		if xe, ok := m["x-ms-enum"].(map[string]any); ok {
			if mas, ok := xe["modelAsString"].(bool); ok && !mas {
				f.closed = true
			}
		}
	}
	if ids, ok := m["x-ms-identifiers"].([]any); ok {
		f.hasIDs = true
		f.ids = []string{}
		for _, v := range ids {
			if s, ok := v.(string); ok {
				// Nested keys are written as JSON pointers ("/properties/name");
				// keep them in the package's dotted path syntax.
				f.ids = append(f.ids, strings.ReplaceAll(strings.TrimPrefix(s, "/"), "/", "."))
			}
		}
	}
	return f
}
