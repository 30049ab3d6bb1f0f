package printer

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// markdownValueWidth bounds a value in a table cell only to keep a PR
// comment under GitHub's 65536-character limit; the renderer wraps cells,
// so there is no line width to fit.
const markdownValueWidth = 1000

// printMarkdown writes GitHub-flavoured markdown for a pull-request comment
// or $GITHUB_STEP_SUMMARY: a heading, the counts as a table, one row per
// resource, then a collapsible section per resource with its changes.
func printMarkdown(w io.Writer, p *plan.Plan, opts Options) error {
	bw := bufio.NewWriter(w)
	out := func(format string, a ...any) { fmt.Fprintf(bw, format, a...) }
	showNoOp := opts.ShowNoOp || opts.Explain
	managed := managedNames(p)

	out("### kubectl azure plan\n\n")
	if h := Header(p, opts.Secrets); h != "" {
		out("%s\n\n", mdText(h))
	}
	actionable := 0
	for _, r := range p.Resources {
		if !isNoOp(r.Action) {
			actionable++
		}
	}
	if acc := acceptedLines(p, opts.Secrets); len(acc) > 0 {
		out("> [!NOTE]\n> %s\n", mdText(AcceptedHeading))
		for _, l := range acc {
			out("> - %s\n", mdText(l))
		}
		out("\n")
	}
	if actionable == 0 {
		out("**%s**\n\n", NoChangesMessage)
	} else {
		out("**%s**\n\n", summaryLine(p))
	}
	s := p.Summary
	out("| Create | Update | Replace | Delete | Adopt | Unchanged |\n")
	out("|---:|---:|---:|---:|---:|---:|\n")
	out("| %d | %d | %d | %d | %d | %d |\n\n", s.Create, s.Update, s.Replace, s.Delete, s.Adopt, s.NoOp)

	for _, warning := range p.Warnings {
		out("> [!WARNING]\n> %s\n\n", mdText(warning))
	}
	if len(p.Undeclared) > 0 {
		out("> [!NOTE]\n> %s\n", undeclaredNote(len(p.Undeclared))) // our own words: the backticks are markdown
		for _, id := range p.Undeclared {
			out("> - %s\n", mdCode(armid.Printable(DisplayName(id, ""))))
		}
		out("\n")
	}
	if len(p.Problems) > 0 {
		out("> [!WARNING]\n> **%d warning(s) about the manifests**\n\n", len(p.Problems))
		mdProblemTable(bw, p.Problems)
	}

	var shown []plan.Resource
	for _, r := range p.Resources {
		if isNoOp(r.Action) && !showNoOp {
			continue
		}
		shown = append(shown, r)
	}
	if len(shown) == 0 {
		return bw.Flush()
	}
	out("| | Action | Resource | Method | Changes |\n")
	out("|---|---|---|---|---:|\n")
	for _, r := range shown {
		out("| `%s` | %s | %s | %s | %d |\n", symbol(r.Action), actionName(r.Action),
			mdCode(armid.Printable(DisplayName(r.ID, r.Type))), string(r.Method), pathChanges(r))
	}
	out("\n")

	for _, r := range shown {
		if pathChanges(r) == 0 && r.Reason == "" && len(r.Cascade) == 0 && len(r.Review) == 0 && !(opts.Explain && len(r.Equal) > 0) {
			continue
		}
		out("<details><summary><code>%s %s</code> %s%s</summary>\n\n",
			htmlEscape(symbol(r.Action)), htmlEscape(armid.Printable(DisplayName(r.ID, r.Type))),
			htmlEscape(actionName(r.Action)), methodSuffix(r.Method))
		out("ID: %s\n\n", mdCode(armid.Printable(r.ID)))
		if r.Reason != "" {
			out("%s\n\n", mdText(r.Reason))
		}
		if len(r.Review) > 0 {
			out("Review:\n\n")
			for _, line := range reviewLines(r) {
				out("- %s\n", mdText(line))
			}
			out("\n")
		}
		if len(r.Cascade) > 0 {
			out("ARM deletes with it:\n\n")
			for _, c := range r.Cascade {
				out("- %s %s\n", mdCode(armid.Printable(cascadeName(c))), mdText(cascadeNote(c)))
			}
			out("\n")
		}
		if pathChanges(r) > 0 {
			out("| | Path | Before | After | Note |\n")
			out("|---|---|---|---|---|\n")
			for _, c := range r.Changes {
				if c.Path == "" {
					continue // whole-resource placeholder: the summary line says it
				}
				before, after := mdValue(c.Before, managed), mdValue(c.After, managed)
				if c.Sensitive {
					before, after = mdText(plan.SensitiveText), mdText(plan.SensitiveText)
				}
				switch c.Kind {
				case plan.KindAdd:
					before = ""
				case plan.KindRemove:
					after = "*(removed)*"
				}
				out("| `%s` | %s | %s | %s | %s |\n", changeSymbol(c.Kind), mdCode(c.Path), before, after,
					mdText(strings.Join(changeNotes(forAction(r.Action, c), opts.Explain), "; ")))
			}
			out("\n")
		}
		if opts.Explain && len(r.Equal) > 0 {
			out("Judged equal:\n\n| Path | Rule |\n|---|---|\n")
			for _, e := range r.Equal {
				out("| %s | %s |\n", mdCode(e.Path), mdText(e.Rule))
			}
			out("\n")
		}
		out("</details>\n\n")
	}
	return bw.Flush()
}

