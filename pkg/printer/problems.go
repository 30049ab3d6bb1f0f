package printer

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"github.com/kubectl-azure/kubectl-azure/pkg/secret"
)

// Problem is one finding to report: a manifest problem (file, document,
// line, path) or a plain message (File empty, Document -1), with its
// severity. It is the plan's type, so a plan carries its warnings.
type Problem = plan.Problem

// errorDoc is the machine-readable error document: what stdout carries in
// -o json|yaml when a command fails before it has anything else to print.
type errorDoc struct {
	Error    string    `json:"error"`
	Problems []Problem `json:"problems"`
}

// CleanText makes text safe to print: the values of secrets (the run's
// registry) are scrubbed and
// control characters escaped line by line, so neither a credential nor a
// name crafted to move the cursor reaches a terminal or a log. A line that
// would start with "::" is joined to the one before it by an escaped
// newline (\u000a): under GitHub Actions such a line is a workflow command,
// and a file or resource name must never be able to issue one.
func CleanText(secrets *secret.Registry, s string) string {
	s = secrets.Scrub(s)
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for i, l := range lines {
		l = armid.Printable(l)
		if i > 0 && isCommandLine(l) {
			out[len(out)-1] += `\u000a` + l
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// isCommandLine reports whether the GitHub Actions runner would read l as
// a workflow command: it trims leading blanks, then looks for "::".
func isCommandLine(l string) bool {
	return strings.HasPrefix(strings.TrimLeft(l, " \t"), "::")
}

// CleanLine is CleanText for what must stay on one line (a file name, a
// path): a newline in it is escaped like any other control character.
func CleanLine(secrets *secret.Registry, s string) string {
	return armid.Printable(secrets.Scrub(s))
}

// severity is p's severity, error when unset.
func severity(p Problem) string {
	if p.Severity == plan.SeverityWarning {
		return plan.SeverityWarning
	}
	return plan.SeverityError
}

func cleanProblems(secrets *secret.Registry, ps []Problem) []Problem {
	out := make([]Problem, len(ps))
	for i, p := range ps {
		p.File, p.Path, p.Message = CleanLine(secrets, p.File), CleanLine(secrets, p.Path), CleanText(secrets, p.Message)
		p.Severity = severity(p)
		out[i] = p
	}
	return out
}

// ProblemLines writes each problem as one "error: …" or "warning: …" line,
// the form the CLI prints on stderr whatever -o says. A message of several
// lines keeps them, indented under the first. secrets is the
// run's registry.
func ProblemLines(w io.Writer, secrets *secret.Registry, ps []Problem) error {
	bw := bufio.NewWriter(w)
	for _, p := range cleanProblems(secrets, ps) {
		fmt.Fprintf(bw, "%s: %s\n", p.Severity, strings.ReplaceAll(p.String(), "\n", "\n  "))
	}
	return bw.Flush()
}

// PrintProblems writes a failure in opts.Output format, so a pipeline that
// parses stdout (jq, a PR comment) gets the error instead of nothing. Text
// goes as "error: …" lines (the CLI writes those to stderr).
func PrintProblems(w io.Writer, summary string, ps []Problem, opts Options) error {
	opts = opts.withDefaults()
	ps = cleanProblems(opts.Secrets, ps)
	summary = CleanText(opts.Secrets, summary)
	switch strings.ToLower(opts.Output) {
	case OutputJSON:
		return printJSON(w, errorDoc{Error: summary, Problems: ps})
	case OutputYAML:
		return printYAML(w, errorDoc{Error: summary, Problems: ps})
	case OutputMarkdown:
		return markdownProblems(w, summary, ps)
	default:
		return ProblemLines(w, opts.Secrets, ps)
	}
}

func markdownProblems(w io.Writer, summary string, ps []Problem) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "### kubectl azure plan\n\n> [!CAUTION]\n> **%s**\n\n", mdText(summary))
	if len(ps) == 1 && ps[0].File == "" {
		return bw.Flush()
	}
	mdProblemTable(bw, ps)
	return bw.Flush()
}

// mdProblemTable writes cleaned problems as a markdown table.
func mdProblemTable(w io.Writer, ps []Problem) {
	fmt.Fprintf(w, "| Severity | File | Document | Line | Path | Problem |\n|---|---|---:|---:|---|---|\n")
	for _, p := range ps {
		doc, line := "", ""
		if p.Document >= 0 {
			doc = strconv.Itoa(p.Document)
		}
		if p.Line > 0 {
			line = strconv.Itoa(p.Line)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", p.Severity, mdCode(p.File), doc, line, mdCode(p.Path), mdText(p.Message))
	}
	fmt.Fprintln(w)
}

// Annotations accepted by the CLI's --annotations flag.
const (
	AnnotationsNone   = "none"
	AnnotationsGitHub = "github"
)

// Annotate writes GitHub Actions workflow commands ("::error file=…,line=…::…",
// "::warning …" for warnings) so the runner marks each problem on the pull
// request's diff. secrets is the run's registry.
func Annotate(w io.Writer, secrets *secret.Registry, ps []Problem) error {
	bw := bufio.NewWriter(w)
	for _, p := range cleanProblems(secrets, ps) {
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
		cmd := "::" + p.Severity
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
