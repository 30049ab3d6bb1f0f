package printer

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"bytes"
	"github.com/kubectl-azure/kubectl-azure/pkg/plan"
	"testing"
)

func TestPrintGolden(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	cases := []struct {
		golden string
		opts   Options
	}{
		{"plan.txt", Options{Output: OutputText, Color: ColorNever, Width: 100}},
		{"plan-color.txt", Options{Output: OutputText, Color: ColorAlways, Width: 100}},
		{"plan-narrow.txt", Options{Output: OutputText, Color: ColorNever, Width: 60}},
		{"plan-explain.txt", Options{Output: OutputText, Color: ColorNever, Width: 100, Explain: true}},
		{"plan.json", Options{Output: OutputJSON}},
		{"plan.yaml", Options{Output: OutputYAML}},
		{"plan.md", Options{Output: OutputMarkdown}},
		{"plan-explain.md", Options{Output: OutputMarkdown, Explain: true}},
		{"plan-name.txt", Options{Output: OutputName}},
	}
	for _, tc := range cases {
		t.Run(tc.golden, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Print(&buf, samplePlan(), tc.opts); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.golden, buf.Bytes())
		})
	}
}

var allOptions = []Options{
	{Output: OutputText, Color: ColorNever},
	{Output: OutputText, Color: ColorAlways},
	{Output: OutputText, Color: ColorAlways, Explain: true, Width: 40},
	{Output: OutputJSON},
	{Output: OutputYAML},
	{Output: OutputMarkdown},
	{Output: OutputMarkdown, Explain: true},
}

func TestSecretsNeverPrinted(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	for _, opts := range allOptions {
		p := samplePlan()
		// Also a secret being added and one being removed, and one hidden in a nested value.
		p.Resources[2].Changes = append(p.Resources[2].Changes,
			plan.Change{Path: "properties.API_KEY", After: map[string]any{"k": secretValue}, Kind: plan.KindAdd, Sensitive: true},
			plan.Change{Path: "properties.OLD_KEY", Before: []any{secretValue}, Kind: plan.KindRemove, Sensitive: true},
		)
		var buf bytes.Buffer
		if err := Print(&buf, p, opts); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if strings.Contains(out, "hunter2") {
			t.Errorf("%s (explain=%v) leaked the secret:\n%s", opts.Output, opts.Explain, out)
		}
		if !strings.Contains(out, plan.SensitiveText) {
			t.Errorf("%s: sensitive change not shown as %s", opts.Output, plan.SensitiveText)
		}
		// The caller's plan must not be modified by printing.
		if p.Resources[2].Changes[0].After != secretValue {
			t.Fatalf("Print modified the caller's plan")
		}
	}
}

func TestNoEscapeCodes(t *testing.T) {
	check := func(t *testing.T, opts Options) {
		t.Helper()
		for _, o := range []string{OutputText, OutputMarkdown, OutputJSON, OutputYAML} {
			opts.Output = o
			for _, explain := range []bool{false, true} {
				opts.Explain = explain
				var buf bytes.Buffer
				if err := Print(&buf, samplePlan(), opts); err != nil {
					t.Fatal(err)
				}
				if bytes.ContainsRune(buf.Bytes(), 0x1b) {
					t.Errorf("%s with %+v contains an escape code:\n%q", o, opts, buf.String())
				}
			}
		}
		var buf bytes.Buffer
		opts.Live = LiveNever
		pr := NewProgress(&buf, opts)
		pr.Event("/x/providers/A.B/c/d", "", plan.StatusWriting, "PUT")
		pr.Event("/x/providers/A.B/c/d", "", plan.StatusFailed, "boom")
		pr.Close()
		if bytes.ContainsRune(buf.Bytes(), 0x1b) {
			t.Errorf("progress with %+v contains an escape code:\n%q", opts, buf.String())
		}
	}
	t.Run("color never", func(t *testing.T) {
		t.Setenv("NO_COLOR", "")
		check(t, Options{Color: ColorNever})
	})
	t.Run("NO_COLOR with color always", func(t *testing.T) {
		t.Setenv("NO_COLOR", "1")
		check(t, Options{Color: ColorAlways})
	})
	t.Run("auto on a non-terminal", func(t *testing.T) {
		t.Setenv("NO_COLOR", "")
		check(t, Options{Color: ColorAuto})
	})
}

// The colour golden must really carry colour, or the test above proves nothing.
func TestColorAlwaysColors(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	var buf bytes.Buffer
	if err := Print(&buf, samplePlan(), Options{Color: ColorAlways}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "\x1b[32m") {
		t.Errorf("no green escape in forced-colour output:\n%q", buf.String())
	}
}

func TestTextFitsWidth(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	for _, width := range []int{60, 80, 100, 140} {
		for _, color := range []string{ColorNever, ColorAlways} {
			var buf bytes.Buffer
			if err := Print(&buf, samplePlan(), Options{Color: color, Width: width}); err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(buf.String(), "\n") {
				if w := ansi.StringWidth(line); w > width {
					t.Errorf("width %d colour %s: line is %d cells: %q", width, color, w, line)
				}
				// A style left open across a newline bleeds into the next
				// line in viewers that do not reset per line.
				if i := strings.LastIndex(line, "\x1b["); i >= 0 && !strings.HasPrefix(line[i:], "\x1b[0m") {
					t.Errorf("width %d: style left open at end of line: %q", width, line)
				}
			}
		}
	}
}

func TestNoChanges(t *testing.T) {
	p := &plan.Plan{Resources: []plan.Resource{{
		ID: sub + "/resourceGroups/rg", Type: "Microsoft.Resources/resourceGroups", Action: plan.ActionNoOp,
		Equal: []plan.Equal{{Path: "location", Rule: "location"}},
	}}}
	var buf bytes.Buffer
	if err := Print(&buf, p, Options{Color: ColorNever}); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != NoChangesMessage+"\n" {
		t.Errorf("got %q, want only the no-changes line", got)
	}
	buf.Reset()
	if err := Print(&buf, p, Options{Color: ColorNever, ShowNoOp: true}); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); !strings.Contains(got, "= Microsoft.Resources/resourceGroups/rg") || strings.Contains(got, "equal:") {
		t.Errorf("ShowNoOp: want the no-op resource without explanations, got:\n%s", got)
	}
	buf.Reset()
	if err := Print(&buf, p, Options{Color: ColorNever, Explain: true}); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); !strings.Contains(got, "= location  equal: location") {
		t.Errorf("Explain: want the equal path and its rule, got:\n%s", got)
	}
}

func TestJSONContract(t *testing.T) {
	p := samplePlan()
	p.Resources[6].Changes = nil // no-op with nil changes must still print []
	p.Summary = plan.Summary{Create: 99}
	var buf bytes.Buffer
	if err := Print(&buf, p, Options{Output: OutputJSON}); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Resources []map[string]json.RawMessage `json:"resources"`
		Summary   map[string]int               `json:"summary"`
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	for _, r := range got.Resources {
		for _, k := range []string{"id", "type", "apiVersion", "action", "changes"} {
			if _, ok := r[k]; !ok {
				t.Errorf("resource %s lacks %q", r["id"], k)
			}
		}
		if string(r["changes"]) == "null" {
			t.Errorf("resource %s has changes: null, want []", r["id"])
		}
	}
	want := map[string]int{"create": 2, "update": 2, "replace": 1, "delete": 1, "noop": 1, "adopt": 1}
	for k, v := range want {
		if got.Summary[k] != v {
			t.Errorf("summary.%s = %d, want %d (recomputed from resources)", k, got.Summary[k], v)
		}
	}

	buf.Reset()
	if err := Print(&buf, &plan.Plan{}, Options{Output: OutputJSON}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"resources": []`) {
		t.Errorf("empty plan: want \"resources\": [], got %s", buf.String())
	}
}

func TestValidate(t *testing.T) {
	if err := Print(io.Discard, samplePlan(), Options{Output: "xml"}); err == nil {
		t.Error("unknown output accepted")
	}
	if err := Print(io.Discard, samplePlan(), Options{Color: "sometimes"}); err == nil {
		t.Error("unknown colour mode accepted")
	}
	if err := DefaultOptions().Validate(); err != nil {
		t.Errorf("defaults invalid: %v", err)
	}
}

func TestDisplayName(t *testing.T) {
	cases := []struct{ id, typ, want string }{
		{sub + "/resourceGroups/rg-demo", "", "Microsoft.Resources/resourceGroups/rg-demo"},
		{sub + "/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/s", "Microsoft.Network/virtualNetworks/subnets", "Microsoft.Network/virtualNetworks/v/subnets/s"},
		{sub + "/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/st/providers/Microsoft.Authorization/roleAssignments/r1", "", "Microsoft.Authorization/roleAssignments/r1"},
		{sub, "", "Microsoft.Resources/subscriptions/00000000-0000-0000-0000-000000000001"},
	}
	for _, c := range cases {
		if got := DisplayName(c.id, c.typ); got != c.want {
			t.Errorf("DisplayName(%q) = %q, want %q", c.id, got, c.want)
		}
	}
}

func TestWordWrap(t *testing.T) {
	cases := []struct {
		in    string
		limit int
		want  []string
	}{
		{"needs --allow-replace now", 16, []string{"needs", "--allow-replace", "now"}},
		{"a b c", 10, []string{"a b c"}},
		{"abcdefghij xy", 4, []string{"abcd", "efgh", "ij", "xy"}},
		{"", 5, []string{""}},
	}
	for _, c := range cases {
		got := wordWrap(c.in, c.limit)
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("wordWrap(%q, %d) = %q, want %q", c.in, c.limit, got, c.want)
		}
	}
}

func TestMarkdownNoChanges(t *testing.T) {
	p := &plan.Plan{Resources: []plan.Resource{{ID: sub + "/resourceGroups/rg", Action: plan.ActionNoOp}}}
	var buf bytes.Buffer
	if err := Print(&buf, p, Options{Output: OutputMarkdown}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "**"+NoChangesMessage+"**") {
		t.Errorf("want the no-changes line, got:\n%s", out)
	}
	if strings.Contains(out, "<details>") || strings.Contains(out, "| Action |") {
		t.Errorf("no-op resources listed without --explain:\n%s", out)
	}
}

// A value holding markdown or HTML must not break out of its table cell.
func TestMarkdownEscaping(t *testing.T) {
	p := &plan.Plan{Resources: []plan.Resource{{
		ID: sub + "/resourceGroups/rg", Action: plan.ActionUpdate, Method: "PATCH",
		Changes: []plan.Change{{Path: "tags.x", Before: "a|b", After: "</code><script>`x`", Kind: plan.KindChange}},
	}}}
	var buf bytes.Buffer
	if err := Print(&buf, p, Options{Output: OutputMarkdown}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, bad := range []string{"a|b", "<script>", "</code><"} {
		if strings.Contains(out, bad) {
			t.Errorf("markdown contains unescaped %q:\n%s", bad, out)
		}
	}
	if !strings.Contains(out, "a&#124;b") || !strings.Contains(out, "&lt;script&gt;") {
		t.Errorf("escaped values missing:\n%s", out)
	}
}