func actionName(a plan.Action) string {
	if a == "" {
		return string(plan.ActionNoOp)
	}
	return string(a)
}

func methodSuffix(m plan.Method) string {
	if m == plan.MethodNone {
		return ""
	}
	return " (" + htmlEscape(string(m)) + ")"
}

// changeNotes are the remarks shown next to a change in markdown.
func changeNotes(c plan.Change, explain bool) []string {
	n := causeNotes(c)
	if c.CreateOnly {
		n = append(n, "forces replacement")
	}
	if explain && c.Reason != "" {
		n = append(n, c.Reason+rulesTriedNote(c))
	}
	return n
}

// rulesTriedNote lists, on a first plan with --explain, the normalisation
// rule families that were tried and did not explain the difference.
func rulesTriedNote(c plan.Change) string {
	if len(c.RulesTried) == 0 {
		return ""
	}
	return "; rules tried: " + strings.Join(c.RulesTried, ", ")
}

// mdCode renders s as inline code that is safe inside a table cell: an HTML
// <code> element, because a backtick span cannot hold a '|' or a backtick.
func mdCode(s string) string {
	if s == "" {
		return ""
	}
	return "<code>" + htmlEscape(s) + "</code>"
}

// mdValue renders a plan value as compact JSON in a code cell, or a
// reference to a resource in the plan by its name.
func mdValue(v any, managed map[string]string) string {
	if name, ok := managedRef(v, managed); ok {
		return mdText(name)
	}
	return mdCode(truncate(compactJSON(v), markdownValueWidth))
}

// mdText escapes prose so it cannot open HTML, break a table or start
// markdown formatting.
func mdText(s string) string {
	s = htmlEscape(s)
	r := strings.NewReplacer("\n", " ", "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`)
	return r.Replace(s)
}

// htmlEscape escapes only what HTML and a table need, so the raw markdown of
// a JSON value stays readable (quotes are left alone) in a PR comment's source.
var htmlEscape = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "|", "&#124;").Replace

// pathChanges counts the changes that name a path (not the whole resource).
func pathChanges(r plan.Resource) int {
	n := 0
	for _, c := range r.Changes {
		if c.Path != "" {
			n++
		}
	}
	return n
}

// forAction adapts a change's notes to its resource's action: on a create
// nothing is replaced, so a create-only path is not marked "forces
// replacement".
func forAction(a plan.Action, c plan.Change) plan.Change {
	if a == plan.ActionCreate {
		c.CreateOnly = false
	}
	return c
}
