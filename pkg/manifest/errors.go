package manifest

import (
	"fmt"
	"sort"
	"strings"
)

// Origin says where a resource came from: a file (or "-" for standard
// input, or the kustomization directory for -k) and the 0-based index of
// the YAML document in it. Documents that are empty or only comments are not
// counted.
type Origin struct {
	File  string
	Index int
}

// String renders "file#index", the form every message and the plan use.
func (o Origin) String() string {
	if o.Index < 0 {
		return o.File
	}
	return fmt.Sprintf("%s#%d", o.File, o.Index)
}

// Problem is one validation failure.
type Problem struct {
	File string
	// Index is the document index in File, or -1 when the problem concerns
	// the whole file (unreadable, kustomize failure) or the whole run.
	Index int
	// Path is the field path in the document ("spec.body.properties.x"), or "".
	Path    string
	Message string
}

func (p Problem) String() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(Origin{p.File, p.Index}.String())
		b.WriteString(": ")
	}
	if p.Path != "" {
		b.WriteString(p.Path)
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// ValidationError lists every problem found in one run, so the user can fix
// them all at once. Nothing may be sent to Azure when Load returns it.
type ValidationError struct {
	Problems []Problem
}

// Error prints one problem per line: "FILE#INDEX: PATH: MESSAGE".
func (e *ValidationError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// problems collects problems during a load.
type problems struct {
	list []Problem
	seen map[string]bool
}

func (ps *problems) add(o Origin, path, format string, args ...any) {
	p := Problem{File: o.File, Index: o.Index, Path: path, Message: fmt.Sprintf(format, args...)}
	key := p.String()
	if ps.seen == nil {
		ps.seen = map[string]bool{}
	}
	if ps.seen[key] {
		return
	}
	ps.seen[key] = true
	ps.list = append(ps.list, p)
}

// err returns the ValidationError, problems ordered by file, document and
// discovery order, or nil when there are none.
func (ps *problems) err(fileOrder map[string]int) error {
	if len(ps.list) == 0 {
		return nil
	}
	out := append([]Problem(nil), ps.list...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.File != b.File {
			oa, okA := fileOrder[a.File]
			ob, okB := fileOrder[b.File]
			if okA && okB {
				return oa < ob
			}
			if okA != okB {
				return okA // problems without a known file go last
			}
			return a.File < b.File
		}
		return a.Index < b.Index
	})
	return &ValidationError{Problems: out}
}
