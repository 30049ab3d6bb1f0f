package manifest

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// Origin says where a resource came from: a file (or "-" for standard
// input, or the kustomization directory for -k) and the 0-based index of
// the YAML document in it. Documents that are empty or only comments are not
// counted.
type Origin struct {
	File  string
	Index int
}

// FromState is the origin of a resource built from its state record rather
// than read from a manifest (delete TYPE/NAME without -f).
var FromState = Origin{File: "state", Index: -1}

// String renders "file#index", the form every message and the plan use.
func (o Origin) String() string {
	if o.Index < 0 {
		return o.File
	}
	return fmt.Sprintf("%s#%d", o.File, o.Index)
}

// Severity grades a Problem.
type Severity string

const (
	// SeverityError fails the run: nothing is sent to Azure.
	SeverityError Severity = "error"
	// SeverityWarning is printed and the run goes on (--strict promotes
	// schema warnings to errors).
	SeverityWarning Severity = "warning"
)

// Problem is one finding about the input, with its position as fields so
// printers can render text, JSON, markdown or CI annotations.
type Problem struct {
	File string
	// Index is the document index in File, or -1 when the problem concerns
	// the whole file (unreadable, kustomize failure) or the whole run.
	Index int
	// Line is the 1-based line in File of the field at Path (or of the
	// document when the path is not found), 0 when unknown.
	Line int
	// Path is the field path in the document ("spec.body.properties.x"), or "".
	Path     string
	Message  string
	Severity Severity
}

// String renders "FILE#INDEX (line L): PATH: MESSAGE", leaving out what is
// unknown. Control characters in the message are escaped so a name cannot
// move the terminal.
func (p Problem) String() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(Origin{p.File, p.Index}.String())
		if p.Line > 0 {
			fmt.Fprintf(&b, " (line %d)", p.Line)
		}
		b.WriteString(": ")
	}
	if p.Path != "" {
		b.WriteString(armid.Printable(p.Path))
		b.WriteString(": ")
	}
	b.WriteString(armid.Printable(p.Message))
	return b.String()
}

// Annotation renders the problem as a GitHub Actions workflow command
// ("::error file=F,line=L::MESSAGE"), which CI shows on the line.
func (p Problem) Annotation() string {
	level := "error"
	if p.Severity == SeverityWarning {
		level = "warning"
	}
	var props []string
	if p.File != "" {
		props = append(props, "file="+escapeAnnotationProp(p.File))
		if p.Line > 0 {
			props = append(props, fmt.Sprintf("line=%d", p.Line))
		}
	}
	if p.Path != "" {
		props = append(props, "title="+escapeAnnotationProp(p.Path))
	}
	head := "::" + level
	if len(props) > 0 {
		head += " " + strings.Join(props, ",")
	}
	return head + "::" + escapeAnnotationData(armid.Printable(p.Message))
}

// The escapes GitHub's workflow-command parser undoes.
func escapeAnnotationData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeAnnotationProp(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(armid.Printable(s))
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
		if p.Severity == SeverityWarning {
			lines[i] = "warning: " + lines[i]
		}
	}
	return strings.Join(lines, "\n")
}

// problems collects problems during a load.
type problems struct {
	// secrets scrubs every message: the run's registry.
	secrets *secret.Registry
	list    []Problem
	seen    map[string]bool
	// texts holds, by file and document index, the text line tables are
	// built from; tables holds the tables built (or given).
	texts  map[string][]docText
	tables map[Origin]lineMap
}

// docLines finds the file lines of one document's fields. A path-to-line
// table for every document would weigh more than the resources themselves
// on large sets, so a document read from a file keeps only its text, and
// the table is built from it when a problem or warning first needs a line.
type docLines struct {
	table lineMap // given (a document that failed to decode)
	docText
}

// docText is a document's text and the file line of its first line (0:
// none recorded).
type docText struct {
	text  []byte
	first int
}

// setLines records where the fields of one document are.
func (ps *problems) setLines(o Origin, d docLines) {
	switch {
	case d.table != nil:
		if ps.tables == nil {
			ps.tables = map[Origin]lineMap{}
		}
		ps.tables[o] = d.table
	case d.first > 0 && o.Index >= 0:
		if ps.texts == nil {
			ps.texts = map[string][]docText{}
		}
		docs := ps.texts[o.File]
		if o.Index >= len(docs) {
			docs = append(docs, make([]docText, o.Index+1-len(docs))...)
		}
		docs[o.Index] = d.docText
		ps.texts[o.File] = docs
	}
}

// line returns the file line of path in the document o, 0 when unknown.
func (ps *problems) line(o Origin, path string) int {
	if t, ok := ps.tables[o]; ok {
		return t.lineOf(path)
	}
	docs := ps.texts[o.File]
	if o.Index < 0 || o.Index >= len(docs) || docs[o.Index].first == 0 {
		return 0
	}
	// The text decoded once already, so it decodes again.
	d := docs[o.Index]
	_, t, _ := decodeYAML(d.text, d.first, nil, true)
	if t == nil {
		t = lineMap{}
	}
	docs[o.Index] = docText{}
	ps.setLines(o, docLines{table: t})
	return t.lineOf(path)
}

func (ps *problems) add(o Origin, path, format string, args ...any) {
	p := Problem{File: o.File, Index: o.Index, Line: ps.line(o, path), Path: path, Message: ps.secrets.Scrub(fmt.Sprintf(format, args...)), Severity: SeverityError}
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

// ErrNoResources is wrapped by the error Load returns when nothing was
// loaded: no manifests in the paths, or -l selected none. The CLI treats
// it as invalid input (exit 2) for diff, apply and delete.
var ErrNoResources = errors.New("no resources loaded")

// EmptySetError says which inputs produced no resources.
type EmptySetError struct {
	// Paths are the -f arguments (or the -k directory) as given.
	Paths []string
	// Selector is the -l selector when it filtered everything out.
	Selector string
}

func (e *EmptySetError) Error() string {
	msg := "no resources loaded from " + strings.Join(e.Paths, ", ")
	if e.Selector != "" {
		msg += fmt.Sprintf(" (the selector -l %s matched none)", e.Selector)
	} else {
		msg += "; check the paths (-f, -R for subdirectories, -k) hold Resource manifests"
	}
	return msg
}

// Unwrap makes errors.Is(err, ErrNoResources) true.
func (e *EmptySetError) Unwrap() error { return ErrNoResources }
