package printer

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// Operations accepted by Options.Operation: the word the outcome uses.
const (
	OperationApply  = "Apply"
	OperationDelete = "Delete"
)

// PrintResult writes an apply result. JSON and YAML print the one result
// document; text and markdown print the outcome lines.
func PrintResult(w io.Writer, r plan.Result, opts Options) error {
	opts = opts.withDefaults()
	if r.Plan == nil {
		r.Plan = &plan.Plan{}
	}
	r.Plan = sanitize(r.Plan, opts)
	results := make([]plan.ResourceResult, len(r.Results))
	for i, rr := range r.Results {
		rr.Error = CleanText(opts.Secrets, rr.Error)
		notes := make([]string, len(rr.Notes))
		for j, n := range rr.Notes {
			notes[j] = CleanText(opts.Secrets, n)
		}
		if len(notes) > 0 {
			rr.Notes = notes
		}
		results[i] = rr
	}
	r.Results = results
	summarizeResult(&r)
	switch opts.Output {
	case OutputJSON:
		return printJSON(w, r)
	case OutputYAML:
		return printYAML(w, r)
	case OutputName:
		bw := bufio.NewWriter(w)
		for _, rr := range r.Results {
			if rr.Action != plan.ActionNoOp {
				fmt.Fprintf(bw, "%s %s\n", DisplayName(rr.ID, ""), rr.Status)
			}
		}
		return bw.Flush()
	case OutputMarkdown:
		return markdownResult(w, r, opts)
	default:
		bw := bufio.NewWriter(w)
		for _, rr := range r.Results {
			for _, n := range rr.Notes {
				fmt.Fprintf(bw, "note: %s: %s\n", DisplayName(rr.ID, ""), n)
			}
		}
		return bw.Flush()
	}
}

// SplitOrigin splits a plan origin "file#doc" into file and document index
// (-1 when absent).
func SplitOrigin(origin string) (string, int) {
	i := strings.LastIndex(origin, "#")
	if i < 0 {
		return origin, -1
	}
	n, err := strconv.Atoi(origin[i+1:])
	if err != nil {
		return origin, -1
	}
	return origin[:i], n
}

// ManifestResource is one resource as loaded from the manifests, for
// apply --dry-run=client, which sends nothing.
type ManifestResource struct {
	ID         string `json:"id"`
	Type       string `json:"type"`
	APIVersion string `json:"apiVersion"`
	Name       string `json:"name,omitempty"`
	Origin     string `json:"origin,omitempty"`
}

// PrintManifests lists validated manifest resources: -o name prints
// TYPE/NAME per line, json and yaml a {"resources": […]} document, text a
// line per resource and a count.
func PrintManifests(w io.Writer, rs []ManifestResource, opts Options) error {
	opts = opts.withDefaults()
	for i := range rs {
		rs[i].ID, rs[i].Name, rs[i].Origin = CleanText(opts.Secrets, rs[i].ID), CleanText(opts.Secrets, rs[i].Name), CleanText(opts.Secrets, rs[i].Origin)
	}
	doc := struct {
		Resources []ManifestResource `json:"resources"`
	}{Resources: append([]ManifestResource{}, rs...)}
	switch opts.Output {
	case OutputJSON:
		return printJSON(w, doc)
	case OutputYAML:
		return printYAML(w, doc)
	}
	bw := bufio.NewWriter(w)
	for _, r := range rs {
		if opts.Output == OutputName {
			fmt.Fprintln(bw, DisplayName(r.ID, r.Type))
			continue
		}
		fmt.Fprintf(bw, "%s (%s, %s): valid\n", DisplayName(r.ID, r.Type), r.APIVersion, r.Origin)
	}
	if opts.Output != OutputName {
		fmt.Fprintf(bw, "%d resource(s) valid; nothing was sent to Azure (client dry run).\n", len(rs))
	}
	return bw.Flush()
}

// summarizeResult recomputes the counts, so they always agree with the list.
func summarizeResult(r *plan.Result) {
	var s plan.ResultSummary
	for _, rr := range r.Results {
		switch rr.Status {
		case plan.StatusFailed:
			s.Failed++
		case plan.StatusSkipped:
			s.Skipped++
		default:
			s.Done++
		}
	}
	r.Summary = s
}

// markdownResult appends the outcome to a markdown plan: the summary line,
// then a row per resource that did not simply succeed or carries a note.
func markdownResult(w io.Writer, r plan.Result, opts Options) error {
	if len(r.Results) == 0 {
		return nil
	}
	bw := bufio.NewWriter(w)
	o := Outcome{Operation: opts.Operation}
	for _, rr := range r.Results {
		o.Resources = append(o.Resources, ResourceOutcome{ID: rr.ID, Status: rr.Status})
	}
	fmt.Fprintf(bw, "#### Result\n\n**%s**\n\n", mdText(o.SummaryLine()))
	var rows []string
	for _, rr := range r.Results {
		detail := append([]string{}, rr.Notes...)
		if rr.Error != "" {
			detail = append([]string{rr.Error}, detail...)
		}
		if rr.Status == plan.StatusDone && len(detail) == 0 {
			continue
		}
		rows = append(rows, fmt.Sprintf("| %s | %s | %s |", rr.Status, mdCode(armid.Printable(DisplayName(rr.ID, ""))), mdText(strings.Join(detail, "; "))))
	}
	if len(rows) > 0 {
		fmt.Fprintf(bw, "| Status | Resource | Detail |\n|---|---|---|\n%s\n\n", strings.Join(rows, "\n"))
	}
	return bw.Flush()
}
