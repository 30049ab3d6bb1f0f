package printer

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// Problem is one error to report: a manifest problem (file, document, line,
// path) or a plain message (File empty, Document -1).
type Problem struct {
	File string `json:"file,omitempty"`
	// Document is the 0-based YAML document index in File, -1 for none.
	Document int `json:"document"`
	// Line is the 1-based line in File, 0 when unknown.
	Line    int    `json:"line,omitempty"`
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
}

// String is the one-line form: "FILE#DOC (line L): PATH: MESSAGE".
func (p Problem) String() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(p.File)
		if p.Document >= 0 {
			b.WriteString("#" + strconv.Itoa(p.Document))
		}
		if p.Line > 0 {
			b.WriteString(" (line " + strconv.Itoa(p.Line) + ")")
		}
		b.WriteString(": ")
	}
	if p.Path != "" {
		b.WriteString(p.Path + ": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// errorDoc is the machine-readable error document: what stdout carries in
// -o json|yaml when a command fails before it has anything else to print.
type errorDoc struct {
	Error    string    `json:"error"`
	Problems []Problem `json:"problems"`
}

// CleanText makes text safe to print: known secret values are scrubbed and
// control characters escaped line by line, so neither a credential nor a
// name crafted to move the cursor reaches a terminal or a log.
func CleanText(s string) string {
	s = secret.Scrub(s)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = armid.Printable(l)
	}
	return strings.Join(lines, "\n")
}

func cleanProblems(ps []Problem) []Problem {
	out := make([]Problem, len(ps))
	for i, p := range ps {
		p.File, p.Path, p.Message = CleanText(p.File), CleanText(p.Path), CleanText(p.Message)
		out[i] = p
	}
	return out
}

// PrintProblems writes a failure in opts.Output format, so a pipeline that
// parses stdout (jq, a PR comment) gets the error instead of nothing. Text
// goes as "error: …" lines (the CLI writes those to stderr).
func PrintProblems(w io.Writer, summary string, ps []Problem, opts Options) error {
	opts = opts.withDefaults()
	ps = cleanProblems(ps)
	summary = CleanText(summary)
	switch strings.ToLower(opts.Output) {
	case OutputJSON:
		return printJSON(w, errorDoc{Error: summary, Problems: ps})
	case OutputYAML:
		return printYAML(w, errorDoc{Error: summary, Problems: ps})
	case OutputMarkdown:
		return markdownProblems(w, summary, ps)
	default:
		bw := bufio.NewWriter(w)
		for _, p := range ps {
			fmt.Fprintln(bw, "error:", p.String())
		}
		return bw.Flush()
	}
}

func markdownProblems(w io.Writer, summary string, ps []Problem) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "### kubectl azure plan\n\n> [!CAUTION]\n> **%s**\n\n", mdText(summary))
	if len(ps) == 1 && ps[0].File == "" {
		return bw.Flush()
	}
	fmt.Fprintf(bw, "| File | Document | Line | Path | Problem |\n|---|---:|---:|---|---|\n")
	for _, p := range ps {
		doc, line := "", ""
		if p.Document >= 0 {
			doc = strconv.Itoa(p.Document)
		}
		if p.Line > 0 {
			line = strconv.Itoa(p.Line)
		}
		fmt.Fprintf(bw, "| %s | %s | %s | %s | %s |\n", mdCode(p.File), doc, line, mdCode(p.Path), mdText(p.Message))
	}
	fmt.Fprintln(bw)
	return bw.Flush()
}

// Annotations accepted by the CLI's --annotations flag.
const (
	AnnotationsNone   = "none"
	AnnotationsGitHub = "github"
)

// Annotate writes GitHub Actions workflow commands ("::error file=…,line=…::…")
// so the runner marks each problem on the pull request's diff.
func Annotate(w io.Writer, ps []Problem) error {
	bw := bufio.NewWriter(w)
	for _, p := range cleanProblems(ps) {
		var props []string
		if p.File != "" && p.File != "-" {
			props = append(props, "file="+ghProperty(p.File))
			if p.Line > 0 {
				props = append(props, "line="+strconv.Itoa(p.Line))
			}
		}
		msg := p.Message
		if p.Path != "" {
			msg = p.Path + ": " + msg
		}
		if p.File != "" && p.Document >= 0 {
			props = append(props, "title="+ghProperty(fmt.Sprintf("%s#%d", p.File, p.Document)))
		}
		cmd := "::error"
		if len(props) > 0 {
			cmd += " " + strings.Join(props, ",")
		}
		fmt.Fprintf(bw, "%s::%s\n", cmd, ghData(msg))
	}
	return bw.Flush()
}

// ghData escapes a workflow command's message as the runner expects.
var ghData = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace

// ghProperty escapes a workflow command property value.
var ghProperty = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace
