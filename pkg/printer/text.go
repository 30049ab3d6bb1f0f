package printer

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/kubectl-azure/kubectl-azure/pkg/armid"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
)

// Layout of the text plan. Symbols are right-aligned in a 3-cell column
// ("  +", "-/+", " <=") so resource names line up whatever the action.
const (
	symbolWidth  = 3
	changeIndent = "      "
	arrow        = " → "
	// minValueWidth is the least room a wrapped text gets on a narrow
	// terminal, however deep its indent.
	minValueWidth = 16
	// inlineNestedWidth is the widest an added or removed object or array
	// is shown on one line as JSON; a wider one is shown as a tree.
	inlineNestedWidth = 60
)

func printText(w io.Writer, p *plan.Plan, opts Options) error {
	bw := bufio.NewWriter(w)
	t := textPrinter{w: bw, st: newStyles(w, opts.useColor(w)), width: opts.width(w), opts: opts}
	t.plan(p)
	return bw.Flush()
}

type textPrinter struct {
	w     io.Writer
	st    styles
	width int
	opts  Options
	// managed maps the ID key of every resource in the plan to its name,
	// so a reference prints as "nsg-app (managed)" instead of a long ID.
	managed map[string]string
}

func (t *textPrinter) line(parts ...string) {
	fmt.Fprintln(t.w, strings.Join(parts, ""))
}

// wrapped prints lead followed by body, word-wrapped to the width with
// continuation lines indented by hang. It is for text that must never be cut
// (names, reasons, warnings): cutting would hide what a reviewer needs.
// style is applied to each output line on its own, so no escape sequence
// spans a newline (CI log viewers reset styles at every line).
func (t *textPrinter) wrapped(lead, hang, body string, style func(string) string) {
	if ansi.StringWidth(lead)+ansi.StringWidth(body) <= t.width {
		t.line(lead, style(body))
		return
	}
	limit := max(t.width-max(ansi.StringWidth(lead), ansi.StringWidth(hang)), minValueWidth)
	for i, l := range wordWrap(body, limit) {
		if i == 0 {
			t.line(lead, style(l))
		} else {
			t.line(hang, style(l))
		}
	}
}

// wordWrap breaks s at spaces into lines of at most limit cells. Only a word
// longer than a whole line is cut. Unlike ansi.Wrap it never breaks at a
// hyphen, which would split flags such as --allow-replace. Escape codes
// contain no spaces, so splitting on spaces keeps them intact.
func wordWrap(s string, limit int) []string {
	var lines []string
	var cur strings.Builder
	curWidth := 0
	flush := func() {
		lines = append(lines, cur.String())
		cur.Reset()
		curWidth = 0
	}
	for _, word := range strings.Split(s, " ") {
		w := ansi.StringWidth(word)
		if curWidth > 0 && curWidth+1+w > limit {
			flush()
		}
		for w > limit { // a single overlong word: cut it into lines
			if curWidth > 0 {
				flush()
			}
			// After a slash when there is one: a resource name is not split.
			head := ansi.Truncate(word, limit, "")
			rest := ansi.TruncateLeft(word, limit, "")
			if i := strings.LastIndex(head, "/"); i > 0 && !strings.Contains(word, "\x1b") {
				head, rest = word[:i+1], word[i+1:]
			}
			lines = append(lines, head)
			word = rest
			w = ansi.StringWidth(word)
		}
		if curWidth > 0 {
			cur.WriteByte(' ')
			curWidth++
		}
		cur.WriteString(word)
		curWidth += w
	}
	if curWidth > 0 || len(lines) == 0 {
		flush()
	}
	return lines
}

func (t *textPrinter) plan(p *plan.Plan) {
	t.managed = managedNames(p)
	// One item per line, each wrapped on its own.
	if parts := headerParts(p, t.opts.Secrets); len(parts) > 0 {
		for _, h := range parts {
			t.wrapped("", "  ", h, t.st.faint)
		}
		t.line()
	}
	showNoOp := t.opts.ShowNoOp || t.opts.Explain
	actionable := 0
	for _, r := range p.Resources {
		if !isNoOp(r.Action) {
			actionable++
		}
	}
	shown := 0
	for _, r := range p.Resources {
		if isNoOp(r.Action) && !showNoOp {
			continue
		}
		if shown > 0 {
			t.line()
		}
		shown++
		t.resource(r)
	}
	if shown > 0 {
		t.line()
	}
	if len(p.Undeclared) > 0 {
		t.wrapped(t.st.warn("Note:")+" ", "  ", undeclaredNote(len(p.Undeclared)), identity)
		for _, id := range p.Undeclared {
			name := armid.Printable(DisplayName(id, ""))
			if rg := resourceGroup(id); rg != "" {
				// Styled word by word: the line may be wrapped at any space.
				name += " " + t.st.faint("in") + " " + t.st.faint(armid.Printable(rg))
			}
			t.wrapped("  - ", "      ", name, identity)
		}
		t.line()
	}
	for _, warning := range p.Warnings {
		t.wrapped(t.st.warn("Warning:")+" ", "  ", warning, identity)
	}
	if len(p.Warnings) > 0 {
		t.line()
	}
	if acc := acceptedLines(p, t.opts.Secrets); len(acc) > 0 {
		t.wrapped(t.st.warn("Accepted:")+" ", "  ", AcceptedHeading, identity)
		for _, l := range acc {
			t.wrapped("  - ", "      ", l, identity)
		}
		t.line()
	}
	if actionable == 0 {
		t.line(t.st.ok(NoChangesMessage))
		return
	}
	t.wrapped("", "  ", summaryLine(p), t.st.bold)
}

func (t *textPrinter) resource(r plan.Resource) {
	color := t.st.action(r.Action)
	sym := fmt.Sprintf("%*s", symbolWidth, symbol(r.Action))
	head := []string{color(armid.Printable(DisplayName(r.ID, r.Type)))}
	if r.Method != plan.MethodNone {
		head = append(head, " ", t.st.faint("("+string(r.Method)+")"))
	}
	if rg := resourceGroup(r.ID); rg != "" && !strings.EqualFold(r.Type, "Microsoft.Resources/resourceGroups") {
		// Styled word by word: the head may be wrapped at any space.
		head = append(head, " ", t.st.faint("in"), " ", t.st.faint(armid.Printable(rg)))
	}
	if isNoOp(r.Action) {
		head = append(head, " ", t.st.faint("(no"), " ", t.st.faint("changes)"))
	}
	t.wrapped(color(sym)+" ", changeIndent, strings.Join(head, ""), identity)
	if r.Reason != "" {
		t.wrapped(changeIndent, changeIndent+"  ", "# "+r.Reason, t.st.faint)
	}
	if r.Protected {
		t.wrapped(changeIndent, changeIndent+"  ", "# protected (azure.kubectl.io/prevent-destroy)", t.st.faint)
	}
	for _, line := range reviewLines(r) {
		t.wrapped(changeIndent, changeIndent+"  ", "# review "+line, identity)
	}
	for _, c := range r.Cascade {
		t.wrapped(changeIndent+t.st.action(plan.ActionDelete)("- "), changeIndent+"    ",
			armid.Printable(cascadeName(c))+" "+cascadeNote(c), identity)
	}
	for _, c := range r.Changes {
		if c.Path == "" {
			// A whole-resource create or delete: the resource line and its
			// reason already say it, and the value is only a placeholder.
			continue
		}
		t.change(forAction(r.Action, c))
	}
	if t.opts.Explain {
		for _, e := range r.Equal {
			t.line(changeIndent, t.st.noop("= "), e.Path, t.st.faint("  equal: "+e.Rule))
		}
	}
}

// change prints one path. Values are compact JSON, never cut: a line too
// long for the width puts each value on lines of its own, and an added or
// removed object is printed as a tree, one field per line.
func (t *textPrinter) change(c plan.Change) {
	var notes []string
	var styledNotes []string
	// Styled word by word: the notes may be wrapped at any space.
	note := func(s string, style func(string) string) {
		notes = append(notes, s)
		words := strings.Split(s, " ")
		for i, w := range words {
			words[i] = style(w)
		}
		styledNotes = append(styledNotes, strings.Join(words, " "))
	}
	for _, n := range causeNotes(c) {
		style := t.st.faint
		switch {
		case isDrift(c):
			style = t.st.drift
		case c.Kind == plan.KindRemove:
			style = t.st.delete
		}
		note("("+n+")", style)
	}
	// One comment at the end: the replacement warning first, because it is
	// what a reviewer must not miss, then (with --explain) the engine's reason.
	switch {
	case c.CreateOnly && t.opts.Explain && c.Reason != "":
		note("# forces replacement", t.st.danger)
		notes[len(notes)-1] += "; " + c.Reason
		styledNotes[len(styledNotes)-1] += t.st.faint("; " + c.Reason)
	case c.CreateOnly:
		note("# forces replacement", t.st.danger)
	case t.opts.Explain && c.Reason != "":
		note("# "+c.Reason+rulesTriedNote(c), t.st.faint)
	}
	suffix := ""
	styledSuffix := ""
	if len(notes) > 0 {
		suffix = "  " + strings.Join(notes, " ")
		styledSuffix = "  " + strings.Join(styledNotes, " ")
	}
	sym := changeSymbol(c.Kind)
	path := c.Path
	lead := changeIndent + t.st.kind(c.Kind)(sym) + " "
	hang := changeIndent + "    "
	prefixWidth := ansi.StringWidth(changeIndent + sym + " " + path + ": ")
	avail := t.width - prefixWidth - ansi.StringWidth(suffix)

	if c.Sensitive {
		// Never format the values: they hold the secret.
		t.line(lead, path, ": ", t.st.faint(plan.SensitiveText), styledSuffix)
		return
	}
	var before, after string
	switch c.Kind {
	case plan.KindAdd, plan.KindRemove:
		v := c.After
		if c.Kind == plan.KindRemove {
			v = c.Before
		}
		shown := t.show(v)
		if isNested(v) && ansi.StringWidth(shown) > min(avail, inlineNestedWidth) {
			// An added or removed item (an NSG rule, a subnet) is what a
			// reviewer must read in full: one field per line, never cut.
			t.wrapped(lead, hang, path+":"+styledSuffix, identity)
			t.tree(hang, v)
			return
		}
		if c.Kind == plan.KindAdd {
			after = shown
		} else {
			before = shown
		}
	default:
		before, after = t.show(c.Before), t.show(c.After)
	}
	one := before + after
	if before != "" && after != "" {
		one = before + arrow + after
	}
	if ansi.StringWidth(one) <= avail {
		styled := before + after
		if before != "" && after != "" {
			styled = before + t.st.faint(arrow) + after
		}
		t.line(lead, path, ": ", styled, styledSuffix)
		return
	}
	// Too long for one line: path and notes, then the values whole below,
	// both on one line when they fit, else each on lines of its own.
	t.wrapped(lead, hang, path+":"+styledSuffix, identity)
	if before != "" && after != "" && ansi.StringWidth(hang+one) <= t.width {
		t.line(hang, before, t.st.faint(arrow), after)
		return
	}
	if before != "" {
		t.value(hang, hang, before)
	}
	if after != "" {
		if before != "" {
			t.value(hang+t.st.faint("→")+" ", hang+"  ", after)
		} else {
			t.value(hang, hang, after)
		}
	}
}

// value prints a rendered value after lead, whole: wider than the line, it
// continues on lines indented by hang, broken after a space, comma or
// slash where there is one (JSON and ARM IDs have them), so no word, number
// or name segment is split unless it is longer than a line.
func (t *textPrinter) value(lead, hang, v string) {
	limit := max(t.width-max(ansi.StringWidth(lead), ansi.StringWidth(hang)), minValueWidth)
	for i, l := range valueWrap(v, limit) {
		if i == 0 {
			t.line(lead, l)
		} else {
			t.line(hang, l)
		}
	}
}

// valueWrap cuts s into lines of at most limit cells, each ending after a
// space, ',' or '/' when the line holds one, else at the limit.
func valueWrap(s string, limit int) []string {
	var lines []string
	for ansi.StringWidth(s) > limit {
		head := ansi.Truncate(s, limit, "")
		cut := strings.LastIndexAny(head, " ,/") + 1
		if cut <= 0 {
			cut = len(head)
		}
		lines = append(lines, s[:cut])
		s = s[cut:]
	}
	return append(lines, s)
}

// show renders one value: a reference to a resource in the plan by its
// name, anything else as compact JSON.
func (t *textPrinter) show(v any) string {
	if name, ok := managedRef(v, t.managed); ok {
		return name
	}
	return compactJSON(v)
}

// tree prints a nested value as indented "key: value" lines, objects with
// their keys sorted (as JSON encodes them), array items marked with "- ".
func (t *textPrinter) tree(indent string, v any) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			child := x[k]
			key := armid.Printable(k) + ":"
			if isNested(child) {
				t.line(indent, key)
				t.tree(indent+"  ", child)
				continue
			}
			t.value(indent+key+" ", indent+"  ", t.show(child))
		}
	case []any:
		for _, item := range x {
			if isNested(item) {
				t.line(indent, "-")
				t.tree(indent+"  ", item)
				continue
			}
			t.value(indent+"- ", indent+"  ", t.show(item))
		}
	}
}
